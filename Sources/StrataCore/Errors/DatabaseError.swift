/// The error Strata throws on every backend: what failed, where, and the database's own code for it.
///
/// Match on ``code`` for the kind of failure: the codes mean the same on SQLite and PostgreSQL, so that one `catch`
/// serves both backends.
///
/// ```swift
/// do {
///     try db.execute(query: "INSERT INTO user (email) VALUES ('a@b.c')")
/// } catch let error as DatabaseError where error.code == .uniqueViolation {
///     // the email is taken
/// }
/// ```
///
/// The database's own code stays for what the semantic codes do not say: ``resultCode`` on SQLite
/// (`error.resultCode == .constraintUnique`), ``sqlState`` on PostgreSQL (`error.sqlState == "23505"`). A failure
/// that has no semantic code keeps a generic one: ``Code/sqlite`` for SQLite's, ``Code/server`` for PostgreSQL's.
///
/// | Code | SQLite | PostgreSQL |
/// | --- | --- | --- |
/// | ``Code/uniqueViolation`` | `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_CONSTRAINT_PRIMARYKEY` | `23505` |
/// | ``Code/foreignKeyViolation`` | `SQLITE_CONSTRAINT_FOREIGNKEY` | `23503` |
/// | ``Code/notNullViolation`` | `SQLITE_CONSTRAINT_NOTNULL` | `23502` |
/// | ``Code/checkViolation`` | `SQLITE_CONSTRAINT_CHECK` | `23514` |
/// | ``Code/busy`` | `SQLITE_BUSY`, `SQLITE_LOCKED` and their extended codes but one | `55P03` |
/// | ``Code/serializationFailure`` | `SQLITE_BUSY_SNAPSHOT` | `40001`, `40P01` |
/// | ``Code/readOnly`` | `SQLITE_READONLY` and its extended codes | `25006` |
/// | ``Code/authenticationFailed`` | | `28000`, `28P01` |
/// | ``Code/databaseMissing`` | | `3D000` |
///
/// The message names the failure, the SQL and, for value access, the column, its stored type and the requested
/// Swift type. Bound values are never part of the ``description``: they may be private data. Neither is
/// PostgreSQL's ``detail`` line, which quotes row values, nor the value a PostgreSQL data exception's message quotes
/// (SQLSTATE class 22, such as `invalid input syntax for type integer: "…"`). The properties keep the database's
/// text as it came.
///
/// See https://www.sqlite.org/rescode.html and https://www.postgresql.org/docs/current/errcodes-appendix.html
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; match the ones you handle.
    ///
    /// The codes of a statement the database refused (``uniqueViolation``, ``busy``...) mean the same on every
    /// backend; ``DatabaseError/resultCode`` and ``DatabaseError/sqlState`` keep each backend's own code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        // MARK: Statements the database refused

        /// A row would repeat the value of a unique column or primary key: SQLite's `SQLITE_CONSTRAINT_UNIQUE` or
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`, PostgreSQL's `23505` (unique_violation).
        public static let uniqueViolation = Code("unique violation")
        /// A row would refer to a missing row, or a referenced row would be deleted or changed:
        /// SQLite's `SQLITE_CONSTRAINT_FOREIGNKEY`, PostgreSQL's `23503` (foreign_key_violation).
        public static let foreignKeyViolation = Code("foreign key violation")
        /// NULL written into a `NOT NULL` column: SQLite's `SQLITE_CONSTRAINT_NOTNULL`, PostgreSQL's `23502`
        /// (not_null_violation).
        public static let notNullViolation = Code("not null violation")
        /// A row a `CHECK` constraint refused: SQLite's `SQLITE_CONSTRAINT_CHECK`, PostgreSQL's `23514`
        /// (check_violation).
        public static let checkViolation = Code("check violation")
        /// A lock another connection holds was not given in time: SQLite's `SQLITE_BUSY` and `SQLITE_LOCKED` (and
        /// their extended codes, but `SQLITE_BUSY_SNAPSHOT`) once the busy timeout ran out, PostgreSQL's `55P03`
        /// (lock_not_available, with `NOWAIT` or `lock_timeout`). The statement may succeed when run again.
        public static let busy = Code("busy")
        /// The transaction cannot go on as it began, because another transaction changed what it read or waits for
        /// it: PostgreSQL's `40001` (serialization_failure) and `40P01` (deadlock_detected), SQLite's
        /// `SQLITE_BUSY_SNAPSHOT` (a transaction that read an older snapshot of a WAL database cannot write).
        /// **Run the whole transaction again**, not the statement: the transaction rolls back.
        public static let serializationFailure = Code("serialization failure")
        /// A write refused because the connection or transaction is read-only, such as a write in a `read` block:
        /// SQLite's `SQLITE_READONLY` (and its extended codes), PostgreSQL's `25006` (read_only_sql_transaction).
        public static let readOnly = Code("read only")
        /// SQLite reported a failure that has no code of its own here; ``DatabaseError/resultCode`` says which.
        public static let sqlite = Code("sqlite")
        /// PostgreSQL rejected a statement for a reason that has no code of its own here;
        /// ``DatabaseError/sqlState`` says why.
        public static let server = Code("server")

        // MARK: Connections

        /// The server could not be reached: nothing listens at the address, or the network failed.
        public static let connectionFailed = Code("connection failed")
        /// The server refused the user: a wrong password, an unknown role, or no `pg_hba.conf` entry (PostgreSQL's
        /// `28000` and `28P01`).
        public static let authenticationFailed = Code("authentication failed")
        /// The database the URL names does not exist (PostgreSQL's `3D000`).
        public static let databaseMissing = Code("database missing")
        /// The connection URL cannot be used.
        public static let invalidURL = Code("invalid URL")
        /// The database connection was closed before the call; on PostgreSQL, the pool was closed (its `close()` was
        /// called, or its `run()` ended) before the request.
        public static let connectionClosed = Code("connection closed")
        /// The connection broke before the statement's answer came: the server ended it (a restart,
        /// `pg_terminate_backend`, `idle_in_transaction_session_timeout`) or the network failed. **Nothing of the
        /// `write` it ran in committed**; a pool opens a new connection for the next request.
        public static let connectionLost = Code("connection lost")

        // MARK: Strata's checks

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

        // MARK: Transactions

        /// A statement refused because an earlier statement of its transaction block failed: the block (a `write`,
        /// `transaction { }`) rolls back and throws that first failure when it ends. Run a statement that may fail
        /// in a nested `transaction { }` to go on after its failure.
        public static let transactionAborted = Code("transaction aborted")
        /// The database reported an error while committing, or the connection broke while `COMMIT` ran, after which
        /// the transaction may or may not be committed; check before retrying.
        ///
        /// ``DatabaseError/resultCode`` keeps the error SQLite reported, such as `SQLITE_IOERR_FSYNC`.
        public static let commitOutcomeUnknown = Code("commit outcome unknown")
    }

    /// The kind of failure.
    public let code: Code
    /// SQLite's extended result code, when SQLite reported the failure.
    public let resultCode: ResultCode?
    /// The five-character SQLSTATE, when PostgreSQL reported the failure (`23505`, `42P01`...).
    ///
    /// See https://www.postgresql.org/docs/current/errcodes-appendix.html
    public let sqlState: String?
    /// What failed, in one sentence, without the SQL: the database's own message when it reported the failure.
    ///
    /// The message of a PostgreSQL data exception (SQLSTATE class 22) may quote the value that failed, which may be
    /// private data: `invalid input syntax for type integer: "12a"`. The ``description`` shows it with the quoted
    /// text replaced by `"…"`.
    public let message: String
    /// PostgreSQL's detail line, when it sent one: the conflicting key of a unique violation
    /// (`Key (email)=(ada@example.com) already exists.`), the row a constraint refused (`Failing row contains
    /// (...)`). **It quotes row values, which may be private data**: it is never part of the ``description``; log it
    /// only where such data may go.
    public let detail: String?
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

    /// An error with `code` and `message`: what a backend (a ``ColumnReader``, a driver) throws. `message` names what
    /// failed in one line and never holds a bound value; native detail goes in `resultCode` or `sqlState`, text the
    /// server sent that may quote values in `detail`.
    public init(
        code: Code,
        resultCode: ResultCode? = nil,
        sqlState: String? = nil,
        message: String,
        detail: String? = nil,
        sql: String? = nil,
        column: String? = nil,
        columnIndex: Int? = nil,
        underlyingError: (any Error)? = nil,
        elementIndex: Int? = nil
    ) {
        self.code = code
        self.resultCode = resultCode
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.sql = sql
        self.column = column
        self.columnIndex = columnIndex
        self.underlyingError = underlyingError
        self.elementIndex = elementIndex
    }

    /// The error in one line: the native code, the message and the SQL, as in
    /// `SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE): UNIQUE constraint failed: u.k - while executing INSERT ...` or
    /// `PostgreSQL error 23505: duplicate key value violates unique constraint "u_k_key" - while executing ...`
    /// (the SQL is shown between backquotes).
    ///
    /// Without ``detail``, and with the values a PostgreSQL data exception's message quotes hidden.
    public var description: String {
        var text: String
        if let resultCode {
            text = "SQLite error \(resultCode.primary.rawValue) (\(resultCode.name)): \(message)"
        } else {
            text = summary
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
            sqlState: sqlState,
            message: message,
            detail: detail,
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
            code: code, resultCode: resultCode, sqlState: sqlState, message: message, detail: detail, sql: sql,
            column: column, columnIndex: columnIndex, underlyingError: underlyingError, elementIndex: index)
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
    /// The refusal of a text of several statements where one is taken, before any of it runs, on every backend: by a
    /// fetch, a prepared statement, and an `execute` whose SQL binds values (each statement binds its own).
    package static func severalStatements(sql: String) -> DatabaseError {
        DatabaseError(
            code: .invalidArgument,
            message: "the SQL holds more than one statement: only execute runs several, one after another, and only "
                + "when none binds a value",
            sql: sql)
    }
}

