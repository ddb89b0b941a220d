// The `DatabaseReader` and `DatabaseWriter` requirements of ``DatabasePool`` and ``DatabaseQueue``: blocks that may
// suspend, for code written once for every backend. A synchronous block calls the synchronous methods, as before.

extension DatabasePool: DatabaseWriter {
    /// Runs `body`, which may suspend, on the writer in a transaction, as `write(_:)` does: **it commits when
    /// `body` returns and rolls back when `body` throws.**
    ///
    /// ```swift
    /// func save(_ note: Note, in db: some DatabaseWriter) async throws -> Note {
    ///     try await db.write { session in
    ///         var note = note
    ///         try await session.insert(&note)
    ///         return note
    ///     }
    /// }
    /// ```
    ///
    /// The writer is the body's alone until it returns, suspended or not, and its code runs on the writer's own
    /// thread, never blocking Swift's cooperative threads. Keep the suspensions short: other writes wait meanwhile.
    @_disfavoredOverload
    @discardableResult
    @concurrent
    public func write<Output: Sendable>(_ body: (Database) async throws -> Output) async throws -> Output {
        try await writer.writeSuspending("DatabasePool.write", body)
    }

    /// Runs `body`, which may suspend, on the writer outside any transaction, as `writeWithoutTransaction(_:)`
    /// does.
    @_disfavoredOverload
    @discardableResult
    @concurrent
    public func writeWithoutTransaction<Output: Sendable>(_ body: (Database) async throws -> Output) async throws
        -> Output
    {
        try await writer.writeWithoutTransactionSuspending("DatabasePool.writeWithoutTransaction", body)
    }

    /// Runs `body`, which may suspend, on a reader, on one consistent snapshot with writes refused, as `read(_:)`
    /// does.
    ///
    /// ```swift
    /// func happyNotes(in db: some DatabaseReader) async throws -> [Note] {
    ///     try await db.read { session in try await session.fetchAll(Note.filter(Column("mood") == "happy")) }
    /// }
    /// ```
    @_disfavoredOverload
    @concurrent
    public func read<Output: Sendable>(_ body: (Database) async throws -> Output) async throws -> Output {
        try await readers.readSuspending("DatabasePool.read", refusingWrites: false, body)
    }
}

extension DatabaseQueue: DatabaseWriter {
    /// Runs `body`, which may suspend, in a transaction, as `write(_:)` does: **it commits when `body` returns and
    /// rolls back when `body` throws.** The connection is the body's alone until it returns.
    @_disfavoredOverload
    @discardableResult
    @concurrent
    public func write<Output: Sendable>(_ body: (Database) async throws -> Output) async throws -> Output {
        try await connection.writeSuspending("DatabaseQueue.write", body)
    }

    /// Runs `body`, which may suspend, outside any transaction, as `writeWithoutTransaction(_:)` does.
    @_disfavoredOverload
    @discardableResult
    @concurrent
    public func writeWithoutTransaction<Output: Sendable>(_ body: (Database) async throws -> Output) async throws
        -> Output
    {
        try await connection.writeWithoutTransactionSuspending("DatabaseQueue.writeWithoutTransaction", body)
    }

    /// Runs `body`, which may suspend, on one consistent snapshot with writes refused, as `read(_:)` does.
    @_disfavoredOverload
    @concurrent
    public func read<Output: Sendable>(_ body: (Database) async throws -> Output) async throws -> Output {
        try await connection.readSuspending("DatabaseQueue.read", refusingWrites: true, body)
    }
}

extension Database: DatabaseSession {}

extension DatabaseWriter where Session == Database {
    /// Runs `body` again and again until it sets `stop`, in transactions that commit whenever other work waits for
    /// the writer: ``DatabasePool/pausableWrite(maxTransactionDuration:_:)`` for any SQLite writer.
    @concurrent
    public func pausableWrite(
        maxTransactionDuration: Duration? = nil,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) async throws {
        switch self {
        case let pool as DatabasePool:
            try await pool.pausableWrite(maxTransactionDuration: maxTransactionDuration, body)
        case let queue as DatabaseQueue:
            try await queue.pausableWrite(maxTransactionDuration: maxTransactionDuration, body)
        default:
            throw DatabaseError(
                code: .invalidArgument,
                message: "pausableWrite needs a DatabasePool or a DatabaseQueue, not \(Self.self)")
        }
    }
}
