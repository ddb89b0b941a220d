import Foundation
import Strata
import Synchronization

/// `--scenario import-under-load`: a long import into the `item` table of a `DatabasePool` while small writes keep
/// arriving, done three ways, in one process:
///
/// - `single-write`: one `pool.write` holding the whole import;
/// - `write-per-row`: one `pool.write` per row;
/// - `pausable-write`: one `pool.pausableWrite`, a row per step.
///
/// Meanwhile `writers` tasks each insert one row into a `ping` table every `interval`. For each way it reports the
/// import's time and the small writes' latency (from calling `write` to its return): median, 99th percentile and
/// maximum. The pool's file is in WAL mode with `synchronous = NORMAL`, as in the other file phases.
struct ImportUnderLoad {
    static let modes = ["single-write", "write-per-row", "pausable-write"]

    let rows: Int
    let writers: Int
    let interval: Duration
    let modes: [String]
    let directory: URL

    func run() async throws {
        print(machineDescription())
        print(
            "import-under-load: \(rows) rows into item, \(writers) tasks each inserting one ping row every \(interval)")
        let items = Workload.items(count: rows).map(StrataItem.init)
        var results: [(mode: String, result: ImportResult)] = []
        for mode in modes {
            let result = try await measure(mode: mode, items: items)
            results.append((mode, result))
            print("  \(mode): import \(format(result.importTime)), \(result.latencies.count) small writes")
        }
        printTable(results, baseline: results.first { $0.mode == "single-write" }?.result.importTime)
    }

    private func measure(mode: String, items: [StrataItem]) async throws -> ImportResult {
        let path = directory.appendingPathComponent("import-\(mode).sqlite").path
        let pool = try DatabasePool(path: path, readers: 2) { db in
            try db.execute(query: "PRAGMA synchronous = NORMAL")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await pool.write { db in
            try db.execute(query: Workload.createTable)
            try db.execute(query: "CREATE TABLE ping (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL)")
        }
        let importDone = ImportFlag()
        let clock = ContinuousClock()
        let result = try await withThrowingTaskGroup(of: [SmallWrite].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await smallWrites(pool: pool, writer: writer, until: importDone, clock: clock)
                }
            }
            // Let every small writer start its rhythm before the import begins.
            try await Task.sleep(for: interval * 2)
            let start = clock.now
            try await importItems(items, into: pool, mode: mode)
            let end = clock.now
            importDone.set()
            var latencies: [Duration] = []
            for try await writes in group {
                // The writes asked for while the import ran, however long they waited.
                latencies += writes.lazy.filter { $0.start >= start && $0.start < end }.map(\.latency)
            }
            return ImportResult(importTime: end - start, latencies: latencies.sorted())
        }
        let (itemCount, pingCount) = try await pool.read { db in
            (
                try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") ?? -1,
                try db.fetchOne(Int.self, query: "SELECT count(*) FROM ping") ?? -1
            )
        }
        await pool.close()
        guard itemCount == items.count else {
            throw BenchmarkFailure("import-under-load \(mode): \(itemCount) items stored, expected \(items.count)")
        }
        guard pingCount >= result.latencies.count else {
            throw BenchmarkFailure(
                "import-under-load \(mode): \(pingCount) pings stored, \(result.latencies.count) timed")
        }
        return result
    }

    private func importItems(_ items: [StrataItem], into pool: DatabasePool, mode: String) async throws {
        switch mode {
        case "single-write":
            try await pool.write { db in
                for item in items { try db.insert(item) }
            }
        case "write-per-row":
            for item in items {
                try await pool.write { db in try db.insert(item) }
            }
        case "pausable-write":
            var index = 0
            try await pool.pausableWrite { db, stop, _ in
                try db.insert(items[index])
                index += 1
                stop = index == items.count
            }
        default:
            throw BenchmarkFailure("unknown import mode \(mode)")
        }
    }

    /// One small writer: an insert every `interval` while the import runs, each timed from the call to its return.
    /// A write that returns late is followed by the next one at once, not by a burst that catches up.
    private func smallWrites(
        pool: DatabasePool, writer: Int, until importDone: ImportFlag, clock: ContinuousClock
    ) async throws -> [SmallWrite] {
        var writes: [SmallWrite] = []
        var next = clock.now
        while !importDone.isSet {
            let start = clock.now
            try await pool.write { db in
                try db.execute(query: "INSERT INTO ping (writer) VALUES (?)", parameters: writer)
            }
            let end = clock.now
            writes.append(SmallWrite(start: start, latency: end - start))
            next = max(next + interval, end)
            try await Task.sleep(until: next, clock: clock)
        }
        return writes
    }

    private func printTable(_ results: [(mode: String, result: ImportResult)], baseline: Duration?) {
        print("")
        print("| Import (\(rows) rows) | import time | vs single write | small writes | p50 | p99 | max |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for (mode, result) in results {
            let ratio = baseline.map { String(format: "%.2fx", result.importTime / $0) } ?? "-"
            print(
                "| \(mode) | \(format(result.importTime)) | \(ratio) | \(result.latencies.count) | "
                    + "\(format(result.percentile(0.50))) | \(format(result.percentile(0.99))) | "
                    + "\(format(result.latencies.last)) |")
        }
    }

    private func format(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let milliseconds = duration / .milliseconds(1)
        return milliseconds >= 1000
            ? String(format: "%.2f s", milliseconds / 1000) : String(format: "%.2f ms", milliseconds)
    }
}

struct SmallWrite: Sendable {
    let start: ContinuousClock.Instant
    let latency: Duration
}

struct ImportResult {
    let importTime: Duration
    /// Sorted.
    let latencies: [Duration]

    /// The nearest-rank percentile of the latencies.
    func percentile(_ fraction: Double) -> Duration? {
        guard !latencies.isEmpty else { return nil }
        let rank = Int((fraction * Double(latencies.count)).rounded(.up))
        return latencies[min(max(rank, 1), latencies.count) - 1]
    }
}

/// Set once the import has returned; read by the small writers.
final class ImportFlag: Sendable {
    private let flag = Mutex(false)

    var isSet: Bool { flag.withLock { $0 } }

    func set() { flag.withLock { $0 = true } }
}
