import Foundation
import Strata
import Synchronization
import Testing

/// Every call position of five workloads, failed one at a time: `strata migrate` and `strata backup` (the tool as a
/// process), a pool's write loop, and a `Database` in WAL and in rollback-journal mode (`strata-fault-child`).
///
/// After each run, without faults: the file opens and passes `integrity_check`; every write reported committed is
/// there and every write reported failed is not (one reported `.commitOutcomeUnknown` may be either); no row is
/// torn; the tool printed one `error:` line or succeeded; nothing hung (a timeout per child) or crashed.
///
/// `swift test` runs a bounded sweep: each kind of fault at three positions, and once transient. `STRATA_FAULT_SWEEP=full` runs
/// every position of every kind, persistent and transient (`STRATA_FAULT_JOBS` children at a time, 2 by default).
/// Each workload prints its outcome counts; docs/Guarantees.md records those of the last full sweep.
@Suite("Reliability: I/O fault sweep", .serialized)
struct IOFaultSweepTests {
    /// The faults a sweep tries, in the kinds the issue lists.
    static let kinds: [(ops: String, errno: String)] = [
        ("write", "EIO"), ("write", "ENOSPC"), ("write", "EDQUOT"), ("write", "EROFS"), ("write", "SHORT"),
        ("sync", "EIO"), ("truncate", "EIO"), ("read", "EIO"), ("lock", "EIO"), ("unlock", "EIO"),
        ("mmap", "EIO"), ("open", "EIO"), ("open", "EROFS"), ("unlink", "EIO"), ("rename", "EIO"),
        ("link", "EIO"),
    ]

    static let isFull = ProcessInfo.processInfo.environment["STRATA_FAULT_SWEEP"] == "full"

    /// The positions a sweep fails for a kind of fault (`ops`) of which the workload makes `calls` calls.
    ///
    /// The bounded sweep takes the first call, the last and one between (where a workload opens, commits and closes),
    /// but only the first of the locks and unlocks: a lock that fails later leaves SQLite retrying for ten seconds
    /// before it reports `SQLITE_PROTOCOL`, which the full sweep and the pool's recovery test pay for.
    static func positions(calls: Int, ops: String) -> [Int] {
        guard calls > 0 else { return [] }
        if isFull { return Array(1...calls) }
        if ops == "lock" || ops == "unlock" { return [1] }
        return Array(Set([1, calls, (calls + 1) / 2])).sorted()
    }

    /// Each fault to run: persistent, and transient too (the full sweep at every position, the bounded one at the
    /// middle one).
    static func faults(calls: [String: Int]) -> [Fault] {
        var faults: [Fault] = []
        for kind in kinds {
            let positions = positions(calls: calls[kind.ops] ?? 0, ops: kind.ops)
            for (index, position) in positions.enumerated() {
                faults.append(Fault(ops: kind.ops, errno: kind.errno, at: position))
                if isFull || (positions.count > 1 && index == positions.count / 2) {
                    faults.append(Fault(ops: kind.ops, errno: kind.errno, at: position, times: 1))
                }
            }
        }
        return faults
    }

    private let child: URL
    private let strata: URL

    init() throws {
        child = try builtExecutable("strata-fault-child")
        strata = try builtExecutable("strata")
    }

    // MARK: Workloads

    @Test("strata migrate, at every call position")
    func migrate() async throws {
        try await sweep("strata migrate", watching: ["/strata.sqlite"]) { workspace in
            if !workspace.names().contains("Migrations") {
                try FileManager.default.copyItem(
                    at: FaultShim.source.deletingLastPathComponent().deletingLastPathComponent()
                        .deletingLastPathComponent().appendingPathComponent("Migrations"),
                    to: workspace.url.appendingPathComponent("Migrations"))
            }
            workspace.removeDatabase("strata.sqlite")
            return (strata, ["migrate"])
        } check: { workspace, run in
            try Self.checkMigration(workspace, run)
        }
    }

    @Test("strata backup, at every call position")
    func backup() async throws {
        try await sweep("strata backup", watching: ["/db.sqlite", "/copy.sqlite"]) { workspace in
            if !workspace.names().contains("base.sqlite") {
                try Items.makeDatabase("base.sqlite", in: workspace, rows: 200, mode: .wal)
            }
            try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
            workspace.removeDatabase("copy.sqlite")
            for leftover in workspace.names() where leftover.contains(".strata-backup-") {
                try FileManager.default.removeItem(atPath: workspace.path(leftover))
            }
            return (strata, ["backup", "--database", "db.sqlite", "--to", "copy.sqlite"])
        } check: { workspace, run in
            try Self.checkBackup(workspace, run)
        }
    }

    @Test("A pool's write loop, at every call position")
    func poolWrites() async throws {
        try await writes(mode: "pool")
    }

    @Test("A Database in WAL mode, at every call position")
    func walWrites() async throws {
        try await writes(mode: "wal")
    }

    @Test("A Database in rollback-journal mode, at every call position")
    func rollbackWrites() async throws {
        try await writes(mode: "delete")
    }

