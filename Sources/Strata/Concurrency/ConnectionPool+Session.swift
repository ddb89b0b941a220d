/// The blocks that may suspend of ``DatabasePool`` and ``DatabaseQueue`` (their `DatabaseReader` and
/// `DatabaseWriter` requirements), written once: each hands its body to one of these, on its own connections.
extension ConnectionPool {
    /// Runs `body`, which may suspend, in an immediate transaction that commits when it returns and rolls back when
    /// it throws, as the span `operation`.
    @concurrent
    func writeSuspending<Output>(_ operation: String, _ body: (Database) async throws -> Output) async throws
        -> Output
    {
        try await runSuspending(operation) { db in
            try await db.transaction(.immediate, suspending: { db in try await db.lent(suspending: body) })
        }
    }

    /// Runs `body`, which may suspend, outside any transaction, rolling back one it leaves open, as the span
    /// `operation`.
    @concurrent
    func writeWithoutTransactionSuspending<Output>(
        _ operation: String, _ body: (Database) async throws -> Output
    ) async throws -> Output {
        try await runSuspending(operation) { db in
            try await db.withoutTransaction(suspending: { db in try await db.lent(suspending: body) })
        }
    }

    /// Runs `body`, which may suspend, in a deferred transaction on one snapshot, as the span `operation`.
    ///
    /// - Parameter refusingWrites: Whether the transaction turns `PRAGMA query_only` on, for connections that can
    ///   write (a queue's); a pool's readers are read-only already.
    @concurrent
    func readSuspending<Output>(
        _ operation: String, refusingWrites: Bool, _ body: (Database) async throws -> Output
    ) async throws -> Output {
        try await runSuspending(operation) { db in
            guard refusingWrites else {
                return try await db.transaction(.deferred, suspending: { db in try await db.lent(suspending: body) })
            }
            return try await db.queryOnlyTransaction(suspending: { db in try await db.lent(suspending: body) })
        }
    }
}