extension DatabaseError {
    /// This error with `sql` as the SQL it concerns.
    package func withSQL(_ sql: String) -> DatabaseError {
        DatabaseError(
            code: code, resultCode: resultCode, sqlState: sqlState, message: message, detail: detail, sql: sql,
            column: column, columnIndex: columnIndex, underlyingError: underlyingError)
    }
}

extension DatabaseError {
    /// The refusal of a statement that runs after `failure` in the same transaction block: a statement the database
    /// rejected, a cancelled task, or rows a write returned that did not decode.
    package static func transactionAborted(by failure: any Error, sql: String?) -> DatabaseError {
        DatabaseError(
            code: .transactionAborted,
            message: "the transaction was aborted by an earlier failed statement (\(summary(of: failure))); it rolls "
                + "back when its block ends: run a statement that may fail in a nested transaction { } to go on "
                + "after its failure",
            sql: sql, underlyingError: failure)
    }

    /// Whether `error`, thrown by a statement that writes rows and reads them back (an insert read back, `RETURNING`),
    /// fails the transaction block it runs in, as a statement the database rejects does: every error but
    /// `recordNotInserted`, after which nothing was written.
    package static func failsItsBlock(readingWrittenRows error: any Error) -> Bool {
        (error as? DatabaseError)?.code != .recordNotInserted
    }

