import Foundation
import Strata
import Testing

/// A source database on file with `rows` rows of 200 bytes in `item`, about 60 rows to a 4 KiB page.
private func makeSource(at path: String, rows: Int = 600) throws -> Database {
    let db = try Database(path: path)
    try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
    try db.transaction { db in
        let insert = try db.prepare(query: "INSERT INTO item (payload) VALUES (randomblob(200))")
        for _ in 0..<rows { try insert.perform() }
    }
    return db
}

/// The files in `directory`, sorted: to check that a backup left no temporary file behind.
private func files(in directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
}

/// `Database.backup(to:)`: what the copy holds and how it is made.
@Suite struct BackupTests {
    @Test func theCopyHoldsTheSchemaDataAndHeaderOfTheSource() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try source.execute(
            query: """
                CREATE INDEX item_payload ON item (payload);
                CREATE VIEW item_ids AS SELECT id FROM item;
                CREATE TRIGGER item_guard BEFORE DELETE ON item BEGIN SELECT RAISE(ABORT, 'kept'); END;
                """)
        try source.setUserVersion(42)
        let result = try source.backup(to: directory.path("copy.sqlite"))

        let copy = try Database(path: directory.path("copy.sqlite"), readOnly: true)
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try copy.userVersion == 42)
        #expect(try copy.journalMode == .wal)
        #expect(try countRows(copy, in: "item") == 600)
        #expect(try countRows(copy, in: "item_ids") == 600)
        let schema = try copy.fetchAll(String.self, query: "SELECT name FROM sqlite_schema ORDER BY name")
        #expect(schema == ["item", "item_guard", "item_ids", "item_payload"])
        let payloads = "SELECT group_concat(h, '') FROM (SELECT hex(payload) AS h FROM item ORDER BY id)"
        #expect(try copy.fetchOne(String.self, query: payloads) == source.fetchOne(String.self, query: payloads))
        let pages = try #require(try copy.fetchOne(Int.self, query: "PRAGMA page_count"))
        #expect(result == BackupProgress(totalPages: pages, remainingPages: 0))
    }

    @Test func theCopyHasTheSourcesPageSize() throws {
        let directory = try TemporaryDirectory()
        let source = try Database()
        try source.execute(query: "PRAGMA page_size = 8192; CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        try source.backup(to: directory.path("copy.sqlite"))
        let copy = try Database(path: directory.path("copy.sqlite"))
        #expect(try copy.fetchOne(Int.self, query: "PRAGMA page_size") == 8192)
        #expect(try copy.fetchOne(Int.self, query: "SELECT x FROM t") == 1)
    }

    @Test func anInMemoryDatabaseBacksUpToAFileLikeAnyOther() throws {
        let directory = try TemporaryDirectory()
        let source = try Database()
        try source.execute(query: "CREATE TABLE note (content TEXT); INSERT INTO note VALUES ('kept')")
        let result = try source.backup(to: directory.path("memory.sqlite"), pagesPerStep: 1)
        #expect(result.isComplete)
        #expect(try files(in: directory) == ["memory.sqlite"])
        let copy = try Database(path: directory.path("memory.sqlite"))
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try copy.fetchAll(String.self, query: "SELECT content FROM note") == ["kept"])
    }

    @Test func theLastProgressHasRemainingPagesZero() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        var reports: [BackupProgress] = []
        let result = try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: 2) { reports.append($0) }
        let total = result.totalPages
        #expect(total > 10)
        // One report per step of 2 pages, each 2 pages further, the last complete.
        #expect(reports.count == (total + 1) / 2)
        #expect(reports.map(\.copiedPages) == reports.indices.map { min(2 * ($0 + 1), total) })
        #expect(reports.allSatisfy { $0.totalPages == total })
        #expect(reports.last == BackupProgress(totalPages: total, remainingPages: 0))
        #expect(reports.last?.fractionCompleted == 1)
        #expect(reports.dropLast().allSatisfy { !$0.isComplete })
        #expect(result == reports.last)
    }

    @Test(arguments: [Int32(-1), -5])
    func aNegativeStepCopiesEverythingInOneStep(pagesPerStep: Int32) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        var reports: [BackupProgress] = []
        try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: pagesPerStep) { reports.append($0) }
        #expect(reports.count == 1)
        #expect(reports.first?.isComplete == true)
        #expect(try countRows(try Database(path: directory.path("copy.sqlite")), in: "item") == 600)
    }

    @Test func aStepOfZeroPagesThrows() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let error = expectError(.invalidArgument) {
            try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: 0)
        }
        #expect(error.text.contains("0 pages"))
        #expect(try files(in: directory) == ["source.sqlite", "source.sqlite-shm", "source.sqlite-wal"])
        #expect(!source.isInTransaction)
    }

    @Test func commitsOfOtherConnectionsMeanwhileAreNotInTheCopyAndDoNotRestartIt() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let other = try Database(path: directory.path("source.sqlite"))
        var reports: [BackupProgress] = []
        // Step 1 | another connection commits | step 2 | it commits again | ... five times: in WAL mode it never
        // waits. (Five, not one per step: a backup that restarted at each commit would never end.)
        try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: 3) { progress in
            reports.append(progress)
            if reports.count <= 5 {
                try other.execute(query: "INSERT INTO item (payload) VALUES (randomblob(2000))")
            }
        }
        // A restart would start the count over: the copied pages only ever grow, one step at a time.
        #expect(reports.map(\.copiedPages) == reports.indices.map { min(3 * ($0 + 1), reports[0].totalPages) })
        let copy = try Database(path: directory.path("copy.sqlite"))
        #expect(try countRows(copy, in: "item") == 600)
        #expect(try countRows(source, in: "item") == 605)
        #expect(try copy.integrityCheck() == ["ok"])
        // The backup ended its read transaction: the source sees the other connection's rows above.
        #expect(!source.isInTransaction)
    }

    @Test func insideAReadTransactionTheCopyIsWhatThatTransactionSees() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let other = try Database(path: directory.path("source.sqlite"))
        try source.transaction { db in
            #expect(try countRows(db, in: "item") == 600)  // the transaction's snapshot is taken here
            try other.execute(query: "DELETE FROM item WHERE id > 100")
            try db.backup(to: directory.path("copy.sqlite"))
            #expect(db.isInTransaction)  // the caller's transaction is left open
        }
        #expect(try countRows(try Database(path: directory.path("copy.sqlite")), in: "item") == 600)
        #expect(try countRows(source, in: "item") == 100)
    }

    @Test(arguments: [TransactionKind.deferred, .immediate, .exclusive])
    func insideAWriteTransactionTheBackupThrows(kind: TransactionKind) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try source.transaction(kind) { db in
            if kind == .deferred { try db.execute(query: "DELETE FROM item") }
            let error = expectError(.invalidArgument) { try db.backup(to: directory.path("copy.sqlite")) }
            #expect(error.text.contains("cannot back up inside a write transaction"))
            #expect(db.isInTransaction)
        }
        #expect(try files(in: directory) == ["source.sqlite", "source.sqlite-shm", "source.sqlite-wal"])
    }

    @Test func closingTheSourceDuringTheBackupStopsIt() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        var steps = 0
        expectError(.connectionClosed) {
            try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: 2) { _ in
                steps += 1
                source.close()
            }
        }
        #expect(steps == 1)
        // SQLite finished closing the source once the backup let it go: its WAL is checkpointed and removed.
        #expect(try files(in: directory) == ["source.sqlite"])
    }

    @Test func nothingHalfWrittenIsEverAtPath() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        var seen: [[String]] = []
        try source.backup(to: directory.path("copy.sqlite"), pagesPerStep: 4) { _ in
            seen.append(try files(in: directory))
        }
        // During the copy: the source's files and a temporary file beside the destination (with, after the first
        // step, its rollback journal), never the destination.
        #expect(seen.count > 2)
        for listing in seen {
            let others = listing.filter { !$0.hasPrefix("source.sqlite") && !$0.hasSuffix("-journal") }
            #expect(others.count == 1)
            #expect(others.allSatisfy { $0.hasPrefix("copy.sqlite.strata-backup-") })
        }
        #expect(try files(in: directory) == ["copy.sqlite", "source.sqlite", "source.sqlite-shm", "source.sqlite-wal"])
    }

    @Test(arguments: [false, true])
    func aBackupThatProgressStopsRemovesItsTemporaryFileAndLeavesPathAsItWas(pathExists: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let destination = directory.path("copy.sqlite")
        if pathExists { try Data("the old backup".utf8).write(to: URL(fileURLWithPath: destination)) }
        var steps = 0
        #expect(throws: IntendedFailure.self) {
            try source.backup(to: destination, overwrite: true, pagesPerStep: 2) { _ in
                steps += 1
                if steps == 3 { throw IntendedFailure() }
            }
        }
        #expect(steps == 3)
        let expected =
            ["source.sqlite", "source.sqlite-shm", "source.sqlite-wal"] + (pathExists ? ["copy.sqlite"] : [])
        #expect(try files(in: directory) == expected.sorted())
        if pathExists {
            #expect(try String(contentsOfFile: destination, encoding: .utf8) == "the old backup")
        }
        // The read transaction the backup began is over, and the source is as it was.
        #expect(!source.isInTransaction)
        #expect(try countRows(source, in: "item") == 600)
    }

    @Test func aSecondBackupOfTheSameDatabaseWorks() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try source.backup(to: directory.path("first.sqlite"))
        try source.execute(query: "DELETE FROM item WHERE id > 10")
        try source.backup(to: directory.path("second.sqlite"))
        #expect(try countRows(try Database(path: directory.path("first.sqlite")), in: "item") == 600)
        #expect(try countRows(try Database(path: directory.path("second.sqlite")), in: "item") == 10)
    }

    @Test func aClosedDatabaseThrows() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        source.close()
        expectError(.connectionClosed) { try source.backup(to: directory.path("copy.sqlite")) }
        #expect(try files(in: directory) == ["source.sqlite"])
    }
}

