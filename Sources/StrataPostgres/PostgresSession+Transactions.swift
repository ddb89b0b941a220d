internal import PostgresNIO
internal import StrataCore

extension PostgresSession {
    /// Runs `body` in a nested transaction (a savepoint): **when `body` throws, what it wrote rolls back and the
    /// enclosing `write` goes on**; when it returns, its work joins the enclosing transaction.
    ///
    /// ```swift
    /// try await pool.write { db in
    ///     try await db.insert(&order)
    ///     do {
    ///         try await db.transaction { db in try await db.insert(&coupon) }   // may violate a unique key
    ///     } catch let error as DatabaseError where error.code == .uniqueViolation {
    ///         // the coupon was used: the order is still written
    ///     }
    /// }
    /// ```
    ///
    /// Outside a transaction (in ``PostgresPool/writeWithoutTransaction(_:)``), it runs `body` in a transaction of
    /// its own (`BEGIN` ... `COMMIT`).
    ///
    /// **A statement PostgreSQL rejects fails its block** (this nested transaction, or the `write`), even when the
    /// body catches the error: PostgreSQL aborts the transaction at its first error. The later statements of the
    /// block throw ``DatabaseError/Code/transactionAborted`` without reaching the server, and when the body
    /// returns, the block rolls back and throws the first failure again. A statement that may fail and after
    /// which the work goes on belongs in a nested `transaction { }`, as above: its failure rolls back to its
    /// savepoint only. The same rule holds on SQLite.
    ///
    /// `BEGIN`, `COMMIT` and `ROLLBACK` in the SQL of a block are refused
    /// (``DatabaseError/Code/invalidArgument``), and the block rolls back.
    ///
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, after the rollback; the first failure of the block when the body returned;
    ///   ``DatabaseError/Code/transactionAborted`` when the enclosing block already failed, without running
    ///   `body`.
    public func transaction<Result: Sendable>(_ body: (PostgresSession) async throws -> Result) async throws
        -> Result
    {
        try await transaction(readOnly: false, body)
    }

    /// How a read begins: one snapshot for all its statements, and writes refused.
    static let beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Runs `body` as ``transaction(_:)`` does; outside a transaction, the transaction is a read's
    /// (``beginRead``) when `readOnly`, and a plain `BEGIN` otherwise.
    func transaction<Result>(
        readOnly: Bool, _ body: (PostgresSession) async throws -> Result
    ) async throws -> Result {
        let depth = state.withLock { $0.blocks.count }
        let savepoint = depth == 0 ? nil : "strata_savepoint_\(depth)"
        let begin = savepoint.map { "SAVEPOINT \($0)" } ?? (readOnly ? Self.beginRead : "BEGIN")
        try checkOpen(sql: begin)
        try state.withLock { try $0.admitInternal(sql: begin) }
        try await control(begin)
        state.withLock { $0.blocks.append(PostgresSessionState.Block(savepoint: savepoint)) }
        let result: Result
        do {
            result = try await body(self)
        } catch {
            let failure = popBlock()
            await rollBack(to: savepoint)
            // A body that stopped at the refusal of a statement after the failure gets the failure itself, as when
            // it returns.
            if let failure, let refusal = error as? DatabaseError, refusal.code == .transactionAborted {
                throw failure
            }
            throw error
        }
        if let failure = popBlock() {
            await rollBack(to: savepoint)
            throw failure
        }
        if let savepoint {
            try await control("RELEASE SAVEPOINT \(savepoint)")
        } else {
            try await commit(readOnly: readOnly)
        }
        return result
    }

