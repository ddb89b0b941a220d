import Foundation
import Testing

@Suite struct StatusCommandTests {
    @Test func statusOfAMissingDatabaseIsVersionZeroAndCreatesNothing() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let result = try workspace.strata("status")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.lines == [
                "database: strata.sqlite (does not exist yet)",
                "current version: 0",
                "latest version: 3",
                "applied: none",
                "pending:",
                "  0001_create_note",
                "  0002_add_note_updated_at",
                "  0003_create_tag",
            ])
        #expect(!workspace.exists("strata.sqlite"))
    }

    @Test func statusListsAppliedAndPendingMigrations() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate", "--to", "2", "--database", "notes.sqlite").status == 0)
        let result = try workspace.strata("status", "--database", "notes.sqlite")
        #expect(result.status == 0)
        // The times the migrations were applied, to the second, in UTC.
        let applied = result.lines.filter { $0.contains("  applied 20") }
        #expect(applied.count == 2)
        let times = applied.compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(times.allSatisfy { (try? Date.ISO8601FormatStyle().parse($0)) != nil }, "\(times)")
        let timeless = result.lines.map { line in
            line.range(of: "  applied 20").map { String(line[..<$0.lowerBound]) } ?? line
        }
        #expect(
            timeless == [
                "database: notes.sqlite",
                "current version: 2",
                "latest version: 3",
                "applied:",
                "  0001_create_note",
                "  0002_add_note_updated_at",
                "pending:",
                "  0003_create_tag",
            ])
        #expect(try workspace.strata("migrate", "--database", "notes.sqlite").status == 0)
        let done = try workspace.strata("status", "--database", "notes.sqlite")
        #expect(done.lines.suffix(1) == ["pending: none"])
    }

    @Test func statusWithoutAMigrationsFolderIsAnError() throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.strata("status", "--migrations", "schema")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: no migrations folder at \(workspace.path("schema"))\n")
    }
}