    private func writes(mode: String) async throws {
        let base: JournalMode = mode == "delete" ? .delete : .wal
        try await sweep("\(mode) writes", watching: ["/db.sqlite"]) { workspace in
            if !workspace.names().contains("base.sqlite") {
                try Items.makeDatabase("base.sqlite", in: workspace, rows: 50, mode: base)
            }
            try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
            return (child, ["writes", workspace.path("db.sqlite"), mode, "6"])
        } check: { workspace, run in
            try Self.checkWrites(workspace, run)
        }
    }

    // MARK: The sweep

    /// What one run can end as.
    enum Outcome: String, CaseIterable {
        /// The fault never fired (the run made fewer calls).
        case notReached = "fault not reached"
        /// The run succeeded all the same (SQLite retried, or the failing call did not matter).
        case absorbed = "succeeded despite the fault"
        /// The run reported a clean failure.
        case failed = "failed with a clear error"
        /// A commit was reported `.commitOutcomeUnknown`.
        case unknown = "commit outcome unknown"
        /// A check failed (recorded as an issue).
        case violation = "broke a promise"
        case hang = "hung"
        case crash = "crashed"
    }

    /// Counts the calls of each kind the workload makes, then runs it once per fault and checks each run.
    private func sweep(
        _ name: String, watching: [String],
        prepare: @escaping @Sendable (FaultWorkspace) throws -> (URL, [String]),
        check: @escaping @Sendable (FaultWorkspace, FaultRun) throws -> Outcome
    ) async throws {
        // The children are waited for on dispatch threads, never on Swift's cooperative ones.
        let (counts, issues, summary) = try await offThePool {
            try Self.sweepBlocking(name, watching: watching, prepare: prepare, check: check)
        }
        for issue in issues {
            Issue.record(Comment(rawValue: issue))
        }
        print(summary)
        #expect(counts[.hang] == nil && counts[.crash] == nil && counts[.violation] == nil)
    }

