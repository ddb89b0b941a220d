import Foundation
import Strata
import Testing

@Suite("strata migrate: several processes at once")
struct ConcurrentMigrateCommandTests {
    /// The versions the processes applied, from their `applied NNNN_name` lines.
    func appliedVersions(_ results: [CLIResult]) -> [String] {
        results.flatMap(\.lines).filter { $0.hasPrefix("applied ") }.sorted()
    }

    @Test func eightProcessesMigratingOneFreshFileEachSeeTheWorkDoneOnce() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        // Timeline: all eight open the missing file at once; one creates it and switches it to WAL while the
        // others wait (the switch is retried, it does not call the busy handler); then each migration step
        // is taken by one of them under BEGIN IMMEDIATE and skipped by the rest.
        let processes = try (0..<8).map { _ in try RunningStrata(["migrate"], in: workspace.url) }
        let results = try processes.map { try $0.wait() }
        for result in results {
            #expect(result.status == 0, "stderr: \(result.stderr) stdout: \(result.stdout)")
        }
        #expect(
            appliedVersions(results) == [
                "applied 0001_create_note", "applied 0002_add_note_updated_at", "applied 0003_create_tag",
            ])
        let db = try Database(path: workspace.path("strata.sqlite"), readOnly: true)
        #expect(try db.userVersion == 3)
    }

    @Test func migratorsWaitOutALockHeldLongerThanFiveSeconds() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let holder = try Database(path: workspace.path("strata.sqlite"))
        try holder.beginTransaction(.immediate)
        // Timeline: this connection holds the write lock for six seconds, as a long migration in another
        // process would; the four processes wait at BEGIN IMMEDIATE (the tool's busy timeout is 60 s), then
        // one applies each step once the lock is released.
        let processes = try (0..<4).map { _ in try RunningStrata(["migrate"], in: workspace.url) }
        Thread.sleep(forTimeInterval: 6)
        try holder.commitTransaction()
        let results = try processes.map { try $0.wait() }
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(appliedVersions(results).count == 3)
        #expect(try holder.userVersion == 3)
    }

    @Test func aShortBusyTimeoutFailsWithOneClearLine() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let holder = try Database(path: workspace.path("strata.sqlite"))
        try holder.beginTransaction(.immediate)
        let result = try workspace.strata("migrate", "--busy-timeout", "0.2")
        try holder.rollbackTransaction()
        #expect(result.status != 0)
        #expect(result.stderr.contains("database is locked"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try holder.userVersion == 0)
        let bad = try workspace.strata("migrate", "--busy-timeout", "-1")
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--busy-timeout"))
    }
}
