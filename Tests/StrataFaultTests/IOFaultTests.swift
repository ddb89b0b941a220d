import Foundation
import Strata
import Testing

/// What Strata says when the disk fails, checked on real files in real processes: the fault shim
/// (Tests/FaultInjection/fault.c) fails one system call of a child process, and the file is read back without faults.
@Suite("Reliability: I/O faults", .serialized)
struct IOFaultTests {
    private let child: URL
    private let strata: URL

    init() throws {
        child = try builtExecutable("strata-fault-child")
        strata = try builtExecutable("strata")
    }

    // MARK: A journal mode change that is not written fails (#29 item 17)

    @Test("Opening never reports WAL for a file left in rollback mode, whichever write fails")
    func openingNeverReportsWALForAFileLeftInRollbackMode() async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("base.sqlite", in: workspace, rows: 20, mode: .delete)
        var position = 0
        var errors = 0
        var opened = 0
        while true {
            position += 1
            try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
            let run = try await FaultRun.run(
                child, ["open", workspace.path("db.sqlite")], in: workspace.url,
                fault: Fault(ops: "write", errno: "ENOSPC", at: position, times: 1), watching: ["/db.sqlite"])
            #expect(!run.timedOut && !run.signaled && run.status == 0, "position \(position): \(run.summary)")
            if run.faults == 0 { break }
            let versions = try headerJournalVersions(workspace.path("db.sqlite"))
            if run.lines.first == "opened wal" {
                opened += 1
                #expect(versions == [2, 2], "position \(position): reported WAL, the file says \(versions)")
            } else {
                errors += 1
                #expect(run.lines.first?.hasPrefix("error ") == true, "position \(position): \(run.summary)")
            }
            #expect(try Items.contents(of: workspace.path("db.sqlite")).ids == Set(1...20))
        }
        // Each write of the switch to WAL was failed once: every one of them either failed the open or was retried.
        #expect(position > 2 && errors > 0, "positions \(position - 1), errors \(errors), opened \(opened)")
    }

    /// `fetch:MODE` runs `PRAGMA journal_mode = MODE` through `fetchOne`, which must run it to its end too.
    @Test(
        "setJournalMode returns only once the file is in the new mode",
        arguments: ["delete", "wal", "fetch:delete", "fetch:wal"])
    func setJournalModeThrowsWhenTheChangeIsNotWritten(to mode: String) async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("base.sqlite", in: workspace, rows: 20, mode: .wal)
        let expected: [UInt8] = mode.hasSuffix("wal") ? [2, 2] : [1, 1]
        var position = 0
        var failures = 0
        for ops in ["write", "sync"] {
            position = 0
            while true {
                position += 1
                try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
                let run = try await FaultRun.run(
                    child, ["set-journal", workspace.path("db.sqlite"), mode, ops, "EIO", String(position)],
                    in: workspace.url, fault: .counting("all"), watching: ["/db.sqlite"])
                #expect(!run.timedOut && !run.signaled && run.status == 0, "\(ops) \(position): \(run.summary)")
                if run.lines.last == "faults 0" { break }
                let versions = try headerJournalVersions(workspace.path("db.sqlite"))
                if run.lines.first == "set" {
                    #expect(versions == expected, "\(ops) at \(position): reported \(mode), the file says \(versions)")
                } else {
                    failures += 1
                }
            }
        }
        #expect(failures > 0)
    }

    // MARK: A commit that fails may be committed: the error says so (#29 item 18)

    /// `returning`: an `INSERT ... RETURNING` read by a fetch outside a transaction, which runs in a savepoint that
    /// begins the transaction: its `RELEASE` is the commit.
    @Test(
        "A commit that fails is reported unknown when it may have committed, and is not committed otherwise",
        arguments: ["wal", "delete"], ["transaction", "returning"])
    func aFailedCommitIsUnknownOrNotCommitted(mode: String, write: String) async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("base.sqlite", in: workspace, rows: 20, mode: mode == "wal" ? .wal : .delete)
        var outcomes: [String: Int] = [:]
        // Unlocks too in rollback-journal mode, where the last one comes after the commit point (in WAL mode, a
        // failed unlock of the shared memory stalls SQLite ten seconds: the pool's recovery test covers it).
        let kinds =
            [("sync", "EIO"), ("write", "EIO"), ("write", "ENOSPC")] + (mode == "delete" ? [("unlock", "EIO")] : [])
        for (ops, errno) in kinds {
            var position = 0
            while true {
                position += 1
                try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
                let run = try await FaultRun.run(
                    child, ["commit", workspace.path("db.sqlite"), mode, ops, errno, String(position), write],
                    in: workspace.url, fault: .counting("all"), watching: ["/db.sqlite"], timeout: .seconds(90))
                let label = "\(mode) \(write) \(ops) \(errno) at \(position)"
                #expect(!run.timedOut && !run.signaled && run.status == 0, "\(label): \(run.summary)")
                if run.lines.last == "faults 0" || position > 40 { break }
                let reports = WriteReports(run.lines)
                let contents = try Items.contents(of: workspace.path("db.sqlite"))
                #expect(contents.integrity == ["ok"], "\(label)")
                #expect(contents.ids.isSuperset(of: 1...20), "\(label): rows committed before are lost")
                if let violation = reports.violation(present: contents.ids.subtracting(1...20)) {
                    Issue.record("\(label): \(violation); \(run.summary)")
                }
                let outcome = reports.unknown.isEmpty ? (reports.failed.isEmpty ? "committed" : "failed") : "unknown"
                outcomes[outcome, default: 0] += 1
            }
        }
        // A sync that fails at COMMIT leaves the outcome unknown: the code must have come up.
        #expect(outcomes["unknown", default: 0] > 0, "\(outcomes)")
        #expect(outcomes["failed", default: 0] > 0, "\(outcomes)")
    }

    @Test("strata migrate says when a migration may or may not be applied, and names strata status")
    func migrateSaysTheOutcomeIsUnknown() async throws {
        let workspace = try FaultWorkspace()
        try FileManager.default.copyItem(
            at: FaultShim.source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Migrations"),
            to: workspace.url.appendingPathComponent("Migrations"))
        var unknown = 0
        var position = 0
        while true {
            position += 1
            workspace.removeDatabase("strata.sqlite")
            let run = try await FaultRun.run(
                strata, ["migrate"], in: workspace.url, fault: Fault(ops: "sync", errno: "EIO", at: position),
                watching: ["/strata.sqlite"])
            #expect(!run.timedOut && !run.signaled, "sync at \(position): \(run.summary)")
            if run.faults == 0 { break }
            // A sync SQLite does not need (the folder's, a checkpoint's at close) fails without a word.
            if run.status == 0 { continue }
            #expect(run.status == 1 && run.errorLines.count == 1, "sync at \(position): \(run.summary)")
            guard let line = run.errorLines.first, line.contains("may or may not be applied") else { continue }
            unknown += 1
            #expect(line.contains("run `strata status`"), "\(line)")
        }
        #expect(unknown > 0, "no run said the outcome was unknown in \(position - 1) positions")
    }

    // MARK: A pool replaces a connection an I/O error broke (#29 item 19)

    @Test(
        "A pool or queue works again as soon as the disk does: fault on, then off, then 100 writes",
        arguments: ["pool", "queue"], [("unlock", "EIO"), ("write", "EIO"), ("read", "EIO"), ("sync", "EIO")])
    func aPoolRecoversAfterAnIOError(kind: String, fault: (ops: String, errno: String)) async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("db.sqlite", in: workspace, rows: 20, mode: .wal)
        let run = try await FaultRun.run(
            child, ["recover", workspace.path("db.sqlite"), kind, fault.ops, fault.errno], in: workspace.url,
            fault: .counting("all"), watching: ["/db.sqlite"], timeout: .seconds(120))
        #expect(!run.timedOut && !run.signaled, "\(run.summary)")
        #expect(run.lines.last == "recovered", "\(kind), \(fault): \(run.summary)")
        #expect(
            run.lines.contains { $0.hasPrefix("failed ") || $0.hasPrefix("unknown ") || $0.hasPrefix("read-failed ") },
            "nothing failed while the fault was on: \(run.summary)")
        let reports = WriteReports(run.lines)
        #expect(reports.committed.count >= 110)
        let contents = try Items.contents(of: workspace.path("db.sqlite"))
        #expect(contents.integrity == ["ok"])
        #expect(contents.tornRows == 0)
        #expect(contents.ids.isSuperset(of: 1...20))
        if let violation = reports.violation(present: contents.ids.subtracting(1...20)) {
            Issue.record("\(kind), \(fault): \(violation)")
        }
    }

    // MARK: An I/O error says it is one (#29 item 20)

    @Test("A read that fails with EIO says so, whatever SQLite reports it as", arguments: ["wal", "delete"])
    func aFailedReadNamesTheOperatingSystemsError(mode: String) async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("base.sqlite", in: workspace, rows: 300, mode: mode == "wal" ? .wal : .delete)
        var position = 0
        var errors = 0
        while true {
            position += 1
            try workspace.copyDatabase("base.sqlite", to: "db.sqlite")
            let run = try await FaultRun.run(
                child, ["read", workspace.path("db.sqlite"), "read", "EIO", String(position)], in: workspace.url,
                fault: .counting("all"), watching: ["/db.sqlite"])
            #expect(!run.timedOut && !run.signaled && run.status == 0, "read at \(position): \(run.summary)")
            if run.lines.last == "faults 0" { break }
            for line in run.lines where line.hasPrefix("error ") {
                errors += 1
                #expect(line.contains("errno 5 (Input/output error)"), "read at \(position): \(line)")
                #expect(!line.contains("(extended "), "read at \(position): \(line)")
            }
        }
        #expect(errors > 0)
    }

    // MARK: A backup that leaves a file behind says so (#29 item 21)

    @Test("A backup whose temporary file cannot be removed names it, after success and after failure")
    func aBackupThatCannotRemoveItsTemporaryFileSaysSo() async throws {
        let workspace = try FaultWorkspace()
        try Items.makeDatabase("db.sqlite", in: workspace, rows: 200, mode: .wal)

        let backup = ["backup", "--database", "db.sqlite", "--to", "copy.sqlite"]
        func leftovers() -> [String] {
            workspace.names().filter { $0.hasPrefix("copy.sqlite.strata-backup-") && !$0.hasSuffix("-journal") }
        }

        // Published through a hard link, then the last unlink, the temporary file's, fails: the copy is complete.
        let counting = try await FaultRun.run(
            strata, backup, in: workspace.url, fault: .counting("unlink"), watching: ["/copy.sqlite"])
        #expect(counting.status == 0 && counting.calls > 0, "\(counting.summary)")
        try FileManager.default.removeItem(atPath: workspace.path("copy.sqlite"))
        let linked = try await FaultRun.run(
            strata, backup, in: workspace.url, fault: Fault(ops: "unlink", errno: "EIO", at: counting.calls),
            watching: ["/copy.sqlite"])
        #expect(linked.faults >= 1, "\(linked.summary)")
        #expect(leftovers().count == 1, "\(workspace.names())")
        #expect(linked.status == 1 && linked.errorLines.count == 1, "\(linked.summary)")
        let leftover = try #require(leftovers().first)
        #expect(linked.stderr.contains(leftover), "\(linked.stderr)")
        #expect(linked.stderr.contains("errno 5 (Input/output error)"))
        #expect(linked.stderr.contains("is complete"))
        #expect(try Items.contents(of: workspace.path("copy.sqlite")).ids == Set(1...200))
        try FileManager.default.removeItem(atPath: workspace.path(leftover))

        // The rename that publishes over the old copy fails, then so does the unlink of the temporary file: the
        // error names it. The rename is the last call counted (the copy's journal is unlinked before it).
        let overwrite = backup + ["--overwrite"]
        let countingRename = try await FaultRun.run(
            strata, overwrite, in: workspace.url, fault: .counting("rename,unlink"), watching: ["/copy.sqlite"])
        #expect(countingRename.status == 0, "\(countingRename.summary)")
        let failed = try await FaultRun.run(
            strata, overwrite, in: workspace.url,
            fault: Fault(ops: "rename,unlink", errno: "EIO", at: countingRename.calls),
            watching: ["/copy.sqlite"])
        #expect(failed.faults >= 2, "\(failed.summary)")
        #expect(failed.status == 1 && failed.errorLines.count == 1, "\(failed.summary)")
        #expect(leftovers().count == 1, "\(workspace.names())")
        #expect(leftovers().first.map { failed.stderr.contains($0) } == true, "\(failed.stderr)")
        #expect(failed.stderr.contains("remove it by hand"))
        // The old copy is still there, whole.
        #expect(try Items.contents(of: workspace.path("copy.sqlite")).ids == Set(1...200))
    }

    @Test("strata new removes the migration file it could not write")
    func newRemovesAPartialMigrationFile() async throws {
        let workspace = try FaultWorkspace()
        try FileManager.default.createDirectory(
            at: workspace.url.appendingPathComponent("Migrations"), withIntermediateDirectories: true)
        let run = try await FaultRun.run(
            strata, ["new", "add tags"], in: workspace.url, fault: Fault(ops: "write", errno: "ENOSPC", at: 1),
            watching: ["/Migrations/"])
        #expect(run.faults > 0, "\(run.summary)")
        #expect(run.status == 1 && run.errorLines.count == 1, "\(run.summary)")
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.path("Migrations"))
        #expect(files.isEmpty, "\(files)")
    }
}
