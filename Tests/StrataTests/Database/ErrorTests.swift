import Foundation
import Strata
import Testing

@Suite struct ErrorTests {
    @Test func aConstraintViolationSaysWhatFailed() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE u (k UNIQUE)")
        let insert = try db.prepare(query: "INSERT INTO u VALUES (?)")
        try insert.bind(value: "secret-value", at: 1)
        try insert.perform()
        let error = expectError(.uniqueViolation) { try insert.perform() }
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.resultCode?.primary == .constraint)
        #expect(error?.message == "UNIQUE constraint failed: u.k")
        #expect(error?.sql == "INSERT INTO u VALUES (?)")
        #expect(
            error.text
                == "SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: u.k"
                + " - while executing `INSERT INTO u VALUES (?)`")
    }

    @Test func boundValuesAreLeftOutOfMessages() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE u (k UNIQUE NOT NULL)")
        let insert = try db.prepare(query: "INSERT INTO u VALUES (:k)")
        try insert.bind(value: "hunter2", for: "k")
        try insert.perform()
        let error = expectError(.uniqueViolation) { try insert.perform() }
        #expect(!error.text.contains("hunter2"))
    }

    @Test func theConnectionStaysUsableAfterAConstraintViolation() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE u (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE)")
        let insert = try db.prepare(query: "INSERT INTO u (k) VALUES (:k)")
        try insert.bind(value: "a", for: "k")
        try insert.perform()
        let unique = expectError(.uniqueViolation) { try insert.perform() }
        #expect(unique?.resultCode == .constraintUnique)
        try insert.bind(value: nil as String?, for: "k")
        let notNull = expectError(.notNullViolation) { try insert.perform() }
        #expect(notNull?.resultCode == .constraintNotNull)
        #expect(notNull.text.contains("NOT NULL constraint failed: u.k"))
        // The same statement and the connection both go on working.
        try insert.bind(value: "b", for: "k")
        try insert.perform()
        #expect(try db.lastInsertedId == 2)
        #expect(!db.isInTransaction)
        try db.execute(query: "INSERT INTO u (k) VALUES ('c')")
        let row = try #require(try db.prepare(query: "SELECT group_concat(k) AS ks FROM u").next())
        #expect(try row.ks == "a,b,c")
    }

    @Test func aPrimaryKeyViolationHasItsExtendedCode() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE p (id INTEGER PRIMARY KEY)")
        try db.execute(query: "INSERT INTO p VALUES (1)")
        let error = expectError(.uniqueViolation) { try db.execute(query: "INSERT INTO p VALUES (1)") }
        #expect(error?.resultCode?.primary == .constraint)
        #expect(error.text.contains("SQLITE_CONSTRAINT_PRIMARYKEY") || error.text.contains("SQLITE_CONSTRAINT_ROWID"))
    }

    @Test func aValueErrorNamesColumnStoredTypeAndRequestedType() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT 300 AS small, 'x' AS word")
        let row = try #require(try statement.next())
        let range = expectError(.valueOutOfRange) { let _: Int8 = try row.small }
        #expect(range?.column == "small")
        #expect(range?.columnIndex == 0)
        #expect(range?.sql == "SELECT 300 AS small, 'x' AS word")
        #expect(
            range.text
                == "could not decode Int8 from INTEGER (out of range) - column \"small\" (index 0)"
                + " - while executing `SELECT 300 AS small, 'x' AS word`")
        let mismatch = expectError(.typeMismatch) { let _: Double = try row[1] }
        #expect(mismatch.text.contains("Double"))
        #expect(mismatch.text.contains("TEXT"))
        #expect(mismatch.text.contains("column \"word\" (index 1)"))
    }

    @Test func nullIntoANonOptionalNamesTheColumn() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT NULL AS name").next())
        let error = expectError(.unexpectedNull) { let _: String = try row.name }
        #expect(error.text.hasPrefix("could not decode String from NULL - column \"name\" (index 0)"))
        let optional: String? = try row.name
        #expect(optional == nil)
    }

    @Test func codesDescribeThemselvesAndCompare() {
        #expect(DatabaseError.Code.sqlite.description == "sqlite")
        #expect(DatabaseError.Code.unknownColumn.description == "unknown column")
        #expect(DatabaseError.Code.staleRow != .unknownColumn)
        #expect(Set([DatabaseError.Code.typeMismatch, .typeMismatch, .unexpectedNull]).count == 2)
    }

    @Test func resultCodesNameThemselves() {
        #expect(ResultCode.constraintUnique.name == "SQLITE_CONSTRAINT_UNIQUE")
        #expect(ResultCode.constraintUnique.primary == .constraint)
        #expect(ResultCode.busy.description == "SQLITE_BUSY")
        #expect(ResultCode(rawValue: 19 | (99 << 8)).name == "SQLITE_CONSTRAINT (extended 25363)")
        #expect(ResultCode(rawValue: 250).name == "SQLITE_UNKNOWN_250")
    }

    /// Every extended code of `sqlite3.h` has its name in messages, never a bare number such as the
    /// `SQLITE_IOERR (extended 4874)` an I/O fault used to print.
    @Test func everyExtendedResultCodeOfTheHeaderHasItsName() {
        #expect(ResultCode.extendedHeaderValues.count >= 75)
        for (name, header) in ResultCode.extendedHeaderValues {
            #expect(ResultCode(rawValue: header).name == name)
        }
        #expect(ResultCode(rawValue: 4874).name == "SQLITE_IOERR_SHMSIZE")
        #expect(ResultCode(rawValue: 8458).name == "SQLITE_IOERR_CORRUPTFS")
        #expect(DatabaseError.Code.commitOutcomeUnknown.description == "commit outcome unknown")
    }

    /// StrataCore spells SQLite's result codes out as numbers (it never sees `sqlite3.h`): they must be the header's.
    @Test func resultCodesAreTheNumbersOfTheSQLiteHeader() {
        #expect(ResultCode.headerValues.count == 21)
        for (code, header) in ResultCode.headerValues {
            #expect(code.rawValue == header, "\(code)")
        }
    }

    @Test func aUserConversionErrorIsKeptAsTheUnderlyingError() throws {
        struct Even: DatabaseValueConvertible {
            struct Odd: Error {}
            var value: Int64
            var databaseValue: DatabaseValue { .integer(value) }
            init(databaseValue: DatabaseValue) throws {
                guard case .integer(let value) = databaseValue, value % 2 == 0 else { throw Odd() }
                self.value = value
            }
        }
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT 3 AS n").next())
        let error = expectError(.invalidValue) { let _: Even = try row.n }
        #expect(error?.underlyingError is Even.Odd)
        #expect(error.text.contains("Even"))
        #expect(error.text.contains("INTEGER"))
        #expect(error.text.contains("column \"n\""))
        let even = try #require(try db.prepare(query: "SELECT 4 AS n").next())
        #expect(try (even.n as Even).value == 4)
    }
}