    private static func sweepBlocking(
        _ name: String, watching: [String],
        prepare: @Sendable (FaultWorkspace) throws -> (URL, [String]),
        check: @Sendable (FaultWorkspace, FaultRun) throws -> Outcome
    ) throws -> (counts: [Outcome: Int], issues: [String], summary: String) {
        let clock = ContinuousClock()
        let start = clock.now
        let issues = Mutex<[String]>([])
        // The calls of each kind, in a run without faults.
        var calls: [String: Int] = [:]
        let countingWorkspace = try FaultWorkspace()
        for ops in Set(Self.kinds.map(\.ops)).sorted() {
            let (binary, arguments) = try prepare(countingWorkspace)
            let run = try FaultRun.runBlocking(
                binary, arguments, in: countingWorkspace.url, fault: .counting(ops), watching: watching)
            let outcome = try? check(countingWorkspace, run)
            if run.status != 0 || run.timedOut || outcome != .absorbed {
                issues.withLock { $0.append("\(name), counting \(ops) without a fault: \(run.summary)") }
            }
            calls[ops] = run.calls
        }
        let faults = Self.faults(calls: calls)
        let jobs = Self.isFull ? max(1, Int(ProcessInfo.processInfo.environment["STRATA_FAULT_JOBS"] ?? "2") ?? 2) : 1
        let counts = Mutex<[Outcome: Int]>([:])
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            guard let workspace = try? FaultWorkspace() else { return }
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < faults.count else { return }
                let fault = faults[index]
                let outcome: Outcome
                do {
                    let (binary, arguments) = try prepare(workspace)
                    let run = try FaultRun.runBlocking(
                        binary, arguments, in: workspace.url, fault: fault, watching: watching,
                        timeout: .seconds(60))
                    if run.timedOut {
                        outcome = .hang
                        issues.withLock { $0.append("\(name), \(fault): hung: \(run.summary)") }
                    } else if run.signaled || run.status > 2 {
                        outcome = .crash
                        issues.withLock { $0.append("\(name), \(fault): crashed: \(run.summary)") }
                    } else if run.faults == 0 {
                        outcome = .notReached
                    } else {
                        do {
                            outcome = try check(workspace, run)
                        } catch {
                            issues.withLock { $0.append("\(name), \(fault): \(error); \(run.summary)") }
                            outcome = .violation
                        }
                    }
                } catch {
                    issues.withLock { $0.append("\(name), \(fault): could not run: \(error)") }
                    outcome = .violation
                }
                counts.withLock { $0[outcome, default: 0] += 1 }
            }
        }
        let final = counts.withLock { $0 }
        let outcomes = Outcome.allCases.compactMap { outcome in final[outcome].map { "\($0) \(outcome.rawValue)" } }
        let summary =
            "I/O fault sweep (\(Self.isFull ? "full" : "bounded")), \(name): \(faults.count) runs over "
            + "\(calls.values.reduce(0, +)) counted calls: \(outcomes.joined(separator: ", ")) in \(clock.now - start)"
        return (final, issues.withLock { $0 }, summary)
    }

    // MARK: Checks

    /// A violated promise.
    struct Broken: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The tool ends with status 0, or 1 and exactly one `error:` line.
    static func checkOneErrorLine(_ run: FaultRun) throws -> Bool {
        if run.status == 0 { return false }
        guard run.status == 1, run.errorLines.count == 1, run.errorLines[0].hasPrefix("error: ") else {
            throw Broken("not one error line: \(run.summary)")
        }
        return true
    }

    static func checkWrites(_ workspace: FaultWorkspace, _ run: FaultRun) throws -> Outcome {
        let reports = WriteReports(run.lines)
        let openFailed = run.lines.first?.hasPrefix("error ") == true
        if !openFailed, run.lines.last != "done" {
            throw Broken("the child stopped before its end")
        }
        let contents = try Items.contents(of: workspace.path("db.sqlite"))
        guard contents.integrity == ["ok"] else { throw Broken("integrity_check: \(contents.integrity.prefix(3))") }
        guard contents.tornRows == 0 else { throw Broken("\(contents.tornRows) torn rows") }
        guard contents.ids.isSuperset(of: 1...50) else { throw Broken("rows committed before the run are lost") }
        if let violation = reports.violation(present: contents.ids.subtracting(1...50)) {
            throw Broken(violation)
        }
        if !reports.unknown.isEmpty { return .unknown }
        let failed = openFailed || !reports.failed.isEmpty || run.lines.contains { $0.hasPrefix("read-failed") }
        return failed ? .failed : .absorbed
    }

    static func checkMigration(_ workspace: FaultWorkspace, _ run: FaultRun) throws -> Outcome {
        let failed = try checkOneErrorLine(run)
        let applied = run.lines.compactMap { line -> Int? in
            guard line.hasPrefix("applied "), let version = Int(line.dropFirst(8).prefix(4)) else { return nil }
            return version
        }
        let reportedUpTo = applied.max() ?? 0
        let unknown = run.errorLines.first?.contains("may or may not be applied") == true
        let path = workspace.path("strata.sqlite")
        var version = 0
        if FileManager.default.fileExists(atPath: path) {
            let db = try Database(path: path)
            defer { db.close() }
            let check = try db.integrityCheck()
            guard check == ["ok"] else { throw Broken("integrity_check: \(check.prefix(3))") }
            version = try db.userVersion
            try checkSchema(of: db, at: version)
        }
        if !failed {
            guard version == 3 else { throw Broken("exit 0 at version \(version)") }
            return .absorbed
        }
        // Applied and printed: committed. The failing one: not committed, unless its outcome was said to be unknown.
        let allowed = unknown ? [reportedUpTo, reportedUpTo + 1] : [reportedUpTo]
        guard allowed.contains(version) else {
            throw Broken("printed applied up to \(reportedUpTo)\(unknown ? " (then unknown)" : ""), at \(version)")
        }
        return unknown ? .unknown : .failed
    }

    /// The example schema of migrations 1...version, with a history row for each.
    static func checkSchema(of db: Database, at version: Int) throws {
        let tables = Set(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema WHERE type = 'table'"))
        let expected: Set<String> =
            version == 0 ? [] : Set(["note", "strata_migrations"] + (version >= 3 ? ["tag", "note_tag"] : []))
        guard tables.subtracting(["sqlite_sequence"]) == expected else {
            throw Broken("version \(version) with tables \(tables.sorted())")
        }
        guard version > 0 else { return }
        let columns = try db.fetchAll(String.self, query: "SELECT name FROM pragma_table_info('note')")
        guard columns.contains("updated_at") == (version >= 2) else {
            throw Broken("version \(version) with note columns \(columns)")
        }
        let history = try db.fetchAll(Int.self, query: "SELECT version FROM strata_migrations ORDER BY version")
        guard history == Array(1...version) else { throw Broken("version \(version) with history \(history)") }
    }

    static func checkBackup(_ workspace: FaultWorkspace, _ run: FaultRun) throws -> Outcome {
        let failed = try checkOneErrorLine(run)
        // The source is untouched.
        let source = try Items.contents(of: workspace.path("db.sqlite"))
        guard source.integrity == ["ok"], source.ids == Set(1...200) else { throw Broken("the source changed") }
        let leftovers = workspace.names().filter { $0.contains(".strata-backup-") && !$0.hasSuffix("-journal") }
        for leftover in leftovers where !run.stderr.contains(leftover) {
            throw Broken("\(leftover) was left behind without a word")
        }
        let copyExists = FileManager.default.fileExists(atPath: workspace.path("copy.sqlite"))
        if !failed || copyExists {
            // A copy at the destination is complete, whatever the exit status.
            let copy = try Items.contents(of: workspace.path("copy.sqlite"))
            guard copy.integrity == ["ok"], copy.ids == Set(1...200), copy.tornRows == 0 else {
                throw Broken("an incomplete copy at the destination")
            }
            if failed, !run.stderr.contains("is complete") {
                throw Broken("a complete copy, and an error that does not say so: \(run.stderr)")
            }
        }
        return failed ? .failed : .absorbed
    }
}
