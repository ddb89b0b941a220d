internal import Logging
internal import PostgresNIO
internal import StrataCore

/// How a session runs its statements: every one goes through ``prepare(_:effects:)`` (the rules of the session)
/// and ``failure(_:sql:phase:)`` (what its error means for the session).
extension PostgresSession {
    // MARK: Statements

    /// Runs `statement` and collects its rows and the count of rows it changed.
    @discardableResult
    func collect(_ statement: PostgresStatement) async throws -> (rows: [PostgresRow], changes: Int) {
        let result = try await collectResult(statement)
        return (result.rows, result.metadata.rows ?? 0)
    }

    /// Runs `statement` and returns postgres-nio's whole result.
    func collectResult(_ statement: PostgresStatement) async throws -> PostgresQueryResult {
        let query = try statement.query()
        let number = try await prepare(statement.sql, effects: effects(of: statement))
        let start = pool.observer?.begin()
        do {
            let result = try await waiting(on: number) {
                try await connection.query(query, logger: logger).get()
            }
            done(number)
            if let start {
                report(start, statement, rows: result.rows.count, changes: Self.changes(result.metadata))
            }
            return result
        } catch {
            done(number)
            let failure = failure(error, sql: statement.sql)
            if let start { report(start, statement, failure: failure) }
            throw failure
        }
    }

    /// Runs `statement` and collects its rows with the description of its columns (their names, and the table each
    /// is read from). Rows a write returns that its caller fails to read leave nothing written (see `undoingWrite`).
    func collectDescribed<Output>(
        _ statement: PostgresStatement,
        _ read: ([PostgresRow], PostgresNIO.PostgresColumns) async throws -> Output
    ) async throws -> Output {
        let effects = effects(of: statement)
        return try await undoingWrite(if: effects.writesRows) { session in
            let query = try statement.query()
            let number = try await session.prepare(statement.sql, effects: effects)
            let start = session.pool.observer?.begin()
            let rows: [PostgresRow]
            let columns: PostgresNIO.PostgresColumns
            do {
                (rows, columns) = try await session.waiting(on: number) {
                    let sequence = try await session.connection.stream(query, logger: session.logger)
                    var rows: [PostgresRow] = []
                    for try await row in sequence { rows.append(row) }
                    return (rows, sequence.columns)
                }
                session.done(number)
                if let start { session.report(start, statement, rows: rows.count) }
            } catch {
                session.done(number)
                let failure = session.failure(error, sql: statement.sql)
                if let start { session.report(start, statement, failure: failure) }
                throw failure
            }
            return try await read(rows, columns)
        }
    }

    /// Runs `statement` and decodes every row as `T`. The rows of a write that do not decode leave nothing written
    /// (see `undoingWrite`).
    func decodeAll<T: Decodable>(_ type: T.Type, _ statement: PostgresStatement, decoder: RowDecoder) async throws
        -> [T]
    {
        let rowDecoder = try PostgresRowDecoder(decoder, for: T.self)
        return try await decodeAll(T.self, statement, effects: effects(of: statement), decoder: rowDecoder)
    }

    /// Runs `statement`, of `effects`, and decodes every row as `T` (see `decodeAll(_:_:decoder:)`).
    private func decodeAll<T: Decodable>(
        _ type: T.Type, _ statement: PostgresStatement, effects: PostgresStatementEffects, decoder: PostgresRowDecoder
    ) async throws -> [T] {
        try await undoingWrite(if: effects.writesRows) { session in
            try await session.decodeRows(T.self, statement, effects: effects, decoder: decoder)
        }
    }

