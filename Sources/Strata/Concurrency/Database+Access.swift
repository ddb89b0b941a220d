/// How ``DatabasePool`` and ``DatabaseQueue`` run a body on their connections.
extension Database {
    /// Runs a pool's or queue's `configure` on a connection it is opening; a `configure` that closes it throws.
    func configure(with configure: (@Sendable (Database) throws -> Void)?) throws {
        try configure?(self)
        guard !isClosed else {
            throw DatabaseError(
                code: .invalidArgument, message: "configure closed the connection the pool was opening")
        }
    }

    /// Runs the caller's `body` on a connection the pool lends: **`close()` inside it is refused**, and
    /// the block throws once `body` returns, so that a write rolls back and the pool keeps its connection.
    func lent<Output>(_ body: (Database) throws -> Output) throws -> Output {
        defer { closeWasRefused = false }
        let output = try body(self)
        try checkCloseWasNotCalled()
        return output
    }

    /// Runs `body`, which may suspend, as ``lent(_:)`` does.
    func lent<Output>(suspending body: (Database) async throws -> Output) async throws -> Output {
        defer { closeWasRefused = false }
        let output = try await body(self)
        try checkCloseWasNotCalled()
        return output
    }

    /// Throws when `close()` was refused inside the block that just returned.
    private func checkCloseWasNotCalled() throws {
        if closeWasRefused {
            throw DatabaseError(
                code: .invalidArgument,
                message: "close() was called inside a pool or queue block: the pool owns its connections and "
                    + "closes them in its own close(); nothing the block wrote is committed")
        }
    }

    /// Runs `body` in a deferred transaction, so that all its statements read one snapshot, and ends it.
    ///
    /// In WAL mode the snapshot is taken at the first read and holds until the transaction ends, whatever the
    /// writer commits meanwhile. See https://www.sqlite.org/isolation.html
    func readTransaction<Output>(_ body: (Database) throws -> Output) throws -> Output {
        try transaction(.deferred, body)
    }

    /// Runs `body` as ``readTransaction(_:)`` does, with writes refused for its duration (`PRAGMA query_only`), as
    /// on a pool's read-only readers.
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_query_only
    func queryOnlyTransaction<Output>(_ body: (Database) throws -> Output) throws -> Output {
        try execute(query: "PRAGMA query_only = ON")
        // Turning it off again fails only on a closed connection, which has nothing left to protect.
        defer { try? execute(query: "PRAGMA query_only = OFF") }
        return try readTransaction(body)
    }

    /// Runs `body`, which may suspend, as ``queryOnlyTransaction(_:)`` does.
    func queryOnlyTransaction<Output>(suspending body: (Database) async throws -> Output) async throws -> Output {
        try execute(query: "PRAGMA query_only = ON")
        defer { try? execute(query: "PRAGMA query_only = OFF") }
        return try await transaction(.deferred, suspending: body)
    }

    /// Runs `body` outside any transaction, for work that cannot run in one (VACUUM, some pragmas, migrations that
    /// manage their own transactions). **A transaction that `body` leaves open is rolled back**, so the connection
    /// is clean for the next caller.
    ///
    /// - Throws: The error of `body`; ``DatabaseError/Code/invalidArgument`` when `body` returned with a transaction
    ///   still open.
    func withoutTransaction<Output>(_ body: (Database) throws -> Output) throws -> Output {
        let output: Output
        do {
            output = try body(self)
        } catch {
            rollBackLeftoverTransaction()
            throw error
        }
        try checkNoTransactionLeftOpen()
        return output
    }

    /// Runs `body`, which may suspend, as ``withoutTransaction(_:)`` does.
    func withoutTransaction<Output>(suspending body: (Database) async throws -> Output) async throws -> Output {
        let output: Output
        do {
            output = try await body(self)
        } catch {
            rollBackLeftoverTransaction()
            throw error
        }
        try checkNoTransactionLeftOpen()
        return output
    }

    /// Rolls back a transaction the body of ``withoutTransaction(_:)`` left open, and throws.
    private func checkNoTransactionLeftOpen() throws {
        if isInTransaction {
            rollBackLeftoverTransaction()
            throw DatabaseError(
                code: .invalidArgument,
                message: "writeWithoutTransaction returned with a transaction open; it was rolled back")
        }
    }

    private func rollBackLeftoverTransaction() {
        // Rolling back fails only on a closed or broken connection; the error the caller needs is the first one.
        if isInTransaction {
            try? rollbackTransaction()
        }
    }
}
