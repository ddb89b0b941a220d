internal import CSQLite
public import Foundation

/// One connection to a SQLite database.
///
/// ```swift
/// let db = try Database(path: "app.sqlite")     // created if missing, WAL journal
/// try db.execute(query: "CREATE TABLE foo (name TEXT, age INTEGER)")
/// let insert = try db.prepare(query: "INSERT INTO foo (name, age) VALUES (:name, :age)")
/// try insert.bind(value: "Bar", for: "name")
/// try insert.bind(value: 42, for: "age")
/// try insert.perform()
/// ```
///
/// A `Database` is used from one task at a time; share one between tasks through
/// ``DatabasePool`` or ``DatabaseQueue``. Foreign keys are enforced and the busy timeout is
/// five seconds unless you change them.
///
/// See https://www.sqlite.org/c3ref/open.html
public final class Database {
    /// The handle this database shares with its statements.
    let connection: Connection

    /// The SQLite handle; nil once closed.
    var handle: OpaquePointer? { connection.handle }

    /// The file path, or `":memory:"`.
    public let path: String
    /// Whether the connection was opened read-only.
    public let isReadOnly: Bool

    /// How statements prepared from now on store dates. Each statement can override it.
    @exclusivity(unchecked) public var dateStrategy: DateStrategy = .text
    /// How statements prepared from now on store arrays and nested values. Each statement can override it.
    @exclusivity(unchecked) public var arrayStrategy: ArrayStrategy = .json
    /// How statements prepared from now on store UUIDs. Each statement can override it.
    @exclusivity(unchecked) public var uuidStrategy: UUIDStrategy = .blob

    var strategies: ValueStrategies {
        ValueStrategies(date: dateStrategy, array: arrayStrategy, uuid: uuidStrategy)
    }

    /// Prepared statements kept for reuse, keyed by SQL (see `cachedStatement(for:)`).
    @exclusivity(unchecked) var statementCache = StatementCache()

    /// SQL built for each record type, by type (see `RecordSQL`).
    @exclusivity(unchecked) var recordSQLCache = TypeCache<RecordStatements>()

    /// The SQL of each record type that needs no instance: find, fetch all, delete by id (see `TableSQL`).
    @exclusivity(unchecked) var tableSQLCache = TypeCache<TableStatements>()
    /// The tables the statements of observations read (see ``tablesRead(during:)``); nil until one reads.
    @exclusivity(unchecked) var readTablesCache: ReadTablesCache?

    private var savepointDepth = 0

    /// Opens the database file at `path`, creating it when missing and `readOnly` is false.
    ///
    /// A writable file database is switched to the WAL journal. A read-only one is left
    /// exactly as it is: nothing in the file is changed.
    ///
    /// `busyTimeout` is set before anything takes a lock: opening a file that another process is
    /// migrating or switching to WAL waits up to that long, as every later statement does.
    ///
    /// - Throws: `DatabaseError` when the file cannot be opened or is not a database.
    public init(path: String, readOnly: Bool = false, busyTimeout: TimeInterval = 5) throws {
        self.path = path
        self.isReadOnly = readOnly
        let inMemory = path == ":memory:" || path.isEmpty
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let connection = opened else {
            let error = DatabaseError.sqlite(result, connection: opened)
            sqlite3_close_v2(opened)
            throw error.withMessage("could not open database at \(path): \(error.message)")
        }
        self.connection = Connection(handle: connection)
        sqlite3_extended_result_codes(connection, 1)
        // A double-quoted name that matches no column is an error, never a string literal.
        _ = strata_disable_double_quoted_strings(connection)
        self.busyTimeout = busyTimeout
        applyBusyTimeout(busyTimeout, to: connection)
        DecimalCollation.register(on: connection)
        do {
            // Reading the schema catches a file that is not a database now, not at the first query.
            try execute(query: "SELECT count(*) FROM sqlite_schema")
            try execute(query: "PRAGMA foreign_keys = ON")
            if !readOnly && !inMemory {
                try switchToWAL()
            }
        } catch let error as DatabaseError {
            close()
            // A file that is not a database fails here, not in sqlite3_open_v2: say which file.
            throw error.withMessage("could not open database at \(path): \(error.message)")
        } catch {
            close()
            throw error
        }
    }

    /// Opens a private in-memory database, gone when closed.
    public convenience init() throws {
        try self.init(path: ":memory:")
    }

    // No deinit: the connection closes when its last owner goes, this database or a statement the
    // caller still holds (see `Connection`). The statement cache releases its statements with it.

    /// Set on a connection a ``DatabasePool`` or ``DatabaseQueue`` owns: ``close()`` inside one of their
    /// blocks is refused (the block throws), so the pool never lends a closed connection.
    @exclusivity(unchecked) var isOwnedByPool = false
    /// Set when ``close()`` was called on a connection the pool owns, until the block that called it ends.
    @exclusivity(unchecked) var closeWasRefused = false