    /// Runs `statement`, of `effects`, and decodes every row as `T`.
    private func decodeRows<T: Decodable>(
        _ type: T.Type, _ statement: PostgresStatement, effects: PostgresStatementEffects, decoder: PostgresRowDecoder
    ) async throws -> [T] {
        let query = try statement.query()
        let number = try await prepare(statement.sql, effects: effects)
        // Each row is decoded as it arrives; column names and types are read from the first row only.
        var result = PostgresResultDecoder<T>(decoder)
        var decodingError: (any Error)?
        let start = pool.observer?.begin()
        var rowCount = 0
        do {
            try await waiting(on: number) {
                var iterator = try await connection.stream(query, logger: logger).makeAsyncIterator()
                while let row = try await iterator.next() {
                    rowCount += 1
                    // After a row that does not decode, the others are still read: an error of the server while
                    // they arrive wins over it, as when every row arrived before the first was decoded.
                    guard decodingError == nil else { continue }
                    do {
                        try result.append(row)
                    } catch {
                        decodingError = error
                    }
                }
            }
            done(number)
            if let start { report(start, statement, rows: rowCount) }
        } catch {
            done(number)
            let failure = failure(error, sql: statement.sql)
            if let start { report(start, statement, rows: rowCount, failure: failure) }
            throw failure
        }
        if let decodingError { throw decodingError }
        return result.values
    }

    /// Runs `statement` and decodes its first row as `T`. The row of a write that does not decode leaves nothing
    /// written (see `undoingWrite`).
    func decodeFirst<T: Decodable>(_ type: T.Type, _ statement: PostgresStatement, decoder: RowDecoder) async throws
        -> T?
    {
        let rowDecoder = try PostgresRowDecoder(decoder, for: T.self)
        let effects = effects(of: statement)
        return try await undoingWrite(if: effects.writesRows) { session in
            try await session.decodeFirstRow(T.self, statement, effects: effects, decoder: rowDecoder)
        }
    }

    /// Runs `statement`, of `effects`, and decodes its first row as `T`.
    private func decodeFirstRow<T: Decodable>(
        _ type: T.Type, _ statement: PostgresStatement, effects: PostgresStatementEffects, decoder: PostgresRowDecoder
    ) async throws -> T? {
        guard let first = try await firstRow(statement, effects: effects) else { return nil }
        // One NULL that a non-optional scalar cannot hold (the `max` of an empty table) is no value, as on SQLite.
        if first.count == 1, first.first?.bytes == nil, let scalar = T.self as? any DatabaseValueConvertible.Type,
            (try? scalar.init(databaseValue: .null)) == nil
        {
            return nil
        }
        return try decoder.decode(T.self, from: first, columns: PostgresColumns(row: first))
    }

    /// Runs `statement`, of `effects` (read from its SQL when nil), and returns its first row; the session finishes
    /// the rest before its next statement.
    func firstRow(_ statement: PostgresStatement, effects: PostgresStatementEffects? = nil) async throws
        -> PostgresRow?
    {
        let query = try statement.query()
        let effects = effects ?? self.effects(of: statement)
        let number = try await prepare(statement.sql, effects: effects)
        let start = pool.observer?.begin()
        do {
            let (first, rest) = try await waiting(on: number) {
                () async throws -> (PostgresRow?, PostgresOpenResult?) in
                let iterator = try await connection.stream(query, logger: logger).makeAsyncIterator()
                let rows = PostgresOpenResult(
                    rows: iterator, onlyReads: effects.onlyReads, savepoint: nil, sql: statement.sql)
                guard let first = try await rows.next() else { return (nil, nil) }
                // Most results end here (one row); a longer one is left for the session to finish.
                return (first, try await rows.next() == nil ? nil : rows)
            }
            done(number, leaving: rest)
            if let start { report(start, statement, rows: first == nil ? 0 : rest == nil ? 1 : nil) }
            return first
        } catch {
            done(number)
            let failure = failure(error, sql: statement.sql)
            if let start { report(start, statement, failure: failure) }
            throw failure
        }
    }

