/// Something that lends a connection for reads, one block at a time per connection: ``DatabasePool`` and
/// ``DatabaseQueue``. Code that only reads takes `some DatabaseReader` and works with either.
///
/// ```swift
/// func noteCount(_ reader: some DatabaseReader) async throws -> Int {
///     try await reader.read { db in try db.fetchCount(Note.all()) }
/// }
/// ```
public protocol DatabaseReader: AnyObject, Sendable {
    /// Runs `body` on a connection in a transaction that sees one consistent snapshot, with writes refused.
    @concurrent
    func read<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output

    /// Closes the connections once the work asked for has finished.
    func close() async

    /// Whether ``close()`` has been called: from then on new work throws `DatabaseError.Code.connectionClosed`.
    var isClosed: Bool { get }
}

/// Something that also lends the one writer connection: ``DatabasePool`` and ``DatabaseQueue``. The migrator and
/// code that writes take `some DatabaseWriter`.
///
/// ```swift
/// try await migrator.migrate(pool)
/// ```
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `body` on the writer in a transaction: it commits when `body` returns and rolls back when it throws.
    @discardableResult
    @concurrent
    func write<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output

    /// Runs `body` on the writer outside any transaction.
    @discardableResult
    @concurrent
    func writeWithoutTransaction<Output: Sendable>(_ body: (Database) throws -> Output) async throws -> Output

    /// Runs `body` again and again until it sets `stop`, in transactions that commit whenever other work waits for
    /// the writer, or after `maxTransactionDuration`.
    @concurrent
    func pausableWrite(
        maxTransactionDuration: Duration?,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) async throws
}

extension DatabaseWriter {
    /// Runs `body` again and again until it sets `stop`, in transactions that commit whenever other work waits for
    /// the writer.
    @concurrent
    public func pausableWrite(_ body: (Database, inout Bool, Bool) throws -> Void) async throws {
        try await pausableWrite(maxTransactionDuration: nil, body)
    }
}

extension DatabasePool: DatabaseWriter {}
extension DatabaseQueue: DatabaseWriter {}
