internal import CSQLite
import Foundation

/// A prepared SQL statement: bind parameters, run it, read its rows, reset and run again.
///
/// ```swift
/// let select = try db.prepare(query: "SELECT name, age FROM foo WHERE age > :min")
/// try select.bind(value: 18, for: "min")
/// while let row = try select.next() {
///     let name: String = try row.name
/// }
/// ```
///
/// A statement belongs to its ``Database`` and is finalized when released; closing the
/// database first is safe, and the statement then throws `DatabaseError.Code.connectionClosed`.
///
/// See https://www.sqlite.org/c3ref/stmt.html
public final class Statement {
    /// The handle shared with the database; not the database itself, so a statement the
    /// database caches does not keep it alive.
    let connection: Connection
    let handle: OpaquePointer

    /// The SQL text the statement was prepared from.
    public let sql: String

    /// The number of columns each row has.
    ///
    /// A statement whose SQL depends on the schema (`SELECT *`) is compiled again by SQLite when the
    /// schema changes; its columns are then read again at the next step, so they always describe the
    /// rows the statement returns.
    ///
    /// Read for every row; a statement is used by one task at a time and never re-entrantly, so the
    /// dynamic exclusivity check is turned off, as on the rest of its per-call state.
    @exclusivity(unchecked) public private(set) var columnCount: Int

    /// The names of the result columns, in order. Kept true across schema changes, as ``columnCount`` is.
    @exclusivity(unchecked) public private(set) var columnNames: [String]

    /// The number of parameters, named and positional.
    public let parameterCount: Int

    /// Date, array and UUID strategies, taken from the database at preparation.
    @exclusivity(unchecked) var strategies: ValueStrategies

    /// Bumped whenever the statement moves: rows remember the generation they were read at.
    ///
    /// Read on every column access; a statement is used by one task at a time and never re-entrantly,
    /// so the dynamic exclusivity check is turned off.
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0

    /// Set when `next()` has reached the end, until the next reset.
    @exclusivity(unchecked) private var isExhausted = false

    /// The error that ended the last `for row in statement` loop, nil when it ran to the end.
    ///
    /// A `for`-`in` loop cannot throw from the sequence, so a failure while stepping ends the
    /// loop and is kept here. Check it after the loop, or use the throwing cursor ``next()``.
    @exclusivity(unchecked) public internal(set) var iterationError: (any Error)?

    @exclusivity(unchecked) private var columnIndexCache: [String: Int32]?

    /// How many times SQLite had compiled the statement again when its columns were last read
    /// (`SQLITE_STMTSTATUS_REPREPARE`): a change means the schema changed and the columns may have too.
    @exclusivity(unchecked) private var reprepareCount: Int32 = 0

    /// Set by the first step of a run, cleared when the run ends: SQLite recompiles a statement only at
    /// the first step of a run, so the columns are checked once per run, not once per row.
    @exclusivity(unchecked) private var isRunning = false

    /// Key-to-column and key-to-parameter maps kept by ``RowDecoder`` and ``StatementEncoder`` (see `CodingCache`).
    @exclusivity(unchecked) var codingCache: CodingCache?

    /// Set while a cached statement is in use by a fetch, so that a nested fetch of the same SQL prepares its own.
    @usableFromInline @exclusivity(unchecked) var isLeased = false
    @exclusivity(unchecked) private var parameterIndexCache: [String: [Int32]]?

    /// Whether the statement is `BEGIN`, `COMMIT` or `ROLLBACK`, refused inside blocks that own their
    /// transaction (see `TransactionControlGuard`).
    private let isTransactionControl: Bool

    /// Whether the statement is transaction control or a savepoint's (`SAVEPOINT`, `RELEASE`, `ROLLBACK TO`): what
    /// ends a failed block runs, so it is never refused as a statement after the failure (see `Database.runBlock`).
    private let isBlockControl: Bool
    /// Whether the statement is `COMMIT` or `RELEASE`, whose failure may leave the transaction committed (see
    /// `DatabaseError.atCommit(on:)`), when the transaction wrote (see ``commitsWrites(_:)``).
    private let isCommit: Bool

    /// Whether the statement inserts, updates or deletes rows (`INSERT`, `UPDATE`, `DELETE`, `REPLACE`, with or
    /// without `RETURNING`; DDL too, which writes the schema table), as SQLite's authorizer reported it while
    /// preparing: a fetch of its `RETURNING` rows runs it atomically and to its end.
    @usableFromInline let writesRows: Bool

    /// Whether the statement may change the database without writing rows (a pragma that sets a value, such as
    /// `journal_mode`): SQLite commits it in its last step, after its row, so a fetch of its row runs it to its end,
    /// or a failure of that commit would be dropped by the reset. Statements that write rows are ``writesRows``.
    let changesDatabaseOtherwise: Bool