    /// Runs `statement` and returns a cursor decoding its rows as `T`, which the session keeps until it is read to
    /// its end or left. The rows of a write are read and decoded first, so that rows that do not decode leave nothing
    /// written (see `decodeAll`).
    func cursor<T: Decodable>(_ type: T.Type, _ statement: PostgresStatement, decoder: RowDecoder) async throws
        -> PostgresCursor<T>
    {
        let rowDecoder = try PostgresRowDecoder(decoder, for: T.self)
        let effects = effects(of: statement)
        if effects.writesRows {
            let rows = try await decodeAll(T.self, statement, effects: effects, decoder: rowDecoder)
            return PostgresCursor(decoded: rows, session: self, sql: statement.sql)
        }
        let query = try statement.query()
        let number = try await prepare(statement.sql, effects: effects)
        do {
            // Inside a transaction block, a savepoint lets the session cancel a left cursor's statement without
            // aborting the transaction.
            var savepoint: String?
            if effects.onlyReads, state.withLock({ !$0.blocks.isEmpty }) {
                savepoint = "strata_cursor"
                try await control("SAVEPOINT strata_cursor")
            }
            let start = pool.observer?.begin()
            let rows: PostgresRowSequence.AsyncIterator
            do {
                rows = try await waiting(on: number) {
                    try await connection.stream(query, logger: logger).makeAsyncIterator()
                }
            } catch {
                if let start {
                    report(
                        start, statement,
                        failure: PostgresError.translating(
                            error, sql: statement.sql, endpoint: endpoint, phase: .statement))
                }
                throw error
            }
            let result = PostgresOpenResult(
                rows: rows, onlyReads: effects.onlyReads, savepoint: savepoint, sql: statement.sql)
            if let observer = pool.observer, let start {
                // Reported when its result ends: read to its end, failed, or left.
                result.keep(PostgresObserver.Pending(observer: observer, start: start, values: statement.values))
            }
            let cursor = PostgresCursor<T>(
                result: result, decoder: rowDecoder, session: self, sql: statement.sql)
            done(number, leaving: result)
            return cursor
        } catch {
            done(number)
            throw failure(error, sql: statement.sql)
        }
    }

    /// The next row of a cursor's `result`.
    func next(of result: PostgresOpenResult, sql: String) async throws -> PostgresRow? {
        try checkOpen(sql: sql)
        let number = state.withLock { $0.start() }
        do {
            let row = try await waiting(on: number) { try await result.next() }
            done(number)
            if row == nil { reportEnd(of: result) }
            return row
        } catch {
            done(number)
            let failure = failure(error, sql: sql)
            reportEnd(of: result, failure: failure)
            throw failure
        }
    }

