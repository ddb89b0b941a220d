import Foundation
import Testing

/// `strata migrate --dry-run`, `--accept-edited`, and `strata status` on the recorded history, through real processes.
@Suite struct MigrationHistoryCommandTests {
    @Test func anEditedFileIsReportedAndRefusedUntilAccepted() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate", "--to", "2").status == 0)
        let file = "Migrations/0001_create_note.sql"
        try workspace.write(try workspace.read(file) + "\n-- reformatted\n", to: file)

        let status = try workspace.strata("status")
        #expect(status.status == 1)
        #expect(
            status.lines.contains {
                $0.hasPrefix("  0001_create_note  applied 20") && $0.hasSuffix("EDITED since applied")
            })
        #expect(status.stderr.hasPrefix("error: applied migration files changed since they were applied: "))
        #expect(status.stderr.contains("0001_create_note.sql"))

        let refused = try workspace.strata("migrate")
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr.contains("0001_create_note.sql changed since it was applied"))
        #expect(refused.stderr.filter { $0 == "\n" }.count == 1)
        // Nothing ran: version 3 is still pending.
        #expect(try workspace.strata("query", "PRAGMA user_version", "--format", "csv").lines == ["user_version", "2"])

        let accepted = try workspace.strata("migrate", "--accept-edited")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(
            accepted.lines == [
                "accepted the edit of 0001_create_note.sql", "applied 0003_create_tag", "now at version 3",
            ])
        let after = try workspace.strata("status")
        #expect(after.status == 0)
        #expect(!after.stdout.contains("EDITED"))
    }

    @Test func aDryRunPrintsWhatWouldRunAndChangesNothing() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        // A missing database is not created.
        let fresh = try workspace.strata("migrate", "--dry-run", "--to", "1")
        #expect(fresh.status == 0)
        #expect(fresh.lines.first == "dry run: at version 0 (the database does not exist yet), would apply:")
        #expect(fresh.lines.contains("-- 0001_create_note"))
        #expect(fresh.stdout.contains("CREATE TABLE note ("))
        #expect(!fresh.stdout.contains("0002"))
        #expect(fresh.lines.last == "dry run: nothing was changed")
        #expect(!workspace.exists("strata.sqlite"))

        #expect(try workspace.strata("migrate", "--to", "1").status == 0)
        let before = try workspace.strata("query", "SELECT * FROM strata_migrations", "--format", "csv").stdout
        let plan = try workspace.strata("migrate", "--dry-run")
        #expect(plan.status == 0)
        #expect(plan.lines.filter { $0.hasPrefix("-- 000") } == ["-- 0002_add_note_updated_at", "-- 0003_create_tag"])
        #expect(try workspace.strata("query", "PRAGMA user_version", "--format", "csv").lines == ["user_version", "1"])
        #expect(try workspace.strata("query", "SELECT * FROM strata_migrations", "--format", "csv").stdout == before)

        #expect(try workspace.strata("migrate").status == 0)
        let nothing = try workspace.strata("migrate", "--dry-run")
        #expect(nothing.lines == ["dry run: at version 3, nothing to apply"])
    }

    @Test func aDryRunMakesTheChecksOfARealRun() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate", "--to", "2").status == 0)
        try workspace.write(
            "CREATE TABLE note (id INTEGER PRIMARY KEY);", to: "Migrations/0002_add_note_updated_at.sql")
        let refused = try workspace.strata("migrate", "--dry-run")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("0002_add_note_updated_at.sql changed since it was applied"))
        let accepted = try workspace.strata("migrate", "--dry-run", "--accept-edited")
        #expect(accepted.status == 0)
        #expect(accepted.lines.filter { $0.hasPrefix("-- 000") } == ["-- 0003_create_tag"])
        // A dry run accepts nothing either.
        #expect(try workspace.strata("status").status == 1)
    }
}
