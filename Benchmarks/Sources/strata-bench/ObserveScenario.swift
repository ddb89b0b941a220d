import Foundation
import Strata

/// `--scenario observe`: what an observation (`pool.observe`) costs and how soon it follows a commit, on a
/// `DatabasePool` file in WAL mode with `synchronous` (NORMAL by default).
///
/// - **Latency, through the pool**: one observation of `SELECT max(id)`; `samples` times, a `pool.write` inserts a
///   row, and the time from the write's return to the observation's new value is recorded (0 when the observation had
///   it first). One write at a time: each waits for the value before the next.
/// - **Latency, another connection**: the same, with the row inserted by a `Database` connection of its own, which
///   the pool knows nothing of, as another process's would be: the pool finds it through `PRAGMA data_version`,
///   checked every `otherProcessCheckInterval` (100 ms by default). A random pause (0 to 100 ms) before each insert
///   spreads the commits over the interval.
/// - **Write throughput with observers**: `writes` single-row `pool.write`s from one task, with 0, 10 and 100
///   observations of `SELECT count(*)` running, each re-reading after every commit; writes per second, the median of
///   `rounds` runs, and as a multiple of the run without observers.
struct ObserveScenario {
    let samples: Int
    let writes: Int
    let synchronous: String
    let rounds: Int
    let directory: URL

    func run() async throws {
        print(machineDescription())
        print(
            "observe: a DatabasePool file, WAL, synchronous = \(synchronous), 4 readers; \(samples) latency samples; "
                + "\(writes) writes per throughput run, \(rounds) rounds, medians")
        print("")
        let own = try await latency(otherConnection: false)
        let other = try await latency(otherConnection: true)
        var runs: [Int: [ThroughputRun]] = [:]
        for round in 0..<rounds {
            for observers in observerCounts {
                runs[observers, default: []].append(try await throughput(observers: observers, round: round))
            }
        }
        printObserveReport(
            latencies: [("the pool's writer", own), ("another connection (100 ms checks)", other)], throughput: runs)
    }

    private func openPool(_ name: String) async throws -> (DatabasePool, String) {
        let path = directory.appendingPathComponent(name).path
        let synchronous = self.synchronous
        let pool = try DatabasePool(path: path, readers: 4) { db in
            try db.execute(query: "PRAGMA synchronous = \(synchronous)")
        }
        try await pool.write { db in
            try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        return (pool, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The time from each commit's return to the observation's new value.
    private func latency(otherConnection: Bool) async throws -> [Duration] {
        let (pool, path) = try await openPool("observe-latency-\(otherConnection).sqlite")
        defer { remove(path) }
        let other = otherConnection ? try Database(path: path) : nil
        let seen = Seen()
        let clock = ContinuousClock()
        let observing = Task {
            let newestID: @Sendable (Database) throws -> Int64? = { db in
                try db.fetchOne(Int64.self, query: "SELECT max(id) FROM item")
            }
            for try await newest in pool.observe(newestID) {
                seen.record(newest ?? 0, at: clock.now)
            }
        }
        var samples: [Duration] = []
        try await seen.wait(for: 0)
        for id in 1...Int64(self.samples) {
            let returned: ContinuousClock.Instant
            if let other {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<100)))
                try other.execute("INSERT INTO item (id, name) VALUES (\(id), 'other')")
                returned = clock.now
            } else {
                try await pool.write { db in try db.execute("INSERT INTO item (id, name) VALUES (\(id), 'own')") }
                returned = clock.now
            }
            let observed = try await seen.wait(for: id)
            samples.append(max(observed - returned, .zero))
        }
        observing.cancel()
        _ = await observing.result
        other?.close()
        await pool.close()
        return samples
    }

