import Foundation
import Strata

/// `--scenario async-write`: what a block that may suspend costs next to a synchronous one. `tasks` tasks each run
/// `writesPerTask` small writes (`INSERT INTO t (v) VALUES (?)`) on one `DatabasePool`, three ways:
///
/// - `sync`: `pool.write { db in try db.execute(...) }`, the synchronous block;
/// - `async`: the same statement in a block typed `(Database) async throws -> Void`, which takes the path of
///   `DatabaseWriter.write` (what code generic over `some DatabaseWriter` runs), with no suspension inside;
/// - `async-yield`: the async block with one `await Task.yield()` after the statement, a real suspension.
///
/// The file is in WAL mode with `synchronous = OFF`, so that the time is the path's, not the disk's. Reports writes
/// per second and the process's CPU time (user and system, from `getrusage`) per write, each the median of `rounds`
/// runs, and each async way's as a multiple of `sync`'s. On a busy machine the CPU time varies much less than the
/// throughput.
struct AsyncWriteScenario {
    static let modes = ["sync", "async", "async-yield"]

    let taskCounts: [Int]
    let writesPerTask: Int
    let rounds: Int
    let directory: URL

    func run() async throws {
        print(machineDescription())
        print(
            "async-write: \(writesPerTask) writes per task, for \(taskCounts.map(String.init)) tasks; WAL, "
                + "synchronous = OFF; \(rounds) rounds, medians")
        print("")
        print("| tasks | mode | writes/s | x sync | CPU µs/write | x sync |")
        print("|---:|---|---:|---:|---:|---:|")
        for tasks in taskCounts {
            var perSecond: [String: [Double]] = [:]
            var cpu: [String: [Double]] = [:]
            for round in 0..<rounds {
                // Rotate the order, so that no mode always meets a warmer machine.
                for offset in 0..<Self.modes.count {
                    let mode = Self.modes[(round + offset) % Self.modes.count]
                    let run = try await measure(mode: mode, tasks: tasks, round: round)
                    perSecond[mode, default: []].append(run.perSecond)
                    cpu[mode, default: []].append(run.cpuMicroseconds)
                }
            }
            let sync = median(perSecond["sync"] ?? [])
            let syncCPU = median(cpu["sync"] ?? [])
            for mode in Self.modes {
                let value = median(perSecond[mode] ?? [])
                let cost = median(cpu[mode] ?? [])
                print(
                    "| \(tasks) | \(mode) | \(Int(value)) | \(String(format: "%.2f", value / sync)) | "
                        + "\(String(format: "%.1f", cost)) | \(String(format: "%.2f", cost / syncCPU)) |")
            }
        }
    }

    /// One run: writes per second of `tasks` tasks writing in `mode`, and the CPU time per write.
    private func measure(mode: String, tasks: Int, round: Int) async throws -> (
        perSecond: Double, cpuMicroseconds: Double
    ) {
        let path = directory.appendingPathComponent("async-\(mode)-\(tasks)-\(round).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let pool = try DatabasePool(path: path, readers: 1) { db in
            try db.execute(query: "PRAGMA synchronous = OFF")
        }
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)") }
        let writesPerTask = self.writesPerTask
        let clock = ContinuousClock()
        let cpuStart = cpuMicroseconds()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<writesPerTask {
                        let value = task * writesPerTask + index
                        switch mode {
                        case "sync":
                            try await pool.write { db in try db.execute("INSERT INTO t (v) VALUES (\(value))") }
                        case "async":
                            let body: (Database) async throws -> Void = { db in
                                try db.execute("INSERT INTO t (v) VALUES (\(value))")
                            }
                            try await pool.write(body)
                        default:
                            let body: (Database) async throws -> Void = { db in
                                try db.execute("INSERT INTO t (v) VALUES (\(value))")
                                await Task.yield()
                            }
                            try await pool.write(body)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - start
        let cpu = cpuMicroseconds() - cpuStart
        let stored = try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") }
        await pool.close()
        guard stored == tasks * writesPerTask else {
            throw BenchmarkFailure("async-write \(mode): \(stored ?? -1) rows, expected \(tasks * writesPerTask)")
        }
        let writes = Double(tasks * writesPerTask)
        return (writes / (elapsed / .seconds(1)), cpu / writes)
    }

    /// The CPU time the process has used so far, user and system, in microseconds.
    private func cpuMicroseconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec)
        return user + Double(usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_stime.tv_usec)
    }
}
