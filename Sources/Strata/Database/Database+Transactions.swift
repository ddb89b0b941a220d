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
        if isInTransaction {
            return try savepoint(body)
        }
        try beginTransaction(kind)
        let result: Result
        do {
            result = try runBlock { try refusingTransactionControl(.transactionControlRefused) { try body(self) } }
            try commitTransaction()
        } catch {
            rollbackAfterFailure()
            throw error
        }
        return result
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

    private func savepoint<Result>(_ body: (Database) throws -> Result) throws -> Result {
        // As PostgreSQL refuses a savepoint in an aborted transaction: the enclosing block has failed already.
        if connection.isAborted { throw connection.abortedRefusal(sql: nil) }
        let name = nextSavepointName()
        defer { releaseSavepointName() }
        try execute(query: "SAVEPOINT \(name)")
        let result: Result
        do {
            result = try runBlock { try body(self) }
        } catch {
            // SQLite may already have rolled back the whole transaction (after SQLITE_FULL, for example).
            if isInTransaction {
                try? execute(query: "ROLLBACK TO SAVEPOINT \(name)")
                try? execute(query: "RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        try execute(query: "RELEASE SAVEPOINT \(name)")
        return result
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

    /// Rolls back whatever is open after a failure; the original error is what the caller needs to see.
    private func rollbackAfterFailure() {
        if isInTransaction {
            try? rollbackTransaction()
        }
    }
}
