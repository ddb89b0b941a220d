/// The error Strata throws: what failed, where, and — when SQLite reported it — SQLite's result code.
///
/// Match on ``code`` for the kind of failure and on ``resultCode`` for SQLite's own code:
///
/// ```swift
/// do {
///     try db.execute(query: "INSERT INTO user (email) VALUES ('a@b.c')")
/// } catch let error as DatabaseError where error.resultCode == .constraintUnique {
///     // the email is taken
/// }
/// ```
///
/// The message names the failure, the SQL and, for value access, the column, its stored
/// type and the requested Swift type. Bound values are never part of a message: they may
/// be private data.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// SQLite reported the failure; ``DatabaseError/resultCode`` says which.
        public static let sqlite = Code("sqlite")
        /// The database connection was closed before the call.
        public static let connectionClosed = Code("connection closed")
        /// A parameter name or index that the statement does not have.
        public static let unknownParameter = Code("unknown parameter")
        /// A column name or index that the row does not have.
        public static let unknownColumn = Code("unknown column")
        /// NULL read into a non-optional type.
        public static let unexpectedNull = Code("unexpected NULL")
        /// A stored type that cannot become the requested type, such as TEXT read as Int.
        public static let typeMismatch = Code("type mismatch")
        /// A number outside the range of the requested type, such as 300 read as Int8.
        public static let valueOutOfRange = Code("value out of range")
        /// A value of the right storage class whose content is invalid, such as malformed JSON or date text.
        public static let invalidValue = Code("invalid value")
        /// A row read after its statement moved on to another row.
        public static let staleRow = Code("stale row")
        /// An argument that Strata cannot use, such as a nested `beginTransaction()`.
        public static let invalidArgument = Code("invalid argument")
        /// A migration that cannot run: out of order, malformed, or newer than the code knows.
        public static let migration = Code("migration")
        /// A record that was expected to exist and does not.
        public static let recordNotFound = Code("record not found")
        /// An insert that SQLite ignored (`INSERT OR IGNORE`, `ON CONFLICT IGNORE`, `RAISE(IGNORE)`): no row was written.
        public static let recordNotInserted = Code("record not inserted")
        /// A statement refused because an earlier statement of its transaction block failed: the block (a `write`,
        /// `transaction { }`) rolls back and throws that first failure when it ends. Run a statement that may fail
        /// in a nested `transaction { }` to go on after its failure.
        public static let transactionAborted = Code("transaction aborted")
        /// The database reported an error while committing, after which the transaction may or may not be committed;
        /// check before retrying.
        ///
        /// ``DatabaseError/resultCode`` keeps the error SQLite reported, such as `SQLITE_IOERR_FSYNC`.
        public static let commitOutcomeUnknown = Code("commit outcome unknown")
    }

    /// The kind of failure.
    public let code: Code
    /// SQLite's extended result code, when SQLite reported the failure.
    public let resultCode: ResultCode?
    /// What failed, in one sentence, without the SQL.
    public let message: String
    /// The SQL that was being prepared or run, when there was one.
    public let sql: String?
    /// The column being read, when the failure concerns a value of a row.
    public let column: String?
    /// The 0-based index of that column.
    public let columnIndex: Int?
    /// The error a user type's conversion threw, when there was one.
    public let underlyingError: (any Error)?
    /// The 0-based position of the element whose insert failed, when a batch (`insert(contentsOf:)`) failed at one.
    public let elementIndex: Int?

    @usableFromInline
    package init(
        code: Code,
        resultCode: ResultCode? = nil,
        message: String,
        sql: String? = nil,
        column: String? = nil,
        columnIndex: Int? = nil,
        underlyingError: (any Error)? = nil,
        elementIndex: Int? = nil
    ) {
        self.code = code
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.column = column
        self.columnIndex = columnIndex
        self.underlyingError = underlyingError
        self.elementIndex = elementIndex
    }

    /// `SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: u.k - while executing `INSERT ...``
    public var description: String {
        var text: String
        if let resultCode {
            text = "SQLite error \(resultCode.primary.rawValue) (\(resultCode.name)): \(message)"
        } else {
            text = message
        }
        if let column {
            text += " - column \"\(column)\""
            if let columnIndex { text += " (index \(columnIndex))" }
        } else if let columnIndex {
            text += " - column index \(columnIndex)"
        }
        if let elementIndex {
            text += " - element \(elementIndex) of the batch"
        }
        if let sql {
            text += " - while executing `\(sql)`"
        }
        return text
    }

    /// The same error, located at a column (and statement) once the caller knows them.
    package func located(column: String?, index: Int?, sql: String?) -> DatabaseError {
        DatabaseError(
            code: code,
            resultCode: resultCode,
            message: message,
            sql: self.sql ?? sql,
            column: self.column ?? column,
            columnIndex: self.columnIndex ?? index,
            underlyingError: underlyingError,
            elementIndex: elementIndex
        )
    }

    /// The same error, located at the element of a batch whose insert failed.
    package func atElement(_ index: Int) -> DatabaseError {
        DatabaseError(
            code: code, resultCode: resultCode, message: message, sql: sql, column: column, columnIndex: columnIndex,
            underlyingError: underlyingError, elementIndex: index)
    }
}

extension DatabaseError {
    package static func closed(sql: String? = nil) -> DatabaseError {
        DatabaseError(code: .connectionClosed, message: "the database connection is closed", sql: sql)
    }

    /// A value that cannot become `requested`: `could not decode Int8 from INTEGER (out of range)`.
    ///
    /// Inlinable, as it was when it lived in Strata's module: called across the module boundary from the
    /// integer reads of generated records, it left their `Int` and `Int64` bodies alike enough for the optimizer
    /// to merge them behind a thunk, which cost `strata-table` FETCH 76 instructions a row (callgrind).
    @inlinable
    package static func conversion(
        _ code: Code,
        from value: DatabaseValue,
        to requested: Any.Type,
        reason: String? = nil
    ) -> DatabaseError {
        var message = "could not decode \(requested) from \(value.storageClassName)"
        if let reason { message += " (\(reason))" }
        return DatabaseError(code: code, message: message)
    }
}

extension DatabaseError {
    /// This error with `sql` as the SQL it concerns.
    package func withSQL(_ sql: String) -> DatabaseError {
        DatabaseError(
            code: code, resultCode: resultCode, message: message, sql: sql, column: column, columnIndex: columnIndex,
            underlyingError: underlyingError)
    }
}

extension DatabaseError {
    /// The refusal of a statement that runs after `failure` in the same transaction block.
    package static func transactionAborted(by failure: DatabaseError, sql: String?) -> DatabaseError {
        DatabaseError(
            code: .transactionAborted,
            message: "the transaction was aborted by an earlier failed statement (\(failure.summary)); it rolls "
                + "back when its block ends: run a statement that may fail in a nested transaction { } to go on "
                + "after its failure",
            sql: sql, underlyingError: failure)
    }

    /// The error in a few words, without its SQL: `SQLITE_CONSTRAINT_UNIQUE: UNIQUE constraint failed: u.k`.
    package var summary: String {
        resultCode.map { "\($0.name): \(message)" } ?? message
    }
}
