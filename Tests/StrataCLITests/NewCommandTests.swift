import Foundation
import Testing

@Suite struct NewCommandTests {
    @Test func newCreatesTheNextMigrationFile() throws {
        let workspace = try CLIWorkspace()
        let first = try workspace.strata("new", "Create notes")
        #expect(first.status == 0)
        #expect(first.stderr == "")
        #expect(first.lines == ["created Migrations/0001_create_notes.sql"])
        let header = try workspace.read("Migrations/0001_create_notes.sql")
        #expect(header.hasPrefix("-- Migration 1: create notes\n"))
        #expect(header.split(separator: "\n").allSatisfy { $0.hasPrefix("--") })

        try workspace.write("CREATE TABLE note (id INTEGER PRIMARY KEY);\n", to: "Migrations/0001_create_notes.sql")
        let second = try workspace.strata("new", "addTags")
        #expect(second.lines == ["created Migrations/0002_add_tags.sql"])

        // The new, comment-only migration applies like any other.
        let migrate = try workspace.strata("migrate")
        #expect(migrate.status == 0)
        #expect(migrate.lines == ["applied 0001_create_notes", "applied 0002_add_tags", "now at version 2"])
    }

    @Test(arguments: [
        ("Add tags!", "add_tags"), ("addTags", "add_tags"), ("  add--note  updated_at ", "add_note_updated_at"),
        ("HTMLParser cache", "html_parser_cache"), ("v2Notes", "v2_notes"), ("Café menu", "cafe_menu"),
    ])
    func newSanitizesTheName(name: String, expected: String) throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.strata("new", name, "--migrations", "schema")
        #expect(result.status == 0)
        #expect(result.lines == ["created schema/0001_\(expected).sql"])
        #expect(workspace.exists("schema/0001_\(expected).sql"))
    }

    @Test func newRefusesAnEmptyName() throws {
        let workspace = try CLIWorkspace()
        for name in ["", "   ", "!!!"] {
            let result = try workspace.strata("new", name)
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("error: the migration name"))
        }
        #expect(!workspace.exists("Migrations"))
    }

    @Test func newRefusesAMalformedFolder() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("SELECT 1;", to: "Migrations/first.sql")
        let result = try workspace.strata("new", "second")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: malformed migration file name \"first.sql\""))
        let files = try FileManager.default.contentsOfDirectory(atPath: workspace.path("Migrations"))
        #expect(files == ["first.sql"])
    }
}
