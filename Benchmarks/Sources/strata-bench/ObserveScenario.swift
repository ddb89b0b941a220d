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
/// - **Latency, another process**: the same, with the row inserted by a child process (``ObserveWriterChild``), which
///   reports when its commit returned on the system's monotonic clock.
/// - **Write throughput with observers**: `writes` single-row `pool.write`s from one task, with 0, 10 and 100
///   observations of `SELECT count(*)` running, each re-reading after every commit; writes per second, the median of
///   `rounds` runs, and as a multiple of the run without observers. Then 10 observations of another table, which the
///   writes never make read again.
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
        let own = try await latency(.pool)
        let other = try await latency(.otherConnection)
        let otherProcess = try await latency(.otherProcess)
        var runs: [Int: [ThroughputRun]] = [:]
        var elsewhere: [ThroughputRun] = []
        for round in 0..<rounds {
            for observers in observerCounts {
                runs[observers, default: []].append(try await throughput(observers: observers, round: round))
            }
            elsewhere.append(try await throughput(observers: 10, round: round, observing: "other"))
        }
        printObserveReport(
            latencies: [
                ("the pool's writer", own), ("another connection (100 ms checks)", other),
                ("another process (100 ms checks)", otherProcess),
            ], throughput: runs, elsewhere: elsewhere)
    }

    private func openPool(_ name: String) async throws -> (DatabasePool, String) {
        let path = directory.appendingPathComponent(name).path
        let synchronous = self.synchronous
        let pool = try DatabasePool(path: path, readers: 4) { db in
            try db.execute(query: "PRAGMA synchronous = \(synchronous)")
        }
        try await pool.write { db in
            try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(query: "CREATE TABLE other (id INTEGER PRIMARY KEY)")
        }
        return (pool, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Who commits in a latency run.
    enum Committer: String {
        /// The pool's own writer.
        case pool
        /// A `Database` connection of this process that the pool knows nothing of.
        case otherConnection = "other-connection"
        /// A child process (this executable, `--observe-writer-child`) with a connection of its own.
        case otherProcess = "other-process"
    }

    /// The time from each commit's return to the observation's new value.
    private func latency(_ committer: Committer) async throws -> [Duration] {
        let (pool, path) = try await openPool("observe-latency-\(committer.rawValue).sqlite")
        defer { remove(path) }
        let other = committer == .otherConnection ? try Database(path: path) : nil
        let child = committer == .otherProcess ? try ObserveWriterChild(path: path) : nil
        let seen = Seen()
        let observing = Task {
            let newestID: @Sendable (Database) throws -> Int64? = { db in
                try db.fetchOne(Int64.self, query: "SELECT max(id) FROM item")
            }
            for try await newest in pool.observe(newestID) {
                seen.record(newest ?? 0, at: monotonicNow())
            }
        }
        var samples: [Duration] = []
        try await seen.wait(for: 0)
        for id in 1...Int64(self.samples) {
            let returned: Duration
            if let child {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<100)))
                returned = try await child.insert(id)
            } else if let other {
                try await Task.sleep(for: .milliseconds(Int.random(in: 0..<100)))
                try other.execute("INSERT INTO item (id, name) VALUES (\(id), 'other')")
                returned = monotonicNow()
            } else {
                try await pool.write { db in try db.execute("INSERT INTO item (id, name) VALUES (\(id), 'own')") }
                returned = monotonicNow()
            }
            let observed = try await seen.wait(for: id)
            samples.append(max(observed - returned, .zero))
        }
        observing.cancel()
        _ = await observing.result
        try child?.finish()
        other?.close()
        await pool.close()
        return samples
    }

    /// Single-row writes into `item` from one task, with `observers` observations of the count of `observing`.
    private func throughput(observers: Int, round: Int, observing table: String = "item") async throws
        -> ThroughputRun
    {
        let (pool, path) = try await openPool("observe-throughput-\(table)-\(observers)-\(round).sqlite")
        defer { remove(path) }
        let run = try await measureThroughput(observers: observers, writes: writes) { seen in
            for try await _ in pool.observe({ db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM \(table)") })
            {
                seen()
            }
        } write: { index in
            try await pool.write { db in try db.execute("INSERT INTO item (name) VALUES (\(String(index)))") }
        }
        var measured = run
        measured.walBytes = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int
        await pool.close()
        return measured
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
    /// The size of the WAL file when the writes ended (SQLite).
    var walBytes: Int?
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
func printObserveReport(
    latencies: [(String, [Duration])], throughput: [Int: [ThroughputRun]], elsewhere: [ThroughputRun]
) {
    print("| commit by | observation's new value after the commit: p50 | p99 | max |")
    print("|---|---:|---:|---:|")
    for (name, samples) in latencies {
        print(
            "| \(name) | \(milliseconds(percentile(samples, 0.5))) | \(milliseconds(percentile(samples, 0.99))) | "
                + "\(milliseconds(samples.max() ?? .zero)) |")
    }
    print("")
    print("| observers | writes/s | x none | new values per observation | WAL at the end |")
    print("|---:|---:|---:|---:|---:|")
    let none = median((throughput[0] ?? []).map(\.writesPerSecond))
    let rows = observerCounts.map { ("\($0)", throughput[$0] ?? []) } + [("10, of another table", elsewhere)]
    for (observers, runs) in rows {
        let value = median(runs.map(\.writesPerSecond))
        let wal = runs.compactMap(\.walBytes).map { String(format: "%.1f MB", Double($0) / 1_000_000) }
        print(
            "| \(observers) | \(Int(value)) | \(String(format: "%.2f", value / none)) | "
                + "\(Int(median(runs.map(\.valuesPerObservation)))) | \(wal.isEmpty ? "-" : wal.joined(separator: ", ")) |"
        )
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

/// The time on the system's monotonic clock (`CLOCK_MONOTONIC`), which another process reads the same: what the latency
/// runs compare.
func monotonicNow() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// The newest id an observation emitted, and when (``monotonicNow()``).
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [Int64: Duration] = [:]

    func record(_ id: Int64, at time: Duration) {
        lock.withLock { times[id] = time }
    }

    /// When the observation emitted `id`, once it has.
    @discardableResult
    func wait(for id: Int64) async throws -> Duration {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let time = lock.withLock({ times[id] }) { return time }
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the observation never emitted \(id)") }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}

/// A child process that inserts into the latency run's table on request: this executable run with
/// `--observe-writer-child PATH`. Each line it reads is an id, which it inserts in a transaction of its own; it answers
/// with the id and the time its commit returned (``monotonicNow()``, in nanoseconds).
final class ObserveWriterChild: Sendable {
    static let argument = "--observe-writer-child"

    private let process: Process
    private let requests: FileHandle
    private let answers: FileHandle

    init(path: String) throws {
        let process = Process()
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [Self.argument, path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        self.process = process
        requests = input.fileHandleForWriting
        answers = output.fileHandleForReading
    }

    /// Has the child insert `id`, and returns when its commit returned.
    func insert(_ id: Int64) async throws -> Duration {
        requests.write(Data("\(id)\n".utf8))
        let answers = self.answers
        // Read on a thread of its own: a blocking read must not hold one of the cooperative pool's threads, which the
        // observation needs.
        let line = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: readLine(from: answers)) }
        }
        let fields = line.split(separator: " ")
        guard fields.count == 2, Int64(fields[0]) == id, let nanoseconds = Int64(fields[1]) else {
            throw BenchmarkFailure("the writer child answered \(line.debugDescription) for \(id)")
        }
        return .nanoseconds(nanoseconds)
    }

    /// Ends the child: it exits once its input closes.
    func finish() throws {
        try requests.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("the writer child exited with status \(process.terminationStatus)")
        }
    }

    /// The child's side: inserts each id read from standard input and answers on standard output.
    static func run(path: String) throws {
        let db = try Database(path: path)
        while let line = Swift.readLine(), let id = Int64(line) {
            try db.execute("INSERT INTO item (id, name) VALUES (\(id), 'other process')")
            let time = monotonicNow()
            let nanoseconds = time.components.seconds * 1_000_000_000 + time.components.attoseconds / 1_000_000_000
            FileHandle.standardOutput.write(Data("\(id) \(nanoseconds)\n".utf8))
        }
        db.close()
    }
}

/// One line from `handle`, without its newline; what was read when the handle ends first.
private func readLine(from handle: FileHandle) -> String {
    var bytes: [UInt8] = []
    while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
        bytes.append(first)
    }
    return String(decoding: bytes, as: UTF8.self)
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
