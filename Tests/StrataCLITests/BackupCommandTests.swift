import Foundation
import Strata
import Testing

@Suite struct BackupCommandTests {
    /// A migrated notes database, `strata.sqlite`, with 200 notes.
    private func notesWorkspace() throws -> CLIWorkspace {
        let workspace = try CLIWorkspace()
        try workspace.copyExampleMigrations()
        #expect(try workspace.strata("migrate").status == 0)
        let insert = try workspace.strata(
            "query",
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO note (created_at, content) SELECT '2024-05-01 08:00:00.000', 'note ' || i FROM n
            """)
        #expect(insert.status == 0, "\(insert.stderr)")
        return workspace
    }

    private func noteCount(_ workspace: CLIWorkspace, in name: String) throws -> Int? {
        try Database(path: workspace.path(name), readOnly: true).fetchOne(Int.self, query: "SELECT count(*) FROM note")
    }

    @Test func backupCopiesTheDatabaseAndPrintsOneLine() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("backup", "--to", "copy.sqlite")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let copy = try Database(path: workspace.path("copy.sqlite"), readOnly: true)
        let pages = try #require(try copy.fetchOne(Int.self, query: "PRAGMA page_count"))
        #expect(result.lines == ["backed up strata.sqlite to copy.sqlite: \(pages) pages"])
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try copy.userVersion == 3)
        #expect(try noteCount(workspace, in: "copy.sqlite") == 200)
    }

    @Test func backupTakesTheDatabaseOptionAndAPathInAnotherFolder() throws {
        let workspace = try notesWorkspace()
        try FileManager.default.moveItem(
            atPath: workspace.path("strata.sqlite"), toPath: workspace.path("notes.sqlite"))
        try FileManager.default.createDirectory(atPath: workspace.path("backups"), withIntermediateDirectories: false)
        let result = try workspace.strata(
            "backup", "--database", "notes.sqlite", "--to", "backups/notes.sqlite", "--busy-timeout", "1")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.first?.hasPrefix("backed up notes.sqlite to backups/notes.sqlite: ") == true)
        #expect(try noteCount(workspace, in: "backups/notes.sqlite") == 200)
    }

    @Test func aWriteTransactionOpenInAnotherProcessNeitherBlocksTheBackupNorIsInIt() throws {
        let workspace = try notesWorkspace()
        let writer = try Database(path: workspace.path("strata.sqlite"))
        try writer.beginTransaction(.immediate)
        try writer.execute(query: "DELETE FROM note")
        let result = try workspace.strata("backup", "--to", "copy.sqlite", "--busy-timeout", "0")
        try writer.commitTransaction()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try noteCount(workspace, in: "copy.sqlite") == 200)
        #expect(try noteCount(workspace, in: "strata.sqlite") == 0)
    }

    @Test func anExistingDestinationIsAnErrorUnlessOverwrite() throws {
        let workspace = try notesWorkspace()
        try workspace.write("not a backup", to: "copy.sqlite")
        let refused = try workspace.strata("backup", "--to", "copy.sqlite")
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(
            refused.stderr
                == "error: copy.sqlite already exists: a backup replaces a file only when asked to overwrite it\n")
        #expect(try workspace.read("copy.sqlite") == "not a backup")

        let replaced = try workspace.strata("backup", "--to", "copy.sqlite", "--overwrite")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try noteCount(workspace, in: "copy.sqlite") == 200)
    }

    @Test func aMissingDatabaseIsAnErrorAndCreatesNothing() throws {
        let workspace = try CLIWorkspace()
        let result = try workspace.strata("backup", "--database", "missing.sqlite", "--to", "copy.sqlite")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr == "error: no database at missing.sqlite\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path) == [])
    }

    @Test func aDestinationInAMissingFolderIsAnError() throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("backup", "--to", "backups/copy.sqlite")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == "error: the folder backups of the backup destination backups/copy.sqlite does not exist\n")
    }

    @Test(arguments: ["strata.sqlite", "./strata.sqlite", "strata.sqlite-wal"])
    func theDatabaseItselfIsAnErrorEvenWithOverwrite(destination: String) throws {
        let workspace = try notesWorkspace()
        let result = try workspace.strata("backup", "--to", destination, "--overwrite")
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("error: the backup destination \(destination) is the "))
        #expect(result.stderr.contains("source database"))
        #expect(try noteCount(workspace, in: "strata.sqlite") == 200)
    }
}