    /// Runs `body`, which runs a statement that writes rows (`writes`) and reads the rows it returns, so that rows
    /// that cannot be read leave nothing written, as on SQLite. Inside a block, the failure fails the block as a
    /// statement PostgreSQL rejects does: the block rolls back when it ends, even when the caller catches the error
    /// (to go on after it, the statement belongs in a nested `transaction { }`); this costs no round trip. Outside
    /// one, `body` runs in a transaction of its own, or in a savepoint of one the caller's SQL began.
    func undoingWrite<Result>(
        if writes: Bool, _ body: (PostgresSession) async throws -> Result
    ) async throws -> Result {
        guard writes else { return try await body(self) }
        let (inBlock, callerControls) = state.withLock { (!$0.blocks.isEmpty, $0.controlledTransaction) }
        if inBlock {
            do {
                return try await body(self)
            } catch {
                state.withLock { $0.writtenRowsFailed(error) }
                throw error
            }
        }
        guard callerControls else { return try await transaction(readOnly: false, body) }
        let savepoint = "strata_written_rows"
        do {
            try await control("SAVEPOINT \(savepoint)")
        } catch let error as DatabaseError where error.sqlState == "25P01" {
            // No transaction is open: the caller's SQL ended the one it began.
            return try await transaction(readOnly: false, body)
        }
        let result: Result
        do {
            result = try await body(self)
        } catch {
            await rollBack(to: savepoint)
            throw error
        }
        try await control("RELEASE SAVEPOINT \(savepoint)")
        return result
    }

    /// Begins a read's transaction (``beginRead``) for a block that has no body: a stream's, which the session rolls
    /// back when it ends. Its SQL may not begin or end a transaction, as in a `read`.
    func beginReadBlock() async throws {
        let begin = Self.beginRead
        try checkOpen(sql: begin)
        try state.withLock { try $0.admitInternal(sql: begin) }
        try await control(begin)
        state.withLock { state in
            state.blocks.append(PostgresSessionState.Block(savepoint: nil))
            // The session's end rolls it back.
            state.controlledTransaction = true
        }
    }

    /// Ends the innermost block.
    ///
    /// - Returns: The block's first failure, if it failed.
    private func popBlock() -> (any Error)? {
        state.withLock { $0.blocks.popLast()?.failure }
    }

    /// Rolls back the transaction, or to `savepoint` and releases it. The caller's error is the one to throw; a
    /// rollback that fails marks the connection lost, so that nothing after it can commit the work it should have
    /// undone and the connection is not used again.
    private func rollBack(to savepoint: String?) async {
        do {
            if let savepoint {
                try await control("ROLLBACK TO SAVEPOINT \(savepoint)")
                try await control("RELEASE SAVEPOINT \(savepoint)")
            } else {
                try await control("ROLLBACK")
            }
        } catch {
            let lost = DatabaseError(
                code: .connectionLost,
                message: "the connection to \(endpoint) is not used again: a rollback on it failed",
                sql: savepoint.map { "ROLLBACK TO SAVEPOINT \($0)" } ?? "ROLLBACK")
            state.withLock { state in
                if state.lost == nil { state.lost = lost }
            }
        }
    }

    /// Commits the transaction, and throws unless PostgreSQL says it committed.
    ///
    /// - Throws: ``DatabaseError/Code/commitOutcomeUnknown`` when the connection broke while `COMMIT` ran;
    ///   ``DatabaseError/Code/connectionLost`` when it broke before, or while the `COMMIT` of a `readOnly`
    ///   transaction ran (a read wrote nothing, so there is no outcome to check: it can run again); PostgreSQL's
    ///   error when it refused to commit (a deferred constraint, a serialization failure);
    ///   ``DatabaseError/Code/transactionAborted`` when it answered `ROLLBACK` (an aborted transaction).
    private func commit(readOnly: Bool) async throws {
        let result: PostgresQueryResult
        do {
            result = try await control("COMMIT", phase: .commit)
        } catch let error as DatabaseError where readOnly && error.code == .commitOutcomeUnknown {
            throw DatabaseError(
                code: .connectionLost, sqlState: error.sqlState,
                message: "the connection to \(endpoint) was lost while the COMMIT of a read ran: the read wrote "
                    + "nothing, and can run again",
                sql: "COMMIT")
        }
        // PostgreSQL answers COMMIT of an aborted transaction with the tag ROLLBACK, and no error.
        guard result.metadata.command == "COMMIT" else {
            throw DatabaseError(
                code: .transactionAborted,
                message: "PostgreSQL rolled the transaction back instead of committing it (COMMIT answered "
                    + "\(result.metadata.command)): a statement of the write failed; nothing of it committed",
                sql: "COMMIT")
        }
    }
}