    /// Whether the statement changes the schema (`CREATE`, `DROP`, `ALTER`), as SQLite's authorizer reported it while
    /// preparing: noted by the connection when it runs (see `ChangeLog`).
    private let changesSchema: Bool

    init(database: Database, sql: String, persistent: Bool = false) throws {
        let databaseHandle = try database.openHandle(sql: sql)
        try checkNoNULCharacter(in: sql)
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let transactionGuard = database.connection.transactionGuard
        transactionGuard.preparedTransactionControl = false
        transactionGuard.preparedSavepoint = false
        transactionGuard.preparedCommit = false
        transactionGuard.preparedWrite = false
        transactionGuard.preparedSchemaChange = false
        var isTransactionControl = false
        var isSavepoint = false
        var isCommit = false
        var writesRows = false
        var changesSchema = false
        let prepared = try sql.withCString { start -> OpaquePointer? in
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v3(databaseHandle, start, -1, flags, &statement, &tail)
            guard result == SQLITE_OK else {
                let error = transactionGuard.explain(
                    DatabaseError.sqlite(result, connection: databaseHandle, sql: sql), sql: sql)
                database.connection.recordFailure(error)
                database.connection.observer?.failed(error, statement: nil, sql: sql)
                if !transactionGuard.preparedTransactionControl && !transactionGuard.preparedSavepoint {
                    database.connection.statementFailed(error)
                }
                throw error
            }
            isTransactionControl = transactionGuard.preparedTransactionControl
            isSavepoint = transactionGuard.preparedSavepoint
            isCommit = transactionGuard.preparedCommit
            writesRows = transactionGuard.preparedWrite
            changesSchema = transactionGuard.preparedSchemaChange
            if let tail, try Self.holdsStatement(tail, connection: databaseHandle) {
                sqlite3_finalize(statement)
                throw DatabaseError.severalStatements(sql: sql)
            }
            return statement
        }
        guard let prepared else {
            throw DatabaseError(code: .invalidArgument, message: "the SQL holds no statement", sql: sql)
        }
        self.connection = database.connection
        self.handle = prepared
        self.isTransactionControl = isTransactionControl
        self.isBlockControl = isTransactionControl || isSavepoint
        self.isCommit = isCommit
        self.writesRows = writesRows
        self.changesDatabaseOtherwise = !writesRows && sqlite3_stmt_readonly(prepared) == 0
        self.changesSchema = changesSchema
        self.sql = sql
        let columnCount = sqlite3_column_count(prepared)
        self.columnCount = Int(columnCount)
        self.columnNames = (0..<columnCount).map { Self.columnName(prepared, $0) }
        self.parameterCount = Int(sqlite3_bind_parameter_count(prepared))
        self.strategies = database.strategies
        self.reprepareCount = sqlite3_stmt_status(prepared, SQLITE_STMTSTATUS_REPREPARE, 0)
        database.connection.observer?.register(prepared)
    }

    deinit {
        // When the database was closed first, it already finalized this statement.
        if connection.handle != nil {
            sqlite3_finalize(handle)
            connection.observer?.forget(handle)
        }
    }

    /// Whether SQL text after the first statement compiles to another statement (not just a comment or `;`).
    private static func holdsStatement(_ text: UnsafePointer<CChar>, connection: OpaquePointer) throws -> Bool {
        var cursor: UnsafePointer<CChar>? = text
        while let current = cursor, current.pointee != 0 {
            var extra: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let result = sqlite3_prepare_v2(connection, current, -1, &extra, &tail)
            if extra != nil {
                sqlite3_finalize(extra)
                return true
            }
            // A malformed trailing statement is still a second statement.
            if result != SQLITE_OK { return true }
            cursor = tail
        }
        return false
    }

    // MARK: Strategies

    /// How this statement stores dates. Defaults to the database's ``Database/dateStrategy``.
    public var dateStrategy: DateStrategy {
        get { strategies.date }
        set { strategies.date = newValue }
    }

    /// How this statement stores arrays. Defaults to the database's ``Database/arrayStrategy``.
    public var arrayStrategy: ArrayStrategy {
        get { strategies.array }
        set { strategies.array = newValue }
    }

    /// How this statement stores UUIDs. Defaults to the database's ``Database/uuidStrategy``.
    public var uuidStrategy: UUIDStrategy {
        get { strategies.uuid }
        set { strategies.uuid = newValue }
    }

    // MARK: Running

