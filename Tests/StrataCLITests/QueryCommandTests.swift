import Foundation
import Testing

@Suite struct QueryCommandTests {
    /// A migrated notes database with three rows that exercise every storage class.
    private func notesWorkspace() throws -> CLIWorkspace {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate").status == 0)
        let insert = try workspace.strata(
            "query",
            """
            INSERT INTO note (id, created_at, content, updated_at) VALUES
                (1, '2024-05-01 08:00:00.000', 'plain', NULL),
                (2, '2024-05-02 09:30:00.000', 'comma, "quote"', '2024-05-03 10:00:00.000'),
                (10, '2024-05-04 11:00:00.000', 'two
            lines', NULL)
            """)
        #expect(insert.status == 0, "\(insert.stderr)")
        return workspace
    }

    @Test func tableOutputAlignsColumns() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("query", "SELECT id, content, updated_at FROM note ORDER BY id")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(
            result.lines == [
                "id | content        | updated_at",
                "---+----------------+------------------------",
                " 1 | plain          | NULL",
                " 2 | comma, \"quote\" | 2024-05-03 10:00:00.000",
                "10 | two\\nlines     | NULL",
                "(3 rows)",
            ])
        let separators = result.lines.dropLast().map { line in
            line.enumerated().filter { $0.element == "|" || $0.element == "+" }.map(\.offset)
        }
        #expect(Set(separators).count == 1)
    }

    @Test func jsonOutputIsAnArrayOfTypedObjects() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata(
            "query", "SELECT id, content, updated_at, id * 1.5 AS score, x'00ff10' AS data FROM note ORDER BY id",
            "--format", "json")
        #expect(result.status == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let rows = try #require(parsed as? [[String: Any]])
        #expect(rows.count == 3)
        let first = try #require(rows.first)
        #expect(first["id"] as? Int == 1)
        #expect(first["content"] as? String == "plain")
        #expect(first["updated_at"] is NSNull)
        #expect(first["score"] as? Double == 1.5)
        #expect(first["data"] as? String == "AP8Q")  // base64 of 00 ff 10
        #expect(rows[1]["content"] as? String == "comma, \"quote\"")
        #expect(rows[2]["content"] as? String == "two\nlines")
        #expect(rows[2]["id"] as? Int == 10)
        // Keys come in column order.
        let firstLine = try #require(result.lines.dropFirst().first)
        #expect(firstLine.hasPrefix("  {\"id\": 1, \"content\": \"plain\", \"updated_at\": null, \"score\": 1.5"))

        let empty = try workspace.strata("query", "SELECT * FROM note WHERE id < 0", "--format", "json")
        #expect(empty.stdout == "[]\n")
    }

    @Test func csvOutputQuotesAsRFC4180() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata(
            "query", "SELECT id, content, updated_at, x'00ff10' AS data FROM note ORDER BY id", "--format", "csv")
        #expect(result.status == 0)
        #expect(
            result.stdout == #"""
                id,content,updated_at,data
                1,plain,,AP8Q
                2,"comma, ""quote""",2024-05-03 10:00:00.000,AP8Q
                10,"two
                lines",,AP8Q

                """#)
        let empty = try workspace.strata("query", "SELECT id, content FROM note WHERE id < 0", "--format", "csv")
        #expect(empty.stdout == "id,content\n")
    }

    @Test func aWritingStatementChangesTheDatabase() throws {
        let workspace = try notesWorkspace()
        let update = try workspace.strata("query", "UPDATE note SET content = 'edited' WHERE id IN (1, 2)")
        #expect(update.status == 0)
        #expect(update.lines == ["(2 rows changed)"])
        let check = try workspace.strata("query", "SELECT content FROM note ORDER BY id", "--format", "csv")
        #expect(check.lines == ["content", "edited", "edited", "\"two", "lines\""])
    }

    @Test func badSQLIsAnError() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("query", "SELEC * FROM note")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: SQLite error 1 (SQLITE_ERROR): near \"SELEC\": syntax error"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)

        let missingTable = try workspace.strata("query", "SELECT * FROM missing_table", "--format", "json")
        #expect(missingTable.status == 1)
        #expect(missingTable.stdout == "")
        #expect(missingTable.stderr.contains("no such table: missing_table"))
    }

    @Test func aMissingDatabaseIsAnErrorAndIsNotCreated() throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.strata("query", "SELECT 1", "--database", "absent.sqlite")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: no database at absent.sqlite\n")
        #expect(!workspace.exists("absent.sqlite"))
    }

    @Test func anUnknownFormatIsAnError() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("query", "SELECT 1", "--format", "xml")
        #expect(result.status != 0)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("xml"))
    }
}
