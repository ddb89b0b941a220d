import Foundation
import PostgresNIO

/// `--postgres URL`: the INSERT, FETCH and LOOKUP phases through StrataPostgres and through postgres-nio by hand,
/// on one server, interleaved round by round as the SQLite systems are, every result checked.
struct PostgresRunner {
    let options: Options
    let url: String

    /// The phases that exist on a server: `insert-file` is SQLite's.
    static let phases = ["insert", "fetch", "lookup"]

    func run() async throws {
        let items = Workload.items(count: options.rows)
        let expectedAll = Checksum(items)
        let ids = Workload.lookupIDs(count: options.lookups, rows: options.rows)
        let expectedLookups = Checksum(ids.lazy.map { items[Int($0) - 1] })
        let systems = try allPostgresSystems.filter { options.systems.contains($0.name) }.map {
            try $0.init(items: items, url: url)
        }
        // The harness's own client: it creates the table, loads the rows for FETCH and LOOKUP, and reads back what
        // each INSERT wrote. The floor's code does the loading and the reading, outside the clock.
        let harness = try PostgresNIOSystem(items: items, url: url)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await harness.run() }
            for system in systems {
                group.addTask { try await system.run() }
            }
            do {
                try await measure(
                    systems: systems, harness: harness, ids: ids, expectedAll: expectedAll,
                    expectedLookups: expectedLookups)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    private func measure(
        systems: [any PostgresBenchmarkSystem], harness: PostgresNIOSystem, ids: [Int64], expectedAll: Checksum,
        expectedLookups: Checksum
    ) async throws {
        let version = try await harness.client.withConnection { connection in
            var settings: [String] = []
            for name in ["server_version", "fsync", "synchronous_commit", "shared_buffers"] {
                let rows = try await connection.query(
                    "SELECT current_setting(\(name))", logger: PostgresWorkload.logger)
                for try await value in rows.decode(String.self) { settings.append("\(name) \(value)") }
            }
            return settings.joined(separator: ", ")
        }
        print(machineDescription())
        print("PostgreSQL: \(version)")
        print(
            "workload: \(options.rows) rows, \(options.lookups) lookups; \(options.warmup) warm-up and "
                + "\(options.reps) measured runs per phase and system, interleaved\n")

        var results: [String: [String: Statistics]] = [:]
        let rounds = options.warmup + options.reps
        for phase in Self.phases where options.phases.contains(phase) {
            var times: [String: [Duration]] = [:]
            switch phase {
            case "insert":
                progress("insert: \(options.rows) rows in one transaction")
                for round in 0..<rounds {
                    for system in rotated(systems, round: round) {
                        let name = type(of: system).name
                        try await resetTable(harness)
                        let (elapsed, _) = try await timedAsync { try await system.insertAll() }
                        let written = Checksum(try await harness.fetchBody())
                        try verify(written, expected: expectedAll, phase: phase, system: name)
                        if round >= options.warmup { times[name, default: []].append(elapsed) }
                    }
                }
            default:
                let fetch = phase == "fetch"
                progress(fetch ? "fetch: \(options.rows) rows into an array" : "lookup: \(options.lookups) rows by id")
                if !results.keys.contains("fetch") && !results.keys.contains("lookup") {
                    try await resetTable(harness)
                    try await harness.insertAll()
                    try await harness.client.withConnection { connection in
                        _ = try await connection.query("VACUUM ANALYZE item", logger: PostgresWorkload.logger)
                    }
                }
                for round in 0..<rounds {
                    for system in rotated(systems, round: round) {
                        let name = type(of: system).name
                        let measurement = fetch ? try await system.fetchAll() : try await system.lookup(ids: ids)
                        try verify(
                            measurement.checksum, expected: fetch ? expectedAll : expectedLookups, phase: phase,
                            system: name)
                        if round >= options.warmup { times[name, default: []].append(measurement.elapsed) }
                    }
                }
            }
            for (system, durations) in times {
                results[phase, default: [:]][system] = Statistics(durations)
            }
        }
        printTable(results)
        if let jsonPath = options.jsonPath {
            try writeJSON(results, to: jsonPath)
            print("wrote \(jsonPath)")
        }
    }

    /// A fresh empty `item` table.
    private func resetTable(_ harness: PostgresNIOSystem) async throws {
        try await harness.client.withConnection { connection in
            try await connection.query("DROP TABLE IF EXISTS item", logger: PostgresWorkload.logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: PostgresWorkload.createTable), logger: PostgresWorkload.logger)
        }
    }

    private func rotated<T>(_ systems: [T], round: Int) -> [T] {
        guard !systems.isEmpty else { return systems }
        let shift = round % systems.count
        return Array(systems[shift...] + systems[..<shift])
    }

    private func verify(_ checksum: Checksum, expected: Checksum, phase: String, system: String) throws {
        guard checksum == expected else {
            throw BenchmarkFailure(
                "\(system) \(phase): checksum mismatch\n  expected \(expected)\n  got      \(checksum)")
        }
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("… \(message)\n".utf8))
    }

    /// Medians and minimums, each system's median as a multiple of the floor's from the same run, and the issue's
    /// target (#16: at most 1.3x postgres-nio on each phase).
    private func printTable(_ results: [String: [String: Statistics]]) {
        let header = [
            "phase".padding(8), "system".padding(16), "median ms".leftPadding(10), "min ms".leftPadding(10),
            "x postgres-nio".leftPadding(15),
        ]
        print(header.joined(separator: " "))
        print(String(repeating: "-", count: header.joined(separator: " ").count))
        var targets: [String] = []
        for phase in Self.phases {
            guard let bySystem = results[phase] else { continue }
            let floor = bySystem[PostgresNIOSystem.name]?.median
            for system in allPostgresSystems.map({ $0.name }) {
                guard let stats = bySystem[system] else { continue }
                let row = [
                    phase.padding(8), system.padding(16), format(stats.median).leftPadding(10),
                    format(stats.min).leftPadding(10),
                    (floor.map { format(stats.median / $0, digits: 2) } ?? "-").leftPadding(15),
                ]
                print(row.joined(separator: " "))
                if system == StrataPostgresSystem.name, let floor {
                    let ratio = stats.median / floor
                    targets.append(
                        "  \(phase.padding(8)) \(format(ratio, digits: 2))x postgres-nio (target <= 1.3x: "
                            + "\(ratio <= 1.3 ? "met" : "MISSED"))")
                }
            }
        }
        print("")
        if !targets.isEmpty {
            print("\(StrataPostgresSystem.name) targets:")
            for line in targets { print(line) }
            print("")
        }
    }

    private func writeJSON(_ results: [String: [String: Statistics]], to path: String) throws {
        var phases: [String: [String: Double]] = [:]
        for (phase, bySystem) in results {
            for (system, stats) in bySystem {
                phases[phase, default: [:]][system] = (stats.median * 1000).rounded() / 1000
            }
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["results": phases], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