    /// One of Strata's own statements (`BEGIN`, `COMMIT`, a savepoint, `DISCARD ALL`): it runs even in a failed
    /// block, and a cancelled task does not cancel it.
    @discardableResult
    func control(_ sql: String, phase: DatabaseError.Phase = .statement) async throws -> PostgresQueryResult {
        try await settle()
        try state.withLock { try $0.admitInternalControl(sql: sql) }
        let start = pool.observer?.begin()
        do {
            let result = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).get()
            if let start { report(start, PostgresStatement(sql: sql, values: []), rows: 0) }
            return result
        } catch {
            let failure = failure(error, sql: sql, phase: phase)
            if let start { report(start, PostgresStatement(sql: sql, values: []), failure: failure) }
            throw failure
        }
    }

    // MARK: Reporting

    /// Reports `statement`, begun at `start`, to the pool's observer.
    private func report(
        _ start: PostgresObserver.Start, _ statement: PostgresStatement, rows: Int? = nil, changes: Int? = nil,
        failure: (any Error)? = nil
    ) {
        pool.observer?.end(
            start, sql: statement.sql, values: statement.values, rows: rows, changes: changes, failure: failure)
    }

    /// Reports the statement of a cursor's `result`, which has ended or was left, unless it was reported before.
    private func reportEnd(of result: PostgresOpenResult, failure: (any Error)? = nil) {
        guard let (pending, rows) = result.takeReport() else { return }
        pending.observer.end(
            pending.start, sql: result.sql, values: pending.values, rows: rows, changes: nil, failure: failure)
    }

    /// The rows a statement changed, for the statements that change rows.
    private static func changes(_ metadata: PostgresQueryMetadata) -> Int? {
        switch metadata.command {
        case "INSERT", "UPDATE", "DELETE", "MERGE", "COPY": return metadata.rows
        default: return nil
        }
    }

    // MARK: The session's rules

    /// What `statement` may do to the session: Strata's record SQL changes rows only; SQL with text of the
    /// caller's (raw SQL, requests with SQL fragments) is read.
    private func effects(of statement: PostgresStatement) -> PostgresStatementEffects {
        statement.isRecordSQL ? PostgresStatementEffects.recordSQL : PostgresStatementEffects(sql: statement.sql)
    }

    /// Lets a statement start: throws when its task is cancelled or the session's rules refuse it, waits for a
    /// cancel request on its way, and finishes the result of the previous statement.
    ///
    /// - Returns: The statement's number, for ``done(_:leaving:)``.
    private func prepare(_ sql: String, effects: PostgresStatementEffects) async throws -> UInt64 {
        if Task.isCancelled { throw CancellationError() }
        // PostgreSQL would refuse it too, failing the transaction: SQLite refuses it before running anything.
        if PostgresMigrationScript.holdsSeveralStatements(sql) { throw DatabaseError.severalStatements(sql: sql) }
        let number = try state.withLock { state -> UInt64? in
            try state.admit(sql: sql, effects: effects)
            guard state.pendingCancel == nil, state.result == nil else { return nil }
            return state.start()
        }
        if let number { return number }
        try await settle()
        // Settling the previous result may have failed the block.
        return try state.withLock { state in
            try state.admitInternal(sql: sql)
            return state.start()
        }
    }

    /// Notes that statement `number` no longer waits for the server, and keeps the `result` it leaves unread.
    private func done(_ number: UInt64, leaving result: PostgresOpenResult? = nil) {
        state.withLock { state in
            if state.statements == number { state.isWaiting = false }
            if let result { state.result = result }
        }
    }

    /// Runs `operation`, which waits on statement `number`; when the task is cancelled meanwhile, asks the server
    /// to cancel the statement.
    private func waiting<Result>(on number: UInt64, _ operation: () async throws -> Result) async throws -> Result {
        try await withTaskCancellationHandler(operation: operation) {
            cancelStatement(number)
        }
    }

    /// The error to throw for `error` of a statement, noted in the session: a server error fails the block, a
    /// broken connection fails the rest of the session, and a statement that failed because its task was
    /// cancelled throws `CancellationError`.
    func failure(_ error: any Error, sql: String, phase: DatabaseError.Phase = .statement) -> any Error {
        var translated = DatabaseError.translating(error, sql: sql, endpoint: endpoint, phase: phase)
        if Task.isCancelled, let postgresError = translated as? DatabaseError,
            postgresError.sqlState == "57014" || postgresError.code == .connectionLost
        {
            // The cancel request (or the close of a connection whose statement did not stop) ended it.
            translated = CancellationError()
        }
        state.withLock { $0.record(translated) }
        return translated
    }

    // MARK: Cancelling

    /// Asks the server to cancel statement `number`, from a task of its own: the next statement waits until the
    /// request arrived, so that it cannot cancel that one instead. When the statement goes on after the request,
    /// its connection closes.
    private func cancelStatement(_ number: UInt64) {
        let (pool, connection, session) = (pool, connection, state)
        state.withLock { value in
            guard value.pendingCancel == nil, value.isWaiting, value.statements == number else { return }
            value.pendingCancel = Task {
                guard await pool.cancelStatement(on: connection) else { return }
                connection.connection.eventLoop.scheduleTask(in: PostgresConnectionPool.cancelGrace) {
                    if session.isWaiting(on: number) { connection.close() }
                }
            }
        }
    }

    // MARK: Settling

    /// Waits for a cancel request on its way, and finishes a result not read to its end (when `ending` the
    /// session, nobody can read it any more).
    private func settle(ending: Bool = false) async throws {
        let (cancel, result) = state.withLock { ($0.pendingCancel, $0.result) }
        if let cancel {
            await cancel.value
            state.withLock { if $0.pendingCancel == cancel { $0.pendingCancel = nil } }
        }
        guard let result else { return }
        state.withLock { $0.result = nil }
        switch result.disposition {
        case .finished(let failed):
            reportEnd(of: result)
            // A cursor read to its end gives back its savepoint; after an error, the block's end rolls it back.
            if let savepoint = result.savepoint, !failed { try await control("RELEASE SAVEPOINT \(savepoint)") }
        case .live where ending:
            try await finish(abandoned: result)
        case .live:
            if let error = await result.readAll() {
                reportEnd(of: result, failure: failure(error, sql: result.sql))
            } else if let savepoint = result.savepoint {
                reportEnd(of: result)
                try await control("RELEASE SAVEPOINT \(savepoint)")
            }
        case .abandoned:
            try await finish(abandoned: result)
        case .busy:
            state.withLock { $0.result = result }
            throw PostgresOpenResult.readByTwoTasks(sql: result.sql)
        }
    }

    /// Finishes a result nobody will read: its last rows are read and dropped, or its statement is cancelled.
    private func finish(abandoned result: PostgresOpenResult) async throws {
        let (ended, error) = await result.drop(upTo: PostgresConnectionPool.abandonedRowsRead)
        // Left by its reader: reported as it ended, or as it stood when it was left.
        reportEnd(of: result)
        if let error, !result.onlyReads || result.savepoint == nil {
            // A statement that changed data failed (its changes are gone), or the transaction around it is aborted:
            // the caller who left it must hear of it, through its block.
            _ = failure(error, sql: result.sql)
        }
        // A statement that changes data runs to its end; outside a savepoint, cancelling one that reads would
        // abort the transaction around it.
        let cancels = !ended && result.onlyReads && (result.savepoint != nil || state.withLock { $0.blocks.isEmpty })
        if cancels {
            _ = await Task { [pool, connection] in await pool.cancelStatement(on: connection) }.value
        }
        result.close()
        if let savepoint = result.savepoint {
            // Whatever the cancel did, the transaction is back where the cursor began.
            try await control("ROLLBACK TO SAVEPOINT \(savepoint)")
            try await control("RELEASE SAVEPOINT \(savepoint)")
        }
    }

    // MARK: Ending

    /// Ends the session when its body returns: finishes what is left on the connection and resets it if the
    /// session may have changed it.
    ///
    /// - Returns: Whether the connection can serve another session.
    func end() async -> Bool {
        let (controlledTransaction, changedSession) = state.withLock { state in
            state.isOpen = false
            return (state.controlledTransaction, state.changedSession)
        }
        do {
            try await settle(ending: true)
            if controlledTransaction {
                // A read's own BEGIN may have left a transaction open (DISCARD ALL cannot run in one).
                try await control("ROLLBACK")
            }
            if changedSession {
                do {
                    try await control("DISCARD ALL")
                } catch let error as DatabaseError where error.isRefusalByDatabase {
                    try await control("ROLLBACK")
                    try await control("DISCARD ALL")
                }
            }
        } catch {
            return false
        }
        return connection.isOpen && state.withLock { $0.lost == nil }
    }
}

extension PostgresStatementEffects {
    /// The effects of Strata's record SQL: it changes rows, and nothing of the session.
    static let recordSQL = PostgresStatementEffects()

    /// No effect at all.
    private init() {}
}

extension PostgresSessionState.Value {
    /// Starts a statement that waits for the server.
    ///
    /// - Returns: Its number.
    mutating func start() -> UInt64 {
        statements += 1
        isWaiting = true
        return statements
    }

    /// Lets one of Strata's own statements start: only a broken connection stops it.
    mutating func admitInternalControl(sql: String) throws {
        if let lost {
            throw DatabaseError(code: lost.code, sqlState: lost.sqlState, message: lost.message, sql: sql)
        }
    }
}
