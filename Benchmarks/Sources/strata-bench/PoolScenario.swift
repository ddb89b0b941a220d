import Foundation
import GRDB
import Strata

/// `--scenario pool`: a server's load on a pool, in one process: `tasks` tasks doing small writes (one
/// `pool.write { db in try db.insert(&note) }` each, a new note whose id the insert fills in), then small reads (one
/// `pool.read { db in try db.find(Note.self, id:) }` each), through Strata's `DatabasePool` and GRDB's, on files of
/// their own with the same settings: WAL, 4 readers, and `synchronous` as given. Reports operations per second and
/// the latency percentiles of each operation, from the call to its return.
struct PoolScenario {
    let taskCounts: [Int]
    let writesPerTask: Int
    let readsPerTask: Int
    let synchronous: String
    let rounds: Int
    let directory: URL

    /// One run of one phase: its elapsed time and the sorted latencies of its operations.
    struct PhaseResult {
        let elapsed: Duration
        let latencies: [Duration]

        var perSecond: Double { Double(latencies.count) / (elapsed / .seconds(1)) }

        func percentile(_ fraction: Double) -> Duration {
            let rank = Int((fraction * Double(latencies.count)).rounded(.up))
            return latencies[min(max(rank, 1), latencies.count) - 1]
        }
    }

    func run() async throws {
        print(machineDescription())
        print(
            "pool: \(writesPerTask) writes then \(readsPerTask) reads per task, for \(taskCounts.map(String.init)) "
                + "tasks; WAL, 4 readers, synchronous = \(synchronous); \(rounds) rounds, medians")
        print("")
        print("| library | tasks | writes/s | write p50 | write p99 | reads/s | read p50 | read p99 |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for tasks in taskCounts {
            var rows: [(String, [PhaseResult], [PhaseResult])] = [("strata", [], []), ("grdb", [], [])]
            for round in 0..<rounds {
                // Alternate which library goes first, so that neither always meets a warmer machine.
                let order = round % 2 == 0 ? [0, 1] : [1, 0]
                for index in order {
                    let (writes, reads) =
                        index == 0
                        ? try await runStrata(tasks: tasks, round: round)
                        : try await runGRDB(tasks: tasks, round: round)
                    rows[index].1.append(writes)
                    rows[index].2.append(reads)
                }
            }
            for (name, writes, reads) in rows {
                let write = median(writes)
                let read = median(reads)
                print(
                    "| \(name) | \(tasks) | \(Int(write.perSecond)) | \(format(write.percentile(0.5))) | "
                        + "\(format(write.percentile(0.99))) | \(Int(read.perSecond)) | "
                        + "\(format(read.percentile(0.5))) | \(format(read.percentile(0.99))) |")
            }
            let ratio = { (phase: KeyPath<(String, [PhaseResult], [PhaseResult]), [PhaseResult]>) -> String in
                String(
                    format: "%.2fx",
                    median(rows[0][keyPath: phase]).perSecond / median(rows[1][keyPath: phase]).perSecond)
            }
            print("| strata / grdb | \(tasks) | \(ratio(\.1)) | | | \(ratio(\.2)) | | |")
        }
    }

    /// The run whose throughput is the median of the rounds.
    private func median(_ results: [PhaseResult]) -> PhaseResult {
        results.sorted { $0.perSecond < $1.perSecond }[results.count / 2]
    }

    // MARK: Strata

    struct StrataNote: Strata.Model, Sendable {
        static let tableName = "note"
        var id: Int64?
        var content: String
        var createdAt: Date
    }

