import Foundation
import Logging
import NotesApp
import Strata

/// What the blocks written once for every backend cost on SQLite next to the pool's synchronous blocks:
/// `swift run -c release --package-path Examples/NotesServer NotesStoreBenchmark [operations] [runs]`.
///
/// Each scenario runs `operations` calls (10,000 by default) through `NoteStore<DatabasePool>` without its SQLite
/// fast path (`usesSQLiteFastPath: false`: blocks that suspend, `read { session in try await session... }`) and
/// with it (the default: the pool's synchronous blocks, `read { db in try db... }`), runs alternating, and prints the
/// median of `runs` (5) in calls per second.
/// Sequential calls from one task show the cost per call; 8 tasks at once show the cost under load. The pool is the
/// server's (4 readers, observability as the server sets it), with `synchronous = NORMAL` so that the writes measure
/// the calls rather than the disk's fsync.
@main
struct NotesStoreBenchmark {
    static let seeded = 1_000

    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
        let operations = arguments.first ?? 10_000
        let runs = arguments.dropFirst().first ?? 5
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("notes-store-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var logger = Logger(label: "NotesStoreBenchmark")
        logger.logLevel = .info
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: NotesConfiguration.repositoryMigrations)
        let pool = try DatabasePool(
            path: folder.appendingPathComponent("notes.sqlite").path, readers: 4, synchronous: .normal,
            observability: DatabaseObservability(logger: logger, tracing: true, metrics: true))
        try await migrator.migrate(pool)
        let store = NoteStore(database: pool)
        for index in 1...seeded {
            _ = try await store.create(content: "seeded note \(index)")
        }

        let genericStore = NoteStore(database: pool, usesSQLiteFastPath: false)
        print("\(operations) calls per run, median of \(runs) runs, calls/s (generic blocks / synchronous blocks)")
        let scenarios: [(String, Scenario, Scenario)] = [
            (
                "GET /notes/:id  note(id:)",
                { i in _ = try await genericStore.note(id: Int64(i % seeded + 1)) },
                { i in _ = try await store.note(id: Int64(i % seeded + 1)) }
            ),
            (
                "GET /notes      latest(limit: 20)",
                { _ in _ = try await genericStore.latest(limit: 20) },
                { _ in _ = try await store.latest(limit: 20) }
            ),
            (
                "POST /notes     create(content:)",
                { i in _ = try await genericStore.create(content: "note \(i)") },
                { i in _ = try await store.create(content: "note \(i)") }
            ),
        ]
        for tasks in [1, 8] {
            for (name, generic, synchronous) in scenarios {
                var genericRates: [Double] = []
                var synchronousRates: [Double] = []
                for _ in 0..<runs {
                    genericRates.append(try await rate(operations, tasks: tasks, generic))
                    synchronousRates.append(try await rate(operations, tasks: tasks, synchronous))
                }
                let genericMedian = median(genericRates)
                let synchronousMedian = median(synchronousRates)
                print(
                    "\(tasks) task\(tasks == 1 ? " " : "s") \(name): \(Int(genericMedian)) / \(Int(synchronousMedian))"
                        + "  generic/synchronous = \(String(format: "%.2f", genericMedian / synchronousMedian))"
                        + "  runs: \(genericRates.map { Int($0) }) / \(synchronousRates.map { Int($0) })")
            }
        }
        await pool.close()
    }

    typealias Scenario = @Sendable (Int) async throws -> Void

    /// Calls per second of `operations` calls of `body`, shared by `tasks` tasks.
    static func rate(_ operations: Int, tasks: Int, _ body: @escaping Scenario) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in stride(from: task, to: operations, by: tasks) {
                        try await body(index)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(operations) / seconds
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
