internal import CSQLite

/// The SQLite handle that a database and its statements share.
///
/// Statements hold this object rather than the ``Database``, so the statements a database caches
/// never keep the database alive (a cycle that would leave the file open). The handle closes when
/// the last of its owners goes: the `Database` and any statement the caller still holds, so a
/// statement keeps working after its `Database` is released. An explicit `close()` ends it at
/// once: `handle` is nil and every statement throws.
final class Connection {
    /// The connection; nil once closed. Statements check it before every call.
    ///
    /// Read on every call into SQLite. A connection is used by one task at a time and this is never
    /// accessed re-entrantly, so the dynamic exclusivity check is turned off, as on the other
    /// per-call state of `Database`, `Statement` and the coding objects.
    @exclusivity(unchecked) var handle: OpaquePointer?

    /// Refuses transaction control inside blocks that own the transaction; its authorizer is installed on `handle`.
    let transactionGuard = TransactionControlGuard()

    /// What `observeWAL(with:)` reports commits to; kept as long as the handle may call it.
    @exclusivity(unchecked) var walObserver: Checkpointer?

    /// What reports the statements, when ``Database/observability`` asks for anything; kept as long as the handle may
    /// call it.
    @exclusivity(unchecked) var observer: StatementObserver?

    init(handle: OpaquePointer) {
        self.handle = handle
        transactionGuard.install(on: handle)
    }

    deinit {
        // Every statement holds this object, so all of them are finalized by now.
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Finalizes the statements still prepared and closes the handle. Safe to call twice.
    func close() {
        guard let handle else { return }
        defer {
            observer?.flush()
            observer?.forgetAll()
        }
        // Their `Statement` objects see the nil handle and never touch them again.
        while let statement = sqlite3_next_stmt(handle, nil) {
            sqlite3_finalize(statement)
        }
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// The handle, or a thrown ``DatabaseError/Code/connectionClosed``.
    @inline(__always)
    func openHandle(sql: String? = nil) throws -> OpaquePointer {
        guard let handle else { throw DatabaseError.closed(sql: sql) }
        return handle
    }
}