/// Destinations a backup refuses, each with an error naming what is wrong, the source and the destination untouched.
@Suite struct BackupDestinationTests {
    /// Checks that backing up `source` to `path` throws ``DatabaseError/Code/invalidArgument`` with `message` in its
    /// text, and that it changed no file in `directory`.
    private func expectRefused(
        _ source: Database,
        to path: String,
        overwrite: Bool = false,
        in directory: TemporaryDirectory,
        containing message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try snapshot(of: directory)
        let error = expectError(.invalidArgument, sourceLocation: sourceLocation) {
            try source.backup(to: path, overwrite: overwrite)
        }
        #expect(error.text.contains(message), "\(error.text)", sourceLocation: sourceLocation)
        #expect(try snapshot(of: directory) == before, sourceLocation: sourceLocation)
        #expect(!source.isInTransaction, sourceLocation: sourceLocation)
        #expect(try source.integrityCheck() == ["ok"], sourceLocation: sourceLocation)
    }

    /// Each file's name and contents, the WAL index left out (SQLite rewrites it on reads).
    private func snapshot(of directory: TemporaryDirectory) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try files(in: directory) where !name.hasSuffix("-shm") {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: directory.path(name), isDirectory: &isFolder)
            contents[name] =
                exists && !isFolder.boolValue
                ? try Data(contentsOf: directory.url.appendingPathComponent(name)) : Data("not a file".utf8)
        }
        return contents
    }

    @Test func aDestinationInAMissingFolderIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try expectRefused(
            source, to: directory.path("missing/copy.sqlite"), in: directory,
            containing: "the folder \(directory.path("missing")) of the backup destination")
    }

    enum SameFile: String, CaseIterable, CustomTestStringConvertible {
        case samePath, dotSlash, dotDot, symbolicLink, symbolicLinkToFolder, hardLink, wal, shm, journal
        var testDescription: String { rawValue }
    }

    @Test(arguments: SameFile.allCases, [false, true])
    func theSourceIsNeverADestination(_ kind: SameFile, overwrite: Bool) throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("sub"), withIntermediateDirectories: false)
        let sourcePath = directory.path("source.sqlite")
        let source = try makeSource(at: sourcePath)
        let destination: String
        switch kind {
        case .samePath:
            destination = sourcePath
        case .dotSlash:
            destination = directory.url.path + "/./source.sqlite"
        case .dotDot:
            destination = directory.path("sub") + "/../source.sqlite"
        case .symbolicLink:
            destination = directory.path("link.sqlite")
            try FileManager.default.createSymbolicLink(atPath: destination, withDestinationPath: "source.sqlite")
        case .symbolicLinkToFolder:
            destination = directory.path("linked-folder/source.sqlite")
            try FileManager.default.createSymbolicLink(
                atPath: directory.path("linked-folder"), withDestinationPath: directory.url.path)
        case .hardLink:
            destination = directory.path("hard.sqlite")
            try FileManager.default.linkItem(atPath: sourcePath, toPath: destination)
        case .wal:
            destination = sourcePath + "-wal"
        case .shm:
            destination = sourcePath + "-shm"
        case .journal:
            destination = sourcePath + "-journal"
        }
        let message =
            switch kind {
            case .wal: "is the -wal file of the source database"
            case .shm: "is the -shm file of the source database"
            case .journal: "is the -journal file of the source database"
            default: "is the source database file"
            }
        try expectRefused(source, to: destination, overwrite: overwrite, in: directory, containing: message)
        #expect(try countRows(source, in: "item") == 600)
    }

    @Test func anExistingFileAtPathIsRefusedUnlessOverwriteIsTrue() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let destination = directory.path("copy.sqlite")
        try Data("an older file".utf8).write(to: URL(fileURLWithPath: destination))
        try expectRefused(
            source, to: destination, in: directory,
            containing: "\(destination) already exists: a backup replaces a file only when asked to overwrite it")

        let result = try source.backup(to: destination, overwrite: true)
        #expect(try files(in: directory) == ["copy.sqlite", "source.sqlite", "source.sqlite-shm", "source.sqlite-wal"])
        let copy = try Database(path: destination)
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try countRows(copy, in: "item") == 600)
        #expect(try copy.fetchOne(Int.self, query: "PRAGMA page_count") == result.totalPages)
    }

    @Test func overwriteReplacesAnOlderBackupWithTheCompleteCopy() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let destination = directory.path("copy.sqlite")
        try source.backup(to: destination)
        try source.execute(query: "DELETE FROM item WHERE id > 5")
        // Checking the older backup with a read-only connection leaves an empty WAL beside it, which is harmless.
        do {
            let reader = try Database(path: destination, readOnly: true)
            #expect(try countRows(reader, in: "item") == 600)
            reader.close()
        }
        try source.backup(to: destination, overwrite: true)
        #expect(try countRows(try Database(path: destination), in: "item") == 5)
    }

    @Test func aSymbolicLinkAtPathToAnotherFileIsFollowed() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("backups"), withIntermediateDirectories: false)
        let source = try makeSource(at: directory.path("source.sqlite"))
        try Data("older".utf8).write(to: URL(fileURLWithPath: directory.path("backups/latest.sqlite")))
        try FileManager.default.createSymbolicLink(
            atPath: directory.path("latest.sqlite"), withDestinationPath: "backups/latest.sqlite")
        try source.backup(to: directory.path("latest.sqlite"), overwrite: true)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: directory.path("latest.sqlite"))
                == "backups/latest.sqlite")
        #expect(try countRows(try Database(path: directory.path("backups/latest.sqlite")), in: "item") == 600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("backups")) == ["latest.sqlite"])
    }

    @Test(arguments: ["-wal", "-journal"])
    func aWalOrJournalFileWithContentBesidePathIsAlwaysRefused(suffix: String) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        let destination = directory.path("copy.sqlite")
        try Data("left over".utf8).write(to: URL(fileURLWithPath: destination + suffix))
        for overwrite in [false, true] {
            try expectRefused(
                source, to: destination, overwrite: overwrite, in: directory,
                containing: "\(destination + suffix) exists beside the backup destination")
        }
    }

    @Test func aFolderIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try FileManager.default.createDirectory(atPath: directory.path("folder"), withIntermediateDirectories: false)
        for path in [directory.path("folder"), directory.path("folder") + "/", directory.path("folder") + "/.."] {
            try expectRefused(source, to: path, overwrite: true, in: directory, containing: "is a folder")
        }
    }

    @Test(arguments: ["", ":memory:"])
    func aPathThatIsNoFileIsRefused(path: String) throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        try expectRefused(source, to: path, in: directory, containing: "a backup needs a file path")
    }

    @Test func aRelativePathStartsFromTheCurrentFolder() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(at: directory.path("source.sqlite"))
        // The current folder is shared by the whole test process, so the relative path climbs out of it again.
        let current = FileManager.default.currentDirectoryPath
        let depth = current.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + String(directory.path("copy.sqlite").dropFirst())
        try source.backup(to: relative)
        #expect(try countRows(try Database(path: directory.path("copy.sqlite")), in: "item") == 600)
    }
}
