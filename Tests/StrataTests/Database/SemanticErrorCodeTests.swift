import Foundation
import Strata
import Testing

@testable import StrataCore

/// SQLite's failures carry the codes that mean the same on every backend, with SQLite's own result code beside them,
/// and no bound value in their description.
@Suite struct SemanticErrorCodeTests {
    /// A value no message may show.
    static let secret = "secret-4f9a2c"

    @Test func aUniqueViolationIsUniqueViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE u (k TEXT UNIQUE)")
        try db.execute(query: "INSERT INTO u VALUES (:v)", parameters: ["v": Self.secret])
        let error = expectError(.uniqueViolation) {
            try db.execute(query: "INSERT INTO u VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.sqlState == nil)
        #expect(
            error.text
                == "SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: u.k - while executing "
                + "`INSERT INTO u VALUES (:v)`")
    }

    @Test func aPrimaryKeyViolationIsUniqueViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE p (id TEXT PRIMARY KEY)")
        try db.execute(query: "INSERT INTO p VALUES (:v)", parameters: ["v": Self.secret])
        let error = expectError(.uniqueViolation) {
            try db.execute(query: "INSERT INTO p VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .constraintPrimaryKey)
        #expect(!error.text.contains(Self.secret))
        let rowid = expectError(.uniqueViolation) { try db.execute(query: "INSERT INTO p (rowid, id) VALUES (1, 'x')") }
        #expect(rowid?.resultCode == ResultCode(rawValue: 2579))  // SQLITE_CONSTRAINT_ROWID
    }

    @Test func aForeignKeyViolationIsForeignKeyViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE parent (k TEXT PRIMARY KEY)")
        try db.execute(query: "CREATE TABLE child (k TEXT REFERENCES parent (k))")
        let error = expectError(.foreignKeyViolation) {
            try db.execute(query: "INSERT INTO child VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(!error.text.contains(Self.secret))
    }

    @Test func aNotNullViolationIsNotNullViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE n (a TEXT, b TEXT NOT NULL)")
        let error = expectError(.notNullViolation) {
            try db.execute(query: "INSERT INTO n VALUES (:v, NULL)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .constraintNotNull)
        #expect(!error.text.contains(Self.secret))
    }

    @Test func aCheckViolationIsCheckViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE c (k TEXT CHECK (length(k) < 5))")
        let error = expectError(.checkViolation) {
            try db.execute(query: "INSERT INTO c VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .constraintCheck)
        #expect(!error.text.contains(Self.secret))
    }

    @Test func aLockHeldByAnotherConnectionIsBusy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let holder = try Database(path: path)
        try holder.execute(query: "CREATE TABLE t (k TEXT)")
        let other = try Database(path: path, busyTimeout: 0)
        try holder.execute(query: "BEGIN IMMEDIATE")
        let error = expectError(.busy) {
            try other.execute(query: "INSERT INTO t VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode?.primary == .busy)
        #expect(!error.text.contains(Self.secret))
        try holder.execute(query: "COMMIT")
        try other.execute(query: "INSERT INTO t VALUES (:v)", parameters: ["v": Self.secret])
    }

    @Test func aWriteFromAnOutdatedSnapshotIsSerializationFailure() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("snapshot.sqlite")
        let first = try Database(path: path, busyTimeout: 0)
        try first.execute(query: "CREATE TABLE t (k TEXT)")
        let second = try Database(path: path, busyTimeout: 0)
        // first reads: its transaction holds the WAL snapshot of now.
        try first.execute(query: "BEGIN")
        #expect(try first.fetchOne(Int.self, query: "SELECT count(*) FROM t") == 0)
        // second commits a write the snapshot does not have.
        try second.execute(query: "INSERT INTO t VALUES ('x')")
        // first cannot write from its older snapshot, however long it waits.
        let error = expectError(.serializationFailure) {
            try first.execute(query: "INSERT INTO t VALUES (:v)", parameters: ["v": Self.secret])
        }
        #expect(error?.resultCode == .busySnapshot)
        #expect(!error.text.contains(Self.secret))
        try first.execute(query: "ROLLBACK")
    }

    @Test func aWriteInAReadIsReadOnly() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("read.sqlite"))
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (k TEXT)") }
        let error = await expectPoolError(.readOnly) {
            try await pool.read { db in
                try db.execute(query: "INSERT INTO t VALUES (:v)", parameters: ["v": Self.secret])
            }
        }
        #expect(error?.resultCode?.primary == .readOnly)
        #expect(error?.description.contains(Self.secret) == false)
        let database = try Database(path: directory.path("read.sqlite"), readOnly: true)
        let readOnlyFile = expectError(.readOnly) { try database.execute(query: "DELETE FROM t") }
        #expect(readOnlyFile?.resultCode?.primary == .readOnly)
    }

    @Test func aFailureWithoutASemanticCodeKeepsTheSQLiteCode() throws {
        let db = try makeDatabase()
        let error = expectError(.sqlite) { try db.execute(query: "SELECT * FROM nowhere") }
        #expect(error?.resultCode == .error)
        #expect(
            error.text
                == "SQLite error 1 (SQLITE_ERROR): no such table: nowhere - while executing `SELECT * FROM nowhere`")
    }

    @Test func everyBusyLockedAndReadOnlyCodeMapsToItsFamily() {
        // SQLITE_BUSY_RECOVERY, _TIMEOUT; SQLITE_LOCKED_SHAREDCACHE, _VTAB; SQLITE_READONLY_RECOVERY ... _DIRECTORY.
        for raw: Int32 in [5, 261, 773, 6, 262, 518] {
            #expect(DatabaseError.Code(resultCode: ResultCode(rawValue: raw)) == .busy, "\(raw)")
        }
        for raw: Int32 in [8, 264, 520, 776, 1032, 1288, 1544] {
            #expect(DatabaseError.Code(resultCode: ResultCode(rawValue: raw)) == .readOnly, "\(raw)")
        }
        #expect(DatabaseError.Code(resultCode: .busySnapshot) == .serializationFailure)
        // SQLITE_CONSTRAINT_ROWID is a rowid that is not unique; SQLITE_CONSTRAINT_TRIGGER has no semantic code.
        #expect(DatabaseError.Code(resultCode: ResultCode(rawValue: 2579)) == .uniqueViolation)
        #expect(DatabaseError.Code(resultCode: ResultCode(rawValue: 1811)) == .sqlite)
        #expect(DatabaseError.Code(resultCode: .constraint) == .sqlite)
        #expect(DatabaseError.Code(resultCode: .ioError) == .sqlite)
    }

    @Test func sqlStatesMapToTheSameCodes() {
        let expected: [String: DatabaseError.Code] = [
            "23505": .uniqueViolation, "23503": .foreignKeyViolation, "23502": .notNullViolation,
            "23514": .checkViolation, "55P03": .busy, "40001": .serializationFailure, "40P01": .serializationFailure,
            "25006": .readOnly, "28000": .authenticationFailed, "28P01": .authenticationFailed,
            "3D000": .databaseMissing, "42P01": .server, "23P01": .server, "22P02": .server,
        ]
        for (state, code) in expected {
            #expect(DatabaseError.Code(sqlState: state) == code, "\(state)")
        }
    }
}