    private func runStrata(tasks: Int, round: Int) async throws -> (PhaseResult, PhaseResult) {
        let path = directory.appendingPathComponent("strata-\(tasks)-\(round).sqlite").path
        defer { removeDatabase(at: path) }
        let synchronous = self.synchronous
        let pool = try DatabasePool(path: path, readers: 4) { db in
            try db.execute(query: "PRAGMA synchronous = \(synchronous)")
        }
        try await pool.write { db in try db.execute(query: Self.createTable) }
        let mode = try await pool.write { db in try db.fetchOne(Int.self, query: "PRAGMA synchronous") }
        try checkSynchronous(mode, library: "strata")
        let writes = try await measure(tasks: tasks, operations: writesPerTask) { task, index in
            var note = StrataNote(id: nil, content: "note \(index) of task \(task)", createdAt: Date())
            try await pool.write { db in try db.insert(&note) }
        }
        let count = tasks * writesPerTask
        let reads = try await measure(tasks: tasks, operations: readsPerTask) { task, index in
            let id = Int64((task * 7_919 + index * 104_729) % count + 1)
            let note = try await pool.read { db in try db.find(StrataNote.self, id: id) }
            guard note?.id == id else { throw BenchmarkFailure("strata pool: note \(id) not found") }
        }
        let stored = try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM note") }
        await pool.close()
        guard stored == count else { throw BenchmarkFailure("strata pool: \(stored ?? -1) notes, expected \(count)") }
        return (writes, reads)
    }

    // MARK: GRDB

    struct GRDBNote: Codable, FetchableRecord, MutablePersistableRecord, Sendable {
        static let databaseTableName = "note"
        var id: Int64?
        var content: String
        var createdAt: Date

        mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    }

    private func runGRDB(tasks: Int, round: Int) async throws -> (PhaseResult, PhaseResult) {
        let path = directory.appendingPathComponent("grdb-\(tasks)-\(round).sqlite").path
        defer { removeDatabase(at: path) }
        var configuration = Configuration()
        configuration.maximumReaderCount = 4
        let synchronous = self.synchronous
        let pool = try GRDB.DatabasePool(path: path, configuration: configuration)
        // GRDB sets its writer to NORMAL once the database is open, after `prepareDatabase`: set the mode asked for
        // afterwards, and check it.
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
        try await pool.write { db in try db.execute(sql: Self.createTable) }
        let mode = try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        try checkSynchronous(mode, library: "grdb")
        let writes = try await measure(tasks: tasks, operations: writesPerTask) { task, index in
            var note = GRDBNote(id: nil, content: "note \(index) of task \(task)", createdAt: Date())
            note = try await pool.write { [note] db in
                var note = note
                try note.insert(db)
                return note
            }
            guard note.id != nil else { throw BenchmarkFailure("grdb pool: no id") }
        }
        let count = tasks * writesPerTask
        let reads = try await measure(tasks: tasks, operations: readsPerTask) { task, index in
            let id = Int64((task * 7_919 + index * 104_729) % count + 1)
            let note = try await pool.read { db in try GRDBNote.fetchOne(db, key: id) }
            guard note?.id == id else { throw BenchmarkFailure("grdb pool: note \(id) not found") }
        }
        let stored = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") }
        try pool.close()
        guard stored == count else { throw BenchmarkFailure("grdb pool: \(stored ?? -1) notes, expected \(count)") }
        return (writes, reads)
    }

    // MARK: Helpers

    /// Throws unless the writer runs with the `synchronous` mode asked for.
    private func checkSynchronous(_ mode: Int?, library: String) throws {
        let expected = ["OFF": 0, "NORMAL": 1, "FULL": 2][synchronous]
        guard mode == expected else {
            throw BenchmarkFailure("\(library) pool: synchronous is \(mode ?? -1), not \(synchronous)")
        }
    }

    static let createTable =
        "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL, createdAt TEXT NOT NULL)"

    /// Runs `operations` calls of `body` in each of `tasks` tasks at once, timing each call.
    private func measure(
        tasks: Int, operations: Int, _ body: @escaping @Sendable (Int, Int) async throws -> Void
    ) async throws -> PhaseResult {
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var latencies: [Duration] = []
                    latencies.reserveCapacity(operations)
                    for index in 0..<operations {
                        let begin = clock.now
                        try await body(task, index)
                        latencies.append(clock.now - begin)
                    }
                    return latencies
                }
            }
            var all: [Duration] = []
            for try await latencies in group { all += latencies }
            return all
        }
        return PhaseResult(elapsed: clock.now - start, latencies: latencies.sorted())
    }

    private func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func format(_ duration: Duration) -> String {
        String(format: "%.2f ms", duration / .milliseconds(1))
    }
}