    /// Runs the statement to completion, discarding any rows, then resets it for the next run.
    /// Bindings persist.
    ///
    /// - Throws: `DatabaseError` with SQLite's code and message, such as a constraint
    ///   violation; the statement is reset and the connection stays usable.
    ///
    /// See https://www.sqlite.org/c3ref/step.html
    public func perform() throws {
        let connection = try connection.openHandle(sql: sql)
        if isTransactionControl { try checkTransactionControlAllowed() }
        if self.connection.isAborted, !isBlockControl { throw self.connection.abortedRefusal(sql: sql) }
        generation &+= 1
        isExhausted = false
        isRunning = false
        defer { sqlite3_reset(handle) }
        let committingWrites = commitsWrites(connection)
        willRun()
        var result = sqlite3_step(handle)
        while result == SQLITE_ROW {
            result = sqlite3_step(handle)
        }
        guard result == SQLITE_DONE else {
            throw failure(result, connection: connection, committingWrites: committingWrites)
        }
        self.connection.observer?.flush()
    }

    /// The error of a failed step, reported to the connection's observer first, if any, and noted by the
    /// transaction block it ran in (see `Database.runBlock`).
    ///
    /// - Parameter committingWrites: Whether the statement was to commit a transaction that wrote
    ///   (``commitsWrites(_:)``, read before the step).
    private func failure(_ result: Int32, connection handle: OpaquePointer, committingWrites: Bool) -> DatabaseError {
        var error = DatabaseError.sqlite(result, connection: handle, sql: sql)
        if committingWrites {
            error = error.atCommit(on: handle)
        }
        connection.recordFailure(error)
        connection.observer?.failed(error, statement: self.handle, sql: sql)
        if !isBlockControl { connection.statementFailed(error) }
        return error
    }

    /// Advances to the next row.
    ///
    /// The returned ``Row`` reads the statement's current row: once the statement steps
    /// again or resets, reading it throws `DatabaseError.Code.staleRow`.
    ///
    /// - Returns: `.row` with the row, or `.done` when there are no more.
    /// - Throws: `DatabaseError`; the statement is then reset.
    ///
    /// See https://www.sqlite.org/c3ref/step.html
    public func step() throws -> StepResult {
        try stepOnce() ? .row(Row(statement: self, generation: generation)) : .done
    }

