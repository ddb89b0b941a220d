internal import CSQLite

/// How a transaction takes its locks. See https://www.sqlite.org/lang_transaction.html
public enum TransactionKind: String, Sendable, CaseIterable {
    /// Locks are taken at the first read and the first write.
    case deferred = "DEFERRED"
    /// The write lock is taken at once: other writers wait (busy timeout) instead of failing later.
    case immediate = "IMMEDIATE"
    /// Like `.immediate`; in rollback-journal modes it also keeps readers out.
    case exclusive = "EXCLUSIVE"
}

extension Database {
    /// Runs `body` in a transaction: **it commits when `body` returns and rolls back when `body` throws.**
    ///
    /// Inside another transaction it runs in a savepoint, which rolls back on its own.
    ///
    /// - **A statement SQLite rejects fails the transaction, even if `body` catches its error**, as on every
    ///   backend (PostgreSQL aborts a transaction at its first failed statement): every later statement in `body`
    ///   throws `DatabaseError.Code.transactionAborted`, and when `body` returns, the transaction rolls back and
    ///   the first failure is thrown. To go on after a statement that may fail, run it in a nested
    ///   `transaction { }`: its failure rolls back that savepoint only.
    ///
    ///   ```swift
    ///   try db.transaction { db in
    ///       try db.insert(&order)
    ///       do {
    ///           try db.transaction { db in try db.insert(&coupon) }    // may violate a unique constraint
    ///       } catch let error as DatabaseError where error.resultCode == .constraintUnique {
    ///           // the coupon was used; the order stays
    ///       }
    ///   }
    ///   ```
    ///
    /// **`BEGIN`, `COMMIT` and `ROLLBACK` are refused inside `body`**: they throw
    /// `DatabaseError.Code.invalidArgument` and the transaction rolls back, so nothing `body` wrote is
    /// committed behind the caller's back. Nest `transaction` for a savepoint.
    ///
    /// ```swift
    /// try db.transaction { db in
    ///     try db.execute(query: "UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute(query: "UPDATE account SET balance = balance + 10 WHERE id = 2")
    /// }
    /// ```
    ///
    /// - Returns: What `body` returns.
    /// - Throws: The error of `body`, or a `DatabaseError` when the transaction cannot begin or commit
    ///   (then it is rolled back too).
    @discardableResult
    public func transaction<Result>(
        _ kind: TransactionKind = .deferred,
        _ body: (Database) throws -> Result
    ) throws -> Result {
        let block = try enterBlock(kind)
        let result: Result
        do {
            result = try body(self)
        } catch {
            throw leaveBlock(block, failedWith: error) ?? error
        }
        if let error = leaveBlock(block, failedWith: nil) { throw error }
        return result
    }

    /// Runs `body`, which may suspend, in a transaction as ``transaction(_:_:)`` does: **it commits when `body`
    /// returns and rolls back when `body` throws**; inside another transaction it is a savepoint. This is the
    /// `DatabaseSession` requirement, for code written once for every backend:
    ///
    /// ```swift
    /// try await pool.write { session in
    ///     try await session.insert(&order)
    ///     try await session.transaction { session in try await session.insert(&coupon) }
    /// }
    /// ```
    ///
    /// A synchronous body calls the synchronous ``transaction(_:_:)``.
    @_disfavoredOverload
    @discardableResult
    public func transaction<Output: Sendable>(_ body: (Database) async throws -> Output) async throws -> Output {
        try await transaction(.deferred, suspending: body)
    }

    /// Runs `body`, which may suspend, in a transaction of `kind`, or in a savepoint inside a transaction.
    func transaction<Output>(_ kind: TransactionKind, suspending body: (Database) async throws -> Output)
        async throws -> Output
    {
        let block = try enterBlock(kind)
        let output: Output
        do {
            output = try await body(self)
        } catch {
            throw leaveBlock(block, failedWith: error) ?? error
        }
        if let error = leaveBlock(block, failedWith: nil) { throw error }
        return output
    }

    /// A transaction block that ``enterBlock(_:)`` opened: the transaction itself, or a savepoint inside one.
    private enum Block {
        /// A transaction, and what transaction control was refused with before it.
        case transaction(refusalBefore: DatabaseError?)
        /// A savepoint, by name.
        case savepoint(String)
    }

