import Foundation
import StrataTesting
import Testing

@testable import Strata

@Suite struct MigrateCommandTests {
    @Test func migrateCreatesTheDatabaseFromTheDefaultFolder() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let first = try workspace.strata("migrate")
        #expect(first.status == 0)
        #expect(first.stderr == "")
        #expect(
            first.lines == [
                "applied 0001_create_note", "applied 0002_add_note_updated_at", "applied 0003_create_tag",
                "now at version 3",
            ])
        #expect(workspace.exists("strata.sqlite"))

        let second = try workspace.strata("migrate")
        #expect(second.status == 0)
        #expect(second.lines == ["already at version 3, nothing to do"])

        let tables = try workspace.strata(
            "query", "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", "--format", "csv")
        #expect(tables.lines == ["name", "note", "note_tag", "strata_migrations", "tag"])
    }

    @Test func migrateToAVersionStopsThere() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let partial = try workspace.strata("migrate", "--to", "1", "--database", "app.sqlite")
        #expect(partial.status == 0)
        #expect(partial.lines == ["applied 0001_create_note", "now at version 1"])
        let rest = try workspace.strata("migrate", "--database", "app.sqlite")
        #expect(rest.lines == ["applied 0002_add_note_updated_at", "applied 0003_create_tag", "now at version 3"])
        let back = try workspace.strata("migrate", "--to", "2", "--database", "app.sqlite")
        #expect(back.status == 0)
        #expect(back.lines == ["at version 3, past version 2, nothing to do"])

        let unknown = try workspace.strata("migrate", "--to", "7", "--database", "app.sqlite")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("error: cannot migrate to version 7"))
    }

    @Test func migrateWithCustomPaths() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("CREATE TABLE a (x);", to: "db/schema/0001_create_a.sql")
        try FileManager.default.createDirectory(
            at: workspace.url.appendingPathComponent("data"), withIntermediateDirectories: true)
        let result = try workspace.strata("migrate", "--database", "data/app.sqlite", "--migrations", "db/schema")
        #expect(result.status == 0)
        #expect(result.lines == ["applied 0001_create_a", "now at version 1"])
        #expect(workspace.exists("data/app.sqlite"))
        #expect(!workspace.exists("strata.sqlite"))
    }

    @Test func aMissingMigrationsFolderIsAnError() throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.strata("migrate")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: no migrations folder at \(workspace.path("Migrations"))\n")
        #expect(!workspace.exists("strata.sqlite"))
    }

    @Test func aMalformedMigrationNameIsAnError() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("CREATE TABLE a (x);", to: "Migrations/0001_create_a.sql")
        try workspace.write("CREATE TABLE b (x);", to: "Migrations/create_b.sql")
        let result = try workspace.strata("migrate")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: malformed migration file name \"create_b.sql\""))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(!workspace.exists("strata.sqlite"))
    }

    @Test func aGapIsAnError() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("CREATE TABLE a (x);", to: "Migrations/0001_create_a.sql")
        try workspace.write("CREATE TABLE c (x);", to: "Migrations/0003_create_c.sql")
        let result = try workspace.strata("migrate")
        #expect(result.status == 1)
        #expect(result.stderr.contains("version 2 is missing"))
        #expect(!workspace.exists("strata.sqlite"))
    }

    @Test func aNewerDatabaseIsAnError() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate").status == 0)
        #expect(try workspace.strata("query", "PRAGMA user_version = 9").status == 0)
        for command in ["migrate", "status"] {
            let result = try workspace.strata(command)
            #expect(result.status == 1)
            if command == "migrate" {
                #expect(result.stdout == "")
            } else {
                // status prints what it sees, the versions it has no file for among it.
                #expect(result.lines.contains("missing (applied, with no migration file here):"))
                #expect(result.lines.suffix(6) == (4...9).map { "  version \($0)" })
            }
            #expect(result.stderr.hasPrefix("error: the database is at version 9"))
            #expect(result.stderr.contains("(version 3)"))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        }
    }

    @Test func aFailingMigrationReportsWhatWasAppliedAndWhatFailed() throws {
        let workspace = try CLIWorkspace()
        try workspace.write("CREATE TABLE a (x);", to: "Migrations/0001_create_a.sql")
        try workspace.write(
            "CREATE TABLE b (x);\nINSERT INTO b VALUES (1);\nCREAT TABLE c (x);\n", to: "Migrations/0002_broken.sql")
        let result = try workspace.strata("migrate")
        #expect(result.status == 1)
        #expect(result.lines == ["applied 0001_create_a"])
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.contains("migration 2 \"broken\" (0002_broken.sql) failed"))
        #expect(result.stderr.contains("syntax error"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(!result.stderr.contains("Fatal error"))
        // The failed migration changed nothing.
        let tables = try workspace.strata(
            "query", "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", "--format", "csv")
        #expect(tables.lines == ["name", "a", "strata_migrations"])
        let version = try workspace.strata("query", "PRAGMA user_version", "--format", "csv")
        #expect(version.lines == ["user_version", "1"])
    }

    // The process is started with StrataTesting's ChildProcess, which is Linux only.
    #if canImport(Glibc)
        @Test func aKilledMigrationLeavesTheDatabaseAsBefore() throws {
            let workspace = try CLIWorkspace()
            try workspace.write("CREATE TABLE a (x); INSERT INTO a VALUES (1);", to: "Migrations/0001_create_a.sql")
            // Changes schema and data, then runs (practically) forever.
            try workspace.write(
                """
                CREATE TABLE b (x);
                UPDATE a SET x = 2;
                WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000000000)
                SELECT count(*) FROM c;
                """,
                to: "Migrations/0002_never_ends.sql")
            let child = try ChildProcess.spawn(
                try CLIResult.strataBinary().path, ["migrate"], in: workspace.url.path, standardOutput: .pipe)
            // Timeline: `strata` prints the first migration once it has committed, then starts the second;
            // the test reads until that line (waiting on the pipe, no sleep) and kills the process mid-migration.
            _ = child.read(timeout: RunningStrata.timeout) { output in
                String(decoding: output, as: UTF8.self).contains("applied 0001_create_a\n")
            }
            #expect(String(decoding: child.output, as: UTF8.self) == "applied 0001_create_a\n")
            let termination = try child.kill()
            #expect(termination == .signaled(SIGKILL))

            let version = try workspace.strata("query", "PRAGMA user_version", "--format", "csv")
            #expect(version.lines == ["user_version", "1"])
            let tables = try workspace.strata(
                "query", "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", "--format", "csv")
            #expect(tables.lines == ["name", "a", "strata_migrations"])
            let rows = try workspace.strata("query", "SELECT x FROM a", "--format", "csv")
            #expect(rows.lines == ["x", "1"])
        }
    #endif

    @Test func concurrentProcessesApplyEachMigrationOnce() throws {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        let processes = 4
        let results = Results()
        let group = DispatchGroup()
        let directory = workspace.url
        for _ in 0..<processes {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                results.append(Result { try CLIResult.run(["migrate"], in: directory) })
            }
        }
        group.wait()
        let outcomes = try results.values.map { try $0.get() }
        #expect(outcomes.count == processes)
        for outcome in outcomes {
            #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
            #expect(outcome.stderr == "")
        }
        let applied = outcomes.flatMap(\.lines).filter { $0.hasPrefix("applied ") }.sorted()
        #expect(applied == ["applied 0001_create_note", "applied 0002_add_note_updated_at", "applied 0003_create_tag"])
        let version = try workspace.strata("query", "PRAGMA user_version", "--format", "csv")
        #expect(version.lines == ["user_version", "3"])
    }

    @Test func helpDescribesTheCommands() throws {
        let workspace = try CLIWorkspace()
        let help = try workspace.strata("--help")
        #expect(help.status == 0)
        for command in ["migrate", "status", "query", "new"] {
            #expect(help.stdout.contains(command))
        }
        let migrateHelp = try workspace.strata("migrate", "--help")
        #expect(migrateHelp.status == 0)
        #expect(migrateHelp.stdout.contains("--to"))
        #expect(migrateHelp.stdout.contains("--database"))
        #expect(migrateHelp.stdout.contains("--migrations"))
        let queryHelp = try workspace.strata("query", "--help")
        #expect(queryHelp.stdout.contains("base64"))
    }
}

/// Process outcomes collected from several threads.
final class Results: Sendable {
    private let list = LockedValue<[Result<CLIResult, any Error>]>([])

    var values: [Result<CLIResult, any Error>] { list.withLock { $0 } }

    func append(_ result: Result<CLIResult, any Error>) {
        list.withLock { $0.append(result) }
    }
}
