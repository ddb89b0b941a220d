import Foundation
import Strata
import Testing

@Suite struct PragmaTests {
    /// The single value of a one-row, one-column query.
    private func value<Value: DatabaseValueConvertible>(_ query: String, in db: Database) throws -> Value {
        let row = try #require(try db.prepare(query: query).next())
        return try row[0]
    }

    // MARK: user_version

    @Test func userVersionStartsAtZeroAndPersists() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("version.sqlite")
        do {
            let db = try Database(path: path)
            #expect(try db.userVersion == 0)
            try db.setUserVersion(7)
            #expect(try db.userVersion == 7)
            #expect(try value("PRAGMA user_version", in: db) == 7)
        }
        let db = try Database(path: path, readOnly: true)
        #expect(try db.userVersion == 7)
    }

    @Test(arguments: [Int(Int32.min), -1, 0, 1, Int(Int32.max)])
    func userVersionTakesThe32BitRange(version: Int) throws {
        let db = try makeDatabase()
        try db.setUserVersion(version)
        #expect(try db.userVersion == version)
    }

    @Test(arguments: [Int(Int32.max) + 1, Int(Int32.min) - 1, Int.max])
    func userVersionOutsideThe32BitRangeThrows(version: Int) throws {
        let db = try makeDatabase()
        try db.setUserVersion(3)
        let error = expectError(.invalidArgument) { try db.setUserVersion(version) }
        #expect(error.text.contains(String(version)))
        #expect(try db.userVersion == 3)
    }

    @Test func setUserVersionOnAReadOnlyDatabaseThrows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ro.sqlite")
        try Database(path: path).setUserVersion(2)
        let db = try Database(path: path, readOnly: true)
        let error = expectError(.readOnly) { try db.setUserVersion(5) }
        #expect(error?.resultCode?.primary == .readOnly)
        #expect(try db.userVersion == 2)
    }

    // MARK: journal_mode

    @Test(arguments: [JournalMode.delete, .truncate, .persist, .memory, .off, .wal])
    func journalModeChangesOnAFile(mode: JournalMode) throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("journal.sqlite"))
        try db.setJournalMode(mode)
        #expect(try db.journalMode == mode)
        #expect(try value("PRAGMA journal_mode", in: db) == mode.rawValue)
    }

    @Test func anInMemoryDatabaseCannotUseWAL() throws {
        let db = try makeDatabase()
        let error = expectError(.invalidArgument) { try db.setJournalMode(.wal) }
        #expect(error.text.contains("wal"))
        #expect(try db.journalMode == .memory)
    }

    @Test func aReadOnlyDatabaseKeepsItsJournalMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ro.sqlite")
        try Database(path: path).setJournalMode(.delete)
        let db = try Database(path: path, readOnly: true)
        #expect(throws: DatabaseError.self) { try db.setJournalMode(.wal) }
        #expect(try db.journalMode == .delete)
    }

    // MARK: foreign_keys

    @Test func foreignKeysAreOnByDefaultAndEnforced() throws {
        let db = try makeDatabase()
        #expect(try db.foreignKeys)
        try db.execute(
            query: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent_id INTEGER REFERENCES parent (id));
                """)
        let error = expectError(.foreignKeyViolation) { try db.execute(query: "INSERT INTO child VALUES (1)") }
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(error.text.contains("FOREIGN KEY constraint failed"))
    }

    @Test func foreignKeysCanBeTurnedOff() throws {
        let db = try makeDatabase()
        try db.execute(
            query: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent_id INTEGER REFERENCES parent (id));
                """)
        try db.setForeignKeys(false)
        #expect(try !db.foreignKeys)
        try db.execute(query: "INSERT INTO child VALUES (1)")
        #expect(try db.changes == 1)
        try db.setForeignKeys(true)
        #expect(try db.foreignKeys)
    }

    @Test func foreignKeysCannotChangeInsideATransaction() throws {
        let db = try makeDatabase()
        try db.beginTransaction()
        let error = expectError(.invalidArgument) { try db.setForeignKeys(false) }
        #expect(error.text.contains("transaction"))
        #expect(try db.foreignKeys)
        try db.rollbackTransaction()
    }

    // MARK: busy_timeout

    @Test func busyTimeoutDefaultsToFiveSecondsAndCanChange() throws {
        let db = try makeDatabase()
        #expect(db.busyTimeout == 5)
        #expect(try value("PRAGMA busy_timeout", in: db) == 5000)
        db.busyTimeout = 0.25
        #expect(db.busyTimeout == 0.25)
        #expect(try value("PRAGMA busy_timeout", in: db) == 250)
        // Values SQLite cannot take are clamped instead of trapping.
        db.busyTimeout = -3
        #expect(try value("PRAGMA busy_timeout", in: db) == 0)
        db.busyTimeout = .infinity
        #expect(try value("PRAGMA busy_timeout", in: db) == Int(Int32.max))
        db.busyTimeout = .nan
        #expect(try value("PRAGMA busy_timeout", in: db) == 0)
    }

    @Test func aZeroBusyTimeoutFailsAtOnceOnALock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let writer = try Database(path: path)
        let other = try Database(path: path)
        other.busyTimeout = 0
        try writer.beginTransaction(.immediate)
        let error = expectError(.busy) { try other.execute(query: "BEGIN IMMEDIATE") }
        #expect(error?.resultCode?.primary == .busy)
        #expect(error.text.contains("database is locked"))
        try writer.rollbackTransaction()
        try other.execute(query: "BEGIN IMMEDIATE; COMMIT")
    }

    // MARK: auto_vacuum, vacuum

    @Test func autoVacuumTakesEffectAtTheNextVacuum() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("vacuum.sqlite"))
        #expect(try db.autoVacuum == AutoVacuum.none)
        try db.setAutoVacuum(.incremental)
        try db.vacuum()
        #expect(try db.autoVacuum == .incremental)
        try db.setAutoVacuum(.full)
        #expect(try db.autoVacuum == .full)
    }

    @Test func incrementalVacuumFreesPages() throws {
        let db = try makeDatabase()
        try db.setAutoVacuum(.incremental)
        try db.vacuum()
        try db.execute(query: "CREATE TABLE t (v BLOB)")
        let insert = try db.prepare(query: "INSERT INTO t VALUES (zeroblob(:size))")
        try insert.bind(value: 64 * 1024, for: "size")
        for _ in 0..<8 { try insert.perform() }
        try db.execute(query: "DELETE FROM t")
        let freeBefore: Int = try value("PRAGMA freelist_count", in: db)
        #expect(freeBefore > 10)
        try db.incrementalVacuum(pages: 5)
        #expect(try value("PRAGMA freelist_count", in: db) == freeBefore - 5)
        try db.incrementalVacuum()
        #expect(try value("PRAGMA freelist_count", in: db) == 0)
    }

    @Test func incrementalVacuumOfNegativePagesThrows() throws {
        let db = try makeDatabase()
        let error = expectError(.invalidArgument) { try db.incrementalVacuum(pages: -1) }
        #expect(error.text.contains("-1"))
    }

    @Test func vacuumInsideATransactionThrows() throws {
        let db = try makeDatabase()
        // The failed VACUUM fails the transaction too, which throws it again when it ends.
        let failure = expectError(.sqlite) {
            try db.transaction { db in
                let error = expectError(.sqlite) { try db.vacuum() }
                #expect(error.text.contains("VACUUM"))
            }
        }
        #expect(failure.text.contains("VACUUM"))
        #expect(!db.isInTransaction)
    }

    // MARK: secure_delete

    @Test(arguments: SecureDelete.allCases)
    func secureDeleteRoundTrips(mode: SecureDelete) throws {
        let db = try makeDatabase()
        try db.setSecureDelete(mode)
        #expect(try db.secureDelete == mode)
    }

    // MARK: wal_checkpoint

    @Test func walCheckpointCopiesFramesBack() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("checkpoint.sqlite"))
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3)")
        let passive = try db.walCheckpoint()
        #expect(!passive.wasBlocked)
        #expect(passive.walFrames > 0)
        #expect(passive.checkpointedFrames == passive.walFrames)
        try db.execute(query: "INSERT INTO t VALUES (4)")
        let truncated = try db.walCheckpoint(mode: .truncate)
        #expect(!truncated.wasBlocked)
        #expect(truncated.walFrames == 0)
        let size = try FileManager.default.attributesOfItem(atPath: directory.path("checkpoint.sqlite-wal"))[.size]
        #expect((size as? NSNumber)?.intValue == 0)
    }

    @Test func walCheckpointIsBlockedByAReader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("blocked.sqlite")
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE t (v); INSERT INTO t VALUES (1)")
        let reader = try Database(path: path)
        reader.busyTimeout = 0
        db.busyTimeout = 0
        // The reader holds a snapshot that the next write is not part of.
        try reader.beginTransaction()
        let row = try #require(try reader.prepare(query: "SELECT count(*) AS n FROM t").next())
        #expect(try row.n == 1)
        try db.execute(query: "INSERT INTO t VALUES (2)")
        let result = try db.walCheckpoint(mode: .passive)
        #expect(result.checkpointedFrames < result.walFrames)
        try reader.rollbackTransaction()
    }

    @Test func integrityCheckOfASoundDatabase() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (v UNIQUE); INSERT INTO t VALUES (1)")
        #expect(try db.integrityCheck() == ["ok"])
    }
}