    /// Closes the connection now. Safe to call twice; statements still alive throw
    /// `DatabaseError.Code.connectionClosed` from then on.
    ///
    /// **Inside a ``DatabasePool`` or ``DatabaseQueue`` block, the connection stays open and the block
    /// throws** `DatabaseError.Code.invalidArgument` (a write rolls back): the pool owns its connections
    /// and closes them in its own `close()`.
    public func close() {
        if isOwnedByPool {
            closeWasRefused = true
            return
        }
        closeConnection()
    }

    /// Closes the connection, whoever owns it.
    func closeConnection() {
        statementCache.removeAll()
        recordSQLCache.removeAll()
        tableSQLCache.removeAll()
        connection.close()
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    /// The connection, or a thrown ``DatabaseError/Code/connectionClosed``.
    @inline(__always)
    func openHandle(sql: String? = nil) throws -> OpaquePointer {
        try connection.openHandle(sql: sql)
    }

    /// Runs one or more SQL statements separated by semicolons, discarding any rows.
    ///
    /// Statements before a failing one stay applied unless you run them in a ``transaction(_:_:)``.
    ///
    /// ```swift
    /// try db.execute(query: """
    ///     CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    ///     CREATE INDEX author_name ON author (name);
    ///     """)
    /// ```
    ///
    /// - Throws: `DatabaseError` naming the statement that failed; `DatabaseError.Code.unknownParameter` for a
    ///   statement with a parameter (`?`, `:name`), which has no value here: bind values with an `SQL` value or
    ///   ``execute(query:parameters:encoder:)``, one statement at a time.
    public func execute(query: String) throws {
        let connection = try openHandle(sql: query)
        try checkNoNULCharacter(in: query)
        let transactionGuard = self.connection.transactionGuard
        try query.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                transactionGuard.preparedTransactionControl = false
                transactionGuard.preparedSavepoint = false
                transactionGuard.preparedCommit = false
                transactionGuard.preparedSchemaChange = false
                let prepared = sqlite3_prepare_v2(connection, current, -1, &statement, &tail)
                let isBlockControl = transactionGuard.preparedTransactionControl || transactionGuard.preparedSavepoint
                guard prepared == SQLITE_OK else {
                    // After a failure the tail points where parsing stopped, maybe inside the statement.
                    let sql = Self.statement(at: current)
                    let error = transactionGuard.explain(
                        DatabaseError.sqlite(prepared, connection: connection, sql: sql), sql: sql)
                    self.connection.recordFailure(error)
                    self.connection.observer?.failed(error, statement: nil, sql: sql)
                    if !isBlockControl { self.connection.statementFailed(error) }
                    throw error
                }
                next = tail
                // Whitespace or a comment compiles to no statement.
                guard let statement else { continue }
                self.connection.observer?.register(statement)
                defer {
                    sqlite3_finalize(statement)
                    self.connection.observer?.forget(statement)
                }
                if self.connection.isAborted, !isBlockControl {
                    throw self.connection.abortedRefusal(sql: sqlite3_sql(statement).map { String(cString: $0) })
                }
                // Text without values: a parameter in it would run as NULL.
                if sqlite3_bind_parameter_count(statement) > 0 {
                    throw DatabaseError.noValue(
                        forParameter: 1, of: statement, sql: sqlite3_sql(statement).map { String(cString: $0) })
                }
                // As `Statement.commitsWrites(_:)`: a failed COMMIT of a transaction that only read is its error.
                let committingWrites = transactionGuard.preparedCommit && holdsWriteTransaction(connection)
                let changesSchema = transactionGuard.preparedSchemaChange
                self.connection.willRun(
                    sql: sqlite3_sql(statement).map { String(cString: $0) } ?? "", changesSchema: changesSchema)
                var stepped = sqlite3_step(statement)
                while stepped == SQLITE_ROW {
                    stepped = sqlite3_step(statement)
                }
                guard stepped == SQLITE_DONE else {
                    let sql = sqlite3_sql(statement).map { String(cString: $0) }
                    var error = DatabaseError.sqlite(stepped, connection: connection, sql: sql)
                    if committingWrites {
                        error = error.atCommit(on: connection)
                    }
                    self.connection.recordFailure(error)
                    self.connection.observer?.failed(error, statement: statement, sql: sql)
                    if !isBlockControl { self.connection.statementFailed(error) }
                    throw error
                }
                self.connection.observer?.flush()
            }
        }
    }

    /// Compiles one SQL statement for binding and running.
    ///
    /// The statement takes the database's date, array and UUID strategies.
    ///
    /// - Throws: `DatabaseError` for malformed SQL, and for text holding more than one statement.
    ///
    /// See https://www.sqlite.org/c3ref/prepare.html
    public func prepare(query: String) throws -> Statement {
        try Statement(database: self, sql: query)
    }

    /// The rowid of the most recent successful INSERT on this connection, 0 when there was none.
    ///
    /// - Throws: `DatabaseError.Code.connectionClosed` after ``close()``, as every other read of the
    ///   connection's state does.
    ///
    /// See https://www.sqlite.org/c3ref/last_insert_rowid.html
    public var lastInsertedId: Int64 {
        get throws { sqlite3_last_insert_rowid(try openHandle()) }
    }

    /// The rows changed by the most recent INSERT, UPDATE or DELETE.
    ///
    /// - Throws: `DatabaseError.Code.connectionClosed` after ``close()``.
    ///
    /// See https://www.sqlite.org/c3ref/changes.html
    public var changes: Int {
        get throws { Int(sqlite3_changes64(try openHandle())) }
    }

    /// The rows changed since the connection opened.
    ///
    /// - Throws: `DatabaseError.Code.connectionClosed` after ``close()``.
    public var totalChanges: Int {
        get throws { Int(sqlite3_total_changes64(try openHandle())) }
    }

    /// The version of the SQLite library in use, such as `3.40.1`.
    public var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }

    /// How long a statement waits for a lock held by another connection before failing with
    /// `ResultCode.busy`, in seconds. Five seconds by default; 0 fails at once.
    ///
    /// See https://www.sqlite.org/c3ref/busy_timeout.html
    public var busyTimeout: TimeInterval {
        didSet {
            guard let handle else { return }
            applyBusyTimeout(busyTimeout, to: handle)
        }
    }

    private func applyBusyTimeout(_ seconds: TimeInterval, to handle: OpaquePointer) {
        let milliseconds = (seconds * 1000).rounded()
        let clamped = milliseconds.isNaN ? 0 : Int32(max(0, min(milliseconds, Double(Int32.max))))
        if let observer = connection.observer {
            observer.installBusyHandler(timeout: clamped)
        } else {
            sqlite3_busy_timeout(handle, clamped)
        }
    }

    /// What this connection reports about its statements: logs, spans, metrics (see `DatabaseObservability`).
    /// Nothing by default.
    ///
    /// ```swift
    /// db.observability = DatabaseObservability(logger: logger)
    /// ```
    public var observability: DatabaseObservability {
        get { connection.observer?.settings ?? DatabaseObservability() }
        set {
            guard let handle else { return }
            let observer = newValue.isOff ? nil : StatementObserver(newValue, handle: handle)
            connection.observer = observer
            StatementObserver.install(observer, on: handle)
            applyBusyTimeout(busyTimeout, to: handle)
        }
    }

    /// Switches a new connection's file to WAL, waiting out other connections as the busy timeout says.
    ///
    /// Changing the journal mode needs the file to itself, and SQLite reports `SQLITE_BUSY` at once, without
    /// calling the busy handler, when another connection is opening the same file: so the switch is retried
    /// until ``busyTimeout`` has passed. A file already in WAL takes no lock at all.
    private func switchToWAL() throws {
        let deadline = ContinuousClock.now + .milliseconds(Int((max(0, busyTimeout) * 1000).rounded()))
        var pause = Duration.milliseconds(1)
        while true {
            do {
                if try journalMode == .wal { return }
                try setJournalMode(.wal)
                return
            } catch let error as DatabaseError where error.resultCode?.primary == .busy {
                guard ContinuousClock.now < deadline else { throw error }
                self.connection.observer?.countBusyRetry()
                Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// The next savepoint name for a nested transaction.
    func nextSavepointName() -> String {
        savepointDepth += 1
        return "strata_savepoint_\(savepointDepth)"
    }

    func releaseSavepointName() {
        savepointDepth -= 1
    }

    /// The statement that starts at `start`: up to the first semicolon that completes it, or the rest of the text.
    private static func statement(at start: UnsafePointer<CChar>) -> String {
        let rest = String(cString: start)
        var candidate = ""
        for character in rest {
            candidate.append(character)
            if character == ";" && sqlite3_complete(candidate) != 0 { break }
        }
        return candidate.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Throws for SQL text with a NUL character, which SQLite would read only up to: the rest would be silently dropped.
func checkNoNULCharacter(in sql: String) throws {
    guard !sql.utf8.contains(0) else {
        throw DatabaseError(
            code: .invalidArgument,
            message: "the SQL text contains a NUL character, where SQLite would stop reading it",
            sql: sql.replacingOccurrences(of: "\u{0}", with: "\\0"))
    }
}

extension DatabaseError {
    func withMessage(_ message: String) -> DatabaseError {
        DatabaseError(
            code: code, resultCode: resultCode, sqlState: sqlState, message: message, detail: detail, sql: sql,
            column: column,
            columnIndex: columnIndex, underlyingError: underlyingError)
    }
}