    /// One step: true when it produced a row. `step()` and `next()` without the ``Row``, whose reference to the
    /// statement costs a retain and a release per row in a fetch loop.
    private func stepOnce() throws -> Bool {
        let connection = try connection.openHandle(sql: sql)
        if isTransactionControl { try checkTransactionControlAllowed() }
        if self.connection.isAborted, !isBlockControl { throw self.connection.abortedRefusal(sql: sql) }
        generation &+= 1
        let result: Int32
        // Only a first step can commit: COMMIT has no rows.
        var committingWrites = false
        if isRunning {
            result = sqlite3_step(handle)
        } else {
            committingWrites = commitsWrites(connection)
            willRun()
            result = sqlite3_step(handle)
            isRunning = true
            refreshColumnsIfRecompiled()
        }
        switch result {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            isRunning = false
            self.connection.observer?.flush()
            return false
        default:
            isRunning = false
            let error = failure(result, connection: connection, committingWrites: committingWrites)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Tells the connection that this statement is about to run its first step, when it notes statements (for an
    /// observation) or this one changes the schema.
    @inline(__always)
    private func willRun() {
        connection.willRun(sql: sql, changesSchema: changesSchema)
    }

    /// Whether this statement, about to run, may commit a transaction that wrote: only then can its failure leave
    /// the outcome unknown. A transaction that only read (a pool's `read`) wrote nothing to commit, so a failed
    /// `COMMIT` of it is the error it is.
    private func commitsWrites(_ connection: OpaquePointer) -> Bool {
        isCommit && holdsWriteTransaction(connection)
    }

    /// Throws when a block owns the connection's transaction: this statement, prepared before, is transaction control.
    private func checkTransactionControlAllowed() throws {
        if let refusal = connection.transactionGuard.refusal {
            throw refusal.refusing(sql: sql, resultCode: nil)
        }
    }

    /// Reads the columns again when SQLite recompiled the statement since they were last read.
    ///
    /// After a schema change SQLite recompiles a statement at its next step, and `SELECT *` may then
    /// return other columns, or the same ones in another order: the names, the name map and the
    /// coding cache's key-to-column slots are rebuilt, so no row is ever read through stale indexes.
    /// One call into SQLite per run.
    ///
    /// See https://www.sqlite.org/c3ref/stmt_status.html
    private func refreshColumnsIfRecompiled() {
        let count = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        guard count != reprepareCount else { return }
        reprepareCount = count
        let newCount = sqlite3_column_count(handle)
        let names = (0..<newCount).map { Self.columnName(handle, $0) }
        guard names != columnNames else { return }
        columnNames = names
        columnCount = Int(newCount)
        columnIndexCache = nil
        codingCache?.columnsChanged()
    }

    /// The throwing cursor: the next row, or nil at the end (and on every call after it,
    /// until ``reset()``).
    ///
    /// ```swift
    /// while let row = try statement.next() { ... }
    /// ```
    public func next() throws -> Row? {
        try advance() ? Row(statement: self, generation: generation) : nil
    }

    /// Moves to the next row as ``next()`` does: true when there is one, false at the end (and on every call after
    /// it, until ``reset()``).
    @usableFromInline
    func advance() throws -> Bool {
        // A closed connection throws even when the statement had already finished.
        _ = try connection.openHandle(sql: sql)
        if isExhausted { return false }
        if try stepOnce() { return true }
        isExhausted = true
        return false
    }

    /// Rewinds the statement so it can run again. Bindings persist until rebound or cleared.
    ///
    /// See https://www.sqlite.org/c3ref/reset.html
    public func reset() {
        generation &+= 1
        isExhausted = false
        isRunning = false
        iterationError = nil
        guard connection.handle != nil else { return }
        sqlite3_reset(handle)
        connection.observer?.flush()
    }

    /// Readies the statement for a new set of bindings: rows read before are stale; the statement
    /// is rewound only when it is mid-run (a finished or reset one takes bindings as it is, and a
    /// bind that still meets a finished run resets it, see `bindChecked`). `clearing` sets every
    /// parameter back to NULL first; records skip it because they bind every parameter anyway.
    func prepareForBinding(clearing: Bool) {
        generation &+= 1
        isExhausted = false
        isRunning = false
        iterationError = nil
        guard connection.handle != nil else { return }
        if sqlite3_stmt_busy(handle) != 0 {
            sqlite3_reset(handle)
        }
        if clearing {
            sqlite3_clear_bindings(handle)
        }
    }

    /// Whether the statement has stepped and not yet finished or been reset: a caller may still be reading its rows.
    ///
    /// See https://www.sqlite.org/c3ref/stmt_busy.html
    var isMidRun: Bool {
        connection.handle != nil && sqlite3_stmt_busy(handle) != 0
    }

    /// Sets every parameter back to NULL.
    ///
    /// See https://www.sqlite.org/c3ref/clear_bindings.html
    public func clearBindings() {
        guard connection.handle != nil else { return }
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns and parameters

    /// The names of the parameters, without their `:`, `@` or `$` prefix; positional `?` parameters are left out.
    public var parameterNames: [String] {
        parameterIndexes().sorted { $0.value[0] < $1.value[0] }.map(\.key)
    }

    /// The index of the column named `name`: an exact match first, then a case-insensitive one, as SQL compares names.
    ///
    /// - Complexity: O(1) after the first call, which builds the map.
    func columnIndex(named name: String) -> Int32? {
        if let index = columnIndexCache?[name] { return index }
        if columnIndexCache == nil {
            var map: [String: Int32] = [:]
            for (offset, columnName) in columnNames.enumerated() {
                let index = Int32(offset)
                // The first of two columns with one name wins, as in SQL.
                if map[columnName] == nil { map[columnName] = index }
                let folded = "\u{0}" + columnName.lowercased()
                if map[folded] == nil { map[folded] = index }
            }
            columnIndexCache = map
            if let index = map[name] { return index }
        }
        return columnIndexCache?["\u{0}" + name.lowercased()]
    }

    /// The index of the column named `name` among `columns`: an exact match first, then a case-insensitive one.
    func columnIndex(named name: String, in columns: Range<Int32>) -> Int32? {
        let range = columns.clamped(to: 0..<Int32(columnCount))
        if let exact = range.first(where: { columnNames[Int($0)] == name }) { return exact }
        let folded = name.lowercased()
        return range.first { columnNames[Int($0)].lowercased() == folded }
    }

    /// Parameter indexes by name without prefix. A name used with two prefixes (`:a` and `@a`) has two indexes.
    func parameterIndexes() -> [String: [Int32]] {
        if let cache = parameterIndexCache { return cache }
        // After close the statement is finalized and must not be touched; callers throw on the closed connection.
        guard connection.handle != nil else { return [:] }
        var map: [String: [Int32]] = [:]
        let count = Int32(parameterCount)
        if count > 0 {
            for index in 1...count {
                guard let cName = sqlite3_bind_parameter_name(handle, index) else { continue }
                let name = String(cString: cName)
                guard let first = name.unicodeScalars.first, ":@$".unicodeScalars.contains(first) else { continue }
                map[String(name.unicodeScalars.dropFirst()), default: []].append(index)
            }
        }
        parameterIndexCache = map
        return map
    }

    static func columnName(_ handle: OpaquePointer, _ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }
}

/// The outcome of ``Statement/step()``.
public enum StepResult {
    /// The statement produced a row.
    case row(Row)
    /// The statement has run to completion.
    case done
}