    /// Single-row writes from one task, with `observers` observations running.
    private func throughput(observers: Int, round: Int) async throws -> ThroughputRun {
        let (pool, path) = try await openPool("observe-throughput-\(observers)-\(round).sqlite")
        defer { remove(path) }
        let run = try await measureThroughput(observers: observers, writes: writes) { seen in
            for try await _ in pool.observe({ db in try db.fetchCount(Item.all()) }) { seen() }
        } write: { index in
            try await pool.write { db in try db.execute("INSERT INTO item (name) VALUES (\(String(index)))") }
        }
        await pool.close()
        return run
    }

    struct Item: Model {
        static let tableName = "item"
        var id: Int64?
        var name: String
    }
}

/// How many observations the throughput runs have.
let observerCounts = [0, 10, 100]

/// One throughput run with observations: the writes per second, and how many new values each observation had
/// during the writes (the mean over the observations).
struct ThroughputRun {
    var writesPerSecond: Double
    var valuesPerObservation: Double
}

/// Runs `writes` calls of `write` from one task, with `observers` tasks each running `observe`, which calls the
/// closure it is given once per value, once every observation has its first value.
func measureThroughput(
    observers: Int, writes: Int,
    observe: @escaping @Sendable (_ seen: @escaping @Sendable () -> Void) async throws -> Void,
    write: (Int) async throws -> Void
) async throws -> ThroughputRun {
    let values = (0..<observers).map { _ in Counter() }
    let tasks = values.map { counter in Task { try await observe { counter.increment() } } }
    while values.contains(where: { $0.value == 0 }) { try await Task.sleep(for: .milliseconds(1)) }
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<writes { try await write(index) }
    let elapsed = clock.now - start
    let seen = values.map { Double($0.value - 1) }.reduce(0, +)
    for task in tasks { task.cancel() }
    for task in tasks { _ = await task.result }
    return ThroughputRun(
        writesPerSecond: Double(writes) / (elapsed / .seconds(1)),
        valuesPerObservation: observers == 0 ? 0 : seen / Double(observers))
}

/// Prints the latencies from a commit to the observation's new value, by who committed, and by number of observers
/// the writes per second (the median of the rounds, and as a multiple of none) and the new values each observation had
/// (the median of the rounds).
func printObserveReport(latencies: [(String, [Duration])], throughput: [Int: [ThroughputRun]]) {
    print("| commit by | observation's new value after the commit: p50 | p99 | max |")
    print("|---|---:|---:|---:|")
    for (name, samples) in latencies {
        print(
            "| \(name) | \(milliseconds(percentile(samples, 0.5))) | \(milliseconds(percentile(samples, 0.99))) | "
                + "\(milliseconds(samples.max() ?? .zero)) |")
    }
    print("")
    print("| observers | writes/s | x none | new values per observation |")
    print("|---:|---:|---:|---:|")
    let none = median((throughput[0] ?? []).map(\.writesPerSecond))
    for observers in observerCounts {
        let runs = throughput[observers] ?? []
        let value = median(runs.map(\.writesPerSecond))
        print(
            "| \(observers) | \(Int(value)) | \(String(format: "%.2f", value / none)) | "
                + "\(Int(median(runs.map(\.valuesPerObservation)))) |")
    }
}

/// The `fraction` percentile of `samples` (nearest rank).
func percentile(_ samples: [Duration], _ fraction: Double) -> Duration {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .zero }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

func median(_ values: [Double]) -> Double {
    values.isEmpty ? 0 : values.sorted()[values.count / 2]
}

func milliseconds(_ duration: Duration) -> String {
    String(format: "%.2f ms", duration / .milliseconds(1))
}

/// The newest id an observation emitted, and when.
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int64: ContinuousClock.Instant] = [:]

    func record(_ id: Int64, at time: ContinuousClock.Instant) {
        lock.withLock { times[id] = time }
    }

    /// When the observation emitted `id`, once it has.
    @discardableResult
    func wait(for id: Int64) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let time = lock.withLock({ times[id] }) { return time }
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the observation never emitted \(id)") }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