    /// `failure` in a few words, without a value: a `DecodingError` by its kind and coding path, as its description
    /// may quote what it read.
    private static func summary(of failure: any Error) -> String {
        switch failure {
        case let failure as DatabaseError:
            return failure.summary
        case is CancellationError:
            return "the task was cancelled"
        case let failure as DecodingError:
            let (kind, context): (String, DecodingError.Context?) =
                switch failure {
                case .typeMismatch(_, let context): ("a type mismatch", context)
                case .valueNotFound(_, let context): ("a missing value", context)
                case .keyNotFound(_, let context): ("a missing key", context)
                case .dataCorrupted(let context): ("corrupted data", context)
                @unknown default: ("an error", nil)
                }
            let path = context?.codingPath.map(\.stringValue).joined(separator: ".") ?? ""
            return "a row did not decode: \(kind)" + (path.isEmpty ? "" : " at \(path)")
        default:
            return "\(type(of: failure))"
        }
    }

    /// The error in a few words, without its SQL: `SQLITE_CONSTRAINT_UNIQUE: UNIQUE constraint failed: u.k`,
    /// `PostgreSQL error 22P02: invalid input syntax for type integer: "…"` (without the detail, and with the values
    /// a data exception's message quotes hidden).
    package var summary: String {
        if let resultCode { return "\(resultCode.name): \(message)" }
        if let sqlState { return "PostgreSQL error \(sqlState): \(Self.hidingValues(in: message, sqlState: sqlState))" }
        return message
    }
}

extension DatabaseError {
    /// The error of a ``DatabaseValueConvertible`` conversion that threw an error of its own, kept underneath.
    package static func failedConversion(_ error: any Error, reading type: Any.Type, from value: DatabaseValue)
        -> DatabaseError
    {
        DatabaseError(
            code: .invalidValue, message: "could not decode \(type) from \(value.storageClassName): \(error)",
            underlyingError: error)
    }
}