    /// Opens a transaction block: begins a transaction of `kind`, with `BEGIN`, `COMMIT` and `ROLLBACK` refused until
    /// it ends, or, inside a transaction, a savepoint.
    private func enterBlock(_ kind: TransactionKind) throws -> Block {
        guard isInTransaction else {
            try beginTransaction(kind)
            connection.beginBlock()
            let refusalBefore = connection.transactionGuard.refusal
            connection.transactionGuard.refusal = .transactionControlRefused
            return .transaction(refusalBefore: refusalBefore)
        }
        // As PostgreSQL refuses a savepoint in an aborted transaction: the enclosing block has failed already.
        if connection.isAborted { throw connection.abortedRefusal(sql: nil) }
        let name = nextSavepointName()
        do {
            try execute(query: "SAVEPOINT \(name)")
        } catch {
            releaseSavepointName()
            throw error
        }
        connection.beginBlock()
        return .savepoint(name)
    }

    /// Ends `block` after its body returned (`error` nil) or threw `error`: commits or releases it, or rolls it back.
    ///
    /// The first statement SQLite rejected inside the block fails it even when the body caught its error: then the
    /// block rolls back and that failure is the error, also in place of a refusal it caused that the body threw.
    ///
    /// - Returns: The error the block throws; nil when it committed.
    private func leaveBlock(_ block: Block, failedWith error: (any Error)?) -> (any Error)? {
        if case .transaction(let refusalBefore) = block {
            connection.transactionGuard.refusal = refusalBefore
        }
        var error = error
        if let failure = connection.endBlock() {
            if error == nil || (error as? DatabaseError)?.code == .transactionAborted { error = failure }
        }
        switch block {
        case .transaction:
            if error == nil {
                do { try commitTransaction() } catch { return rolledBack(after: error) }
                return nil
            }
            return error.map(rolledBack(after:))
        case .savepoint(let name):
            defer { releaseSavepointName() }
            if let error {
                // SQLite may already have rolled back the whole transaction (after SQLITE_FULL, for example).
                if isInTransaction {
                    try? execute(query: "ROLLBACK TO SAVEPOINT \(name)")
                    try? execute(query: "RELEASE SAVEPOINT \(name)")
                }
                return error
            }
            do { try execute(query: "RELEASE SAVEPOINT \(name)") } catch { return error }
            return nil
        }
    }

    /// Begins a transaction. Use ``transaction(_:_:)`` where you can: it never leaves one open.
    ///
    /// - Throws: `DatabaseError.Code.invalidArgument` when a transaction is already open.
    public func beginTransaction(_ kind: TransactionKind = .deferred) throws {
        guard !isInTransaction else {
            throw DatabaseError(
                code: .invalidArgument, message: "a transaction is already open; nest with transaction { } instead")
        }
        try execute(query: "BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the open transaction.
    public func commitTransaction() throws {
        try execute(query: "COMMIT TRANSACTION")
    }

    /// Rolls back the open transaction.
    public func rollbackTransaction() throws {
        try execute(query: "ROLLBACK TRANSACTION")
    }

    /// Runs `body` as one transaction block, whose caller commits it when this returns and rolls it back when this
    /// throws: the first statement SQLite rejects inside it fails the block even when `body` catches its error.
    /// Every later statement is refused (`DatabaseError.Code.transactionAborted`) until the block ends, and then
    /// this throws that first failure, also in place of a refusal it caused that `body` threw.
    func runBlock<Result>(_ body: () throws -> Result) throws -> Result {
        connection.beginBlock()
        let result: Result
        do {
            result = try body()
        } catch {
            let failure = connection.endBlock()
            if let failure, let refusal = error as? DatabaseError, refusal.code == .transactionAborted {
                throw failure
            }
            throw error
        }
        if let failure = connection.endBlock() { throw failure }
        return result
    }

    /// Runs `body` with `BEGIN`, `COMMIT` and `ROLLBACK` refused with `error`: as they are prepared, and when one
    /// prepared before runs. Savepoints stay allowed.
    func refusingTransactionControl<Result>(_ error: DatabaseError, _ body: () throws -> Result) rethrows -> Result {
        try connection.transactionGuard.refusing(with: error, body)
    }

    /// Rolls back whatever is open after `error`, and returns `error`: the original error is what the caller needs to
    /// see.
    private func rolledBack(after error: any Error) -> any Error {
        if isInTransaction {
            try? rollbackTransaction()
        }
        return error
    }
}
