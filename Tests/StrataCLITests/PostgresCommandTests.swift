import Foundation
import Testing

/// The `strata` built with the PostgreSQL trait, and the server it is tested against.
///
/// `.ci/run` builds that binary after the plain tests (`swift build --traits PostgreSQL --product strata`) and names it
/// in `STRATA_POSTGRES_BINARY`; the server is `STRATA_POSTGRES_URL`.
/// Without the binary the suite is skipped (a plain `swift test` builds `strata` without the trait); with it, a
/// missing server fails the suite when `CI` is `true`, and skips it otherwise.
enum PostgresCLI {
    static var binary: URL? {
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_BINARY"].flatMap {
            $0.isEmpty ? nil : URL(fileURLWithPath: $0)
        }
    }

    static var url: String? {
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var shouldRun: Bool { binary != nil && (url != nil || isCI) }

    static func requireBinary() throws -> URL {
        try #require(binary, "STRATA_POSTGRES_BINARY is not set")
    }

    /// Runs `body` with a URL whose connections use a fresh schema of their own (`options=-c search_path=...`),
    /// created and dropped with the binary itself, so that tests running at once never see each other's tables.
    static func withSchema(_ body: (String) throws -> Void) throws {
        let url = try #require(url, "STRATA_POSTGRES_URL is not set: CI=true needs a PostgreSQL server (see .ci/run)")
        let workspace = try CLIWorkspace()
        let schema = "strata_cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let created = try workspace.strataPostgres("query", "CREATE SCHEMA \(schema)", "--database", url)
        try #require(created.status == 0, "CREATE SCHEMA failed: \(created.stderr)")
        defer { _ = try? workspace.strataPostgres("query", "DROP SCHEMA \(schema) CASCADE", "--database", url) }
        var components = try #require(URLComponents(string: url))
        components.queryItems =
            (components.queryItems ?? []) + [URLQueryItem(name: "options", value: "-c search_path=\(schema)")]
        try body(try #require(components.string))
    }
}

extension CLIWorkspace {
    /// Runs the `strata` built with the PostgreSQL trait in this folder.
    func strataPostgres(_ arguments: String...) throws -> CLIResult {
        try CLIResult.run(arguments, in: url, binary: try PostgresCLI.requireBinary())
    }

    func startPostgres(_ arguments: String...) throws -> RunningStrata {
        try RunningStrata(arguments, in: url, binary: try PostgresCLI.requireBinary())
    }
}

@Suite(
    "strata on PostgreSQL (the PostgreSQL trait)",
    .enabled(
        if: PostgresCLI.shouldRun,
        "STRATA_POSTGRES_BINARY (a strata built with --traits PostgreSQL) or STRATA_POSTGRES_URL is not set"))
struct PostgresCommandTests {
    @Test("migrate applies Migrations/postgresql by default, creating the schema; a second run has nothing to do")
    func migrateCreatesSchema() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        try PostgresCLI.withSchema { url in
            let result = try workspace.strataPostgres("migrate", "--database", url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.lines == [
                    "applied 0001_create_note", "applied 0002_add_note_updated_at", "applied 0003_create_tag",
                    "now at version 3",
                ])
            let columns = try workspace.strataPostgres(
                "query",
                "SELECT column_name, data_type FROM information_schema.columns "
                    + "WHERE table_schema = current_schema() AND table_name = 'note' ORDER BY ordinal_position",
                "--database", url, "--format", "csv")
            #expect(
                columns.lines == [
                    "column_name,data_type", "id,bigint", "created_at,timestamp with time zone", "content,text",
                    "updated_at,timestamp with time zone",
                ])
            let again = try workspace.strataPostgres("migrate", "--database", url)
            #expect(again.status == 0)
            #expect(again.lines == ["already at version 3, nothing to do"])
            let version = try workspace.strataPostgres(
                "query", "SELECT version FROM strata_schema_version", "--database", url, "--format", "csv")
            #expect(version.lines == ["version", "3"])
        }
    }

    @Test("status prints the version, the applied migrations with their time, and the pending ones")
    func statusAppliedPending() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        try PostgresCLI.withSchema { url in
            let before = try workspace.strataPostgres("status", "--database", url)
            #expect(before.status == 0, "\(before.stderr)")
            #expect(before.lines.contains("current version: 0"))
            #expect(try workspace.strataPostgres("migrate", "--database", url, "--to", "1").status == 0)
            let result = try workspace.strataPostgres("status", "--database", url)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.lines
            #expect(lines.first?.hasPrefix("database: postgres://") == true)
            #expect(Array(lines.dropFirst().prefix(3)) == ["current version: 1", "latest version: 3", "applied:"])
            #expect(lines.count == 8)
            if lines.count == 8 {
                #expect(lines[4].hasPrefix("  0001_create_note  applied 20"))
                #expect(Array(lines[5...]) == ["pending:", "  0002_add_note_updated_at", "  0003_create_tag"])
            }
        }
    }

    @Test("query prints rows as a table, JSON and CSV; a SQL error is one line with its SQLSTATE, exit 1")
    func queryPrintsRows() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        try PostgresCLI.withSchema { url in
            #expect(try workspace.strataPostgres("migrate", "--database", url).status == 0)
            let insert = try workspace.strataPostgres(
                "query",
                "INSERT INTO note (created_at, content) VALUES ('2026-11-23 12:00:00+00', 'hello'), "
                    + "('2026-11-23 12:30:00.25+00', 'a, b')",
                "--database", url)
            #expect(insert.status == 0, "\(insert.stderr)")
            #expect(insert.lines == ["(2 rows changed)"])
            let select = "SELECT id, content, updated_at, created_at FROM note ORDER BY id"
            let table = try workspace.strataPostgres("query", select, "--database", url)
            #expect(
                table.lines == [
                    "id | content | updated_at | created_at",
                    "---+---------+------------+-------------------------",
                    " 1 | hello   | NULL       | 2026-11-23T12:00:00.000Z",
                    " 2 | a, b    | NULL       | 2026-11-23T12:30:00.250Z",
                    "(2 rows)",
                ])
            let json = try workspace.strataPostgres("query", select, "--database", url, "--format", "json")
            #expect(
                json.stdout == """
                    [
                      {"id": 1, "content": "hello", "updated_at": null, "created_at": "2026-11-23T12:00:00.000Z"},
                      {"id": 2, "content": "a, b", "updated_at": null, "created_at": "2026-11-23T12:30:00.250Z"}
                    ]

                    """)
            let csv = try workspace.strataPostgres("query", select, "--database", url, "--format", "csv")
            #expect(
                csv.lines == [
                    "id,content,updated_at,created_at", "1,hello,,2026-11-23T12:00:00.000Z",
                    "2,\"a, b\",,2026-11-23T12:30:00.250Z",
                ])
            let none = try workspace.strataPostgres("query", "SELECT id FROM note WHERE false", "--database", url)
            #expect(none.lines == ["(0 rows)"])
            let error = try workspace.strataPostgres("query", "SELECT * FROM no_such_table", "--database", url)
            #expect(error.status == 1)
            #expect(error.stdout.isEmpty)
            #expect(error.stderr.split(separator: "\n").count == 1)
            #expect(error.stderr.hasPrefix("error: PostgreSQL error 42P01: relation \"no_such_table\" does not exist"))
        }
    }

    @Test("two strata migrate processes at once apply each migration once")
    func concurrentProcesses() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        // A slow first migration, so that the processes overlap.
        try workspace.write(
            try workspace.read("Migrations/postgresql/0001_create_note.sql") + "\nSELECT pg_sleep(0.3);\n",
            to: "Migrations/postgresql/0001_create_note.sql")
        try PostgresCLI.withSchema { url in
            let first = try workspace.startPostgres("migrate", "--database", url)
            let second = try workspace.startPostgres("migrate", "--database", url)
            let results = [try first.wait(), try second.wait()]
            #expect(results.map(\.status) == [0, 0], "\(results.map(\.stderr))")
            let applied = results.flatMap(\.lines).filter { $0.hasPrefix("applied ") }.sorted()
            #expect(
                applied == ["applied 0001_create_note", "applied 0002_add_note_updated_at", "applied 0003_create_tag"])
            let history = try workspace.strataPostgres(
                "query", "SELECT version, name FROM strata_migrations ORDER BY version", "--database", url,
                "--format", "csv")
            #expect(
                history.lines == [
                    "version,name", "1,0001_create_note", "2,0002_add_note_updated_at", "3,0003_create_tag",
                ])
        }
    }

    @Test("a server that refuses the connection: one error line and exit status 1")
    func connectionRefused() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        // Port 1 on the loopback: nothing listens there.
        let url = "postgres://strata:secret@127.0.0.1:1/strata"
        for arguments in [["migrate"], ["status"], ["query", "SELECT 1"]] {
            let result = try CLIResult.run(
                arguments + ["--database", url], in: workspace.url, binary: try PostgresCLI.requireBinary())
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error: could not connect to"), "\(result.stderr)")
            #expect(!result.stderr.contains("secret"))
        }
    }

    @Test("a failing migration: one error line naming it with its SQLSTATE, exit 1; the steps before it stay")
    func failingMigration() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("CREATE TABLE a (id bigint PRIMARY KEY);\n", to: "pg/0001_create_a.sql")
        try workspace.write("CREATE TABLE b (id bigint);\nSELECT * FROM no_such_table;\n", to: "pg/0002_broken.sql")
        try PostgresCLI.withSchema { url in
            let dryRun = try workspace.strataPostgres("migrate", "--database", url, "--migrations", "pg", "--dry-run")
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            #expect(dryRun.lines.first == "dry run: at version 0, would apply:")
            #expect(dryRun.lines.last == "dry run: nothing was changed")
            let result = try workspace.strataPostgres("migrate", "--database", url, "--migrations", "pg")
            #expect(result.status == 1)
            #expect(result.lines == ["applied 0001_create_a"])
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "error: migration 2 \"broken\" (0002_broken.sql) failed: PostgreSQL error 42P01: "
                        + "relation \"no_such_table\" does not exist"))
            let state = try workspace.strataPostgres(
                "query", "SELECT version, to_regclass('b') IS NULL AS no_b FROM strata_schema_version",
                "--database", url, "--format", "csv")
            #expect(state.lines == ["version,no_b", "1,1"])
        }
    }

    @Test("a wrong password: one error line that does not show it, exit status 1")
    func wrongPassword() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let server = try #require(
            ProcessInfo.processInfo.environment["STRATA_POSTGRES_PASSWORD_URL"].flatMap { $0.isEmpty ? nil : $0 },
            "STRATA_POSTGRES_PASSWORD_URL is not set: a role that gives a password (see .ci/run)")
        var components = try #require(URLComponents(string: server))
        let right = try workspace.strataPostgres("query", "SELECT current_user AS u", "--database", server)
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.contains("strata_password"))
        components.password = "not-the-password"
        for arguments in [["migrate"], ["status"], ["query", "SELECT 1"]] {
            let result = try CLIResult.run(
                arguments + ["--database", try #require(components.string)], in: workspace.url,
                binary: try PostgresCLI.requireBinary())
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "error: PostgreSQL error 28P01: authentication failed for postgres://strata_password@"),
                "\(result.stderr)")
            #expect(result.stderr.contains("password authentication failed"), "\(result.stderr)")
            #expect(!result.stderr.contains("not-the-password"))
        }
    }

    @Test("a database that does not exist: one error line and exit status 1")
    func missingDatabase() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let server = try #require(PostgresCLI.url)
        var components = try #require(URLComponents(string: server))
        components.path = "/strata_no_such_database"
        let result = try workspace.strataPostgres("status", "--database", try #require(components.string))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                "error: PostgreSQL error 3D000: database \"strata_no_such_database\" does not exist"),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("a URL with a raw # in its password, whether it parses or not: the password is never printed")
    func passwordWithHashNeverPrinted() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let cases = [
            // Parses, as libpq reads it: the password is Se#cr?et; nothing listens on port 1.
            (
                "postgres://strata:Se#cr?et@127.0.0.1:1/strata",
                "error: could not connect to postgres://strata@127.0.0.1:1/strata"
            ),
            // Does not parse: the port is out of range.
            (
                "postgres://strata:Se#cr?et@127.0.0.1:99999/strata",
                "error: invalid PostgreSQL URL \"postgres://strata:***@127.0.0.1:99999/strata\""
            ),
            (
                "POSTGRES://strata:Se#cr?et@127.0.0.1:99999/strata",
                "error: invalid PostgreSQL URL \"POSTGRES://strata:***@127.0.0.1:99999/strata\""
            ),
            // A mistyped scheme is a URL that cannot be used, not a SQLite file to open.
            (
                "postgres:/strata:Se#cr?et@127.0.0.1/strata",
                "error: invalid PostgreSQL URL \"postgres:***@127.0.0.1/strata\": the scheme must be postgres://"
            ),
        ]
        for (url, prefix) in cases {
            for arguments in [["migrate"], ["status"], ["query", "SELECT 1"]] {
                let result = try CLIResult.run(
                    arguments + ["--database", url], in: workspace.url, binary: try PostgresCLI.requireBinary())
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
                #expect(!result.stderr.contains("Se#cr") && !result.stderr.contains("cr?et"), "\(result.stderr)")
            }
        }
    }

    @Test("a SQL error quoting a value, or a DETAIL line: the value is not printed")
    func valuesNotPrinted() throws {
        try PostgresCLI.withSchema { url in
            let workspace = try CLIWorkspace()
            let cast = try workspace.strataPostgres("query", "SELECT CAST('12secret' AS integer)", "--database", url)
            #expect(cast.status == 1)
            #expect(
                cast.stderr.hasPrefix("error: PostgreSQL error 22P02: invalid input syntax for type integer: \"…\""),
                "\(cast.stderr)")
            #expect(!cast.stderr.contains("12secret\""), "\(cast.stderr)")
            let created = try workspace.strataPostgres("query", "CREATE TABLE u (email text UNIQUE)", "--database", url)
            #expect(created.status == 0, "\(created.stderr)")
            let inserted = try workspace.strataPostgres(
                "query", "INSERT INTO u VALUES ('ada.secret@example.com')", "--database", url)
            #expect(inserted.status == 0, "\(inserted.stderr)")
            let duplicate = try workspace.strataPostgres(
                "query", "INSERT INTO u SELECT email FROM u", "--database", url)
            #expect(duplicate.status == 1)
            #expect(duplicate.stderr.hasPrefix("error: PostgreSQL error 23505: "), "\(duplicate.stderr)")
            #expect(!duplicate.stderr.contains("ada.secret"), "\(duplicate.stderr)")
        }
    }
}
