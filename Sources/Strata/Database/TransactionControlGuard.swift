internal import CSQLite

/// Refuses `BEGIN`, `COMMIT` and `ROLLBACK` while a block owns the connection's transaction.
///
/// A block that owns its transaction (``Database/transaction(_:_:)``, a pool's or queue's `write`, a
/// migration) commits when it returns and rolls back when it throws. A `COMMIT` inside it would
/// commit early, and the block's own commit would then fail, so a caller that retries writes twice.
///
/// An SQLite authorizer, installed once when the connection opens, sees every statement as it is
/// prepared: it denies transaction control while ``refusal`` is set, and marks the statements that
/// are transaction control so that one prepared earlier is refused when it runs. Statements compiled
/// before a schema change are compiled again through the same authorizer. It also marks the statements
/// that write rows, which the fetches run atomically (see `Statement.writesRows`).
///
/// See https://www.sqlite.org/c3ref/set_authorizer.html
final class TransactionControlGuard {
    /// The error a transaction control statement gets while a block owns the transaction; nil allows them.
    @exclusivity(unchecked) var refusal: DatabaseError?

    /// Set by the authorizer when the statement being prepared is `BEGIN`, `COMMIT` or `ROLLBACK`.
    @exclusivity(unchecked) var preparedTransactionControl = false

    /// Set by the authorizer when the statement being prepared is `SAVEPOINT`, `RELEASE` or `ROLLBACK TO`.
    @exclusivity(unchecked) var preparedSavepoint = false
    /// Set by the authorizer when the statement being prepared is `COMMIT` (or `END`), or `RELEASE`, which commits
    /// when it releases the savepoint that began the transaction: a failure of it may leave the transaction committed
    /// (see `DatabaseError.atCommit(on:)`). Cleared with ``preparedTransactionControl``.
    @exclusivity(unchecked) var preparedCommit = false

    /// Set by the authorizer when the statement being prepared inserts, updates or deletes rows.
    @exclusivity(unchecked) var preparedWrite = false

    /// Set by the authorizer when the statement being prepared changes the schema (`CREATE`, `DROP`, `ALTER`): a
    /// commit of it may change what any read returns (see `ChangeLog`).
    @exclusivity(unchecked) var preparedSchemaChange = false

    /// Installs the authorizer on `handle`. The guard must outlive the handle: `Connection` owns both.
    func install(on handle: OpaquePointer) {
        sqlite3_set_authorizer(
            handle,
            { context, action, operation, _, _, _ in
                guard let context else { return SQLITE_OK }
                switch action {
                case SQLITE_TRANSACTION:
                    let guardState = Unmanaged<TransactionControlGuard>.fromOpaque(context).takeUnretainedValue()
                    guardState.preparedTransactionControl = true
                    // The operation is "BEGIN", "COMMIT" (for END too) or "ROLLBACK".
                    guardState.preparedCommit = operation.map { String(cString: $0) == "COMMIT" } ?? false
                    return guardState.refusal == nil ? SQLITE_OK : SQLITE_DENY
                case SQLITE_SAVEPOINT:
                    let guardState = Unmanaged<TransactionControlGuard>.fromOpaque(context).takeUnretainedValue()
                    guardState.preparedSavepoint = true
                    // The operation is "BEGIN", "RELEASE" or "ROLLBACK".
                    guardState.preparedCommit = operation.map { String(cString: $0) == "RELEASE" } ?? false
                    return SQLITE_OK
                case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
                    Unmanaged<TransactionControlGuard>.fromOpaque(context).takeUnretainedValue().preparedWrite = true
                    return SQLITE_OK
                case SQLITE_CREATE_INDEX...SQLITE_DROP_VIEW, SQLITE_ALTER_TABLE, SQLITE_CREATE_VTABLE,
                    SQLITE_DROP_VTABLE:
                    // 1 to 17: CREATE and DROP of an index, a table, a trigger or a view, temporary or not.
                    let guardState = Unmanaged<TransactionControlGuard>.fromOpaque(context).takeUnretainedValue()
                    guardState.preparedSchemaChange = true
                    return SQLITE_OK
                default:
                    return SQLITE_OK
                }
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `body` with transaction control refused with `error`, then restores what was refused before.
    func refusing<Result>(with error: DatabaseError, _ body: () throws -> Result) rethrows -> Result {
        let previous = refusal
        refusal = error
        defer { refusal = previous }
        return try body()
    }

    /// The error for `failure`, a statement that failed to prepare: the refusal when the authorizer denied
    /// transaction control, `failure` itself otherwise.
    func explain(_ failure: DatabaseError, sql: String?) -> DatabaseError {
        guard preparedTransactionControl, let refusal, failure.resultCode?.primary.rawValue == SQLITE_AUTH else {
            return failure
        }
        return refusal.refusing(sql: sql, resultCode: failure.resultCode)
    }
}

extension DatabaseError {
    /// The error of a transaction control statement refused inside a block that owns the transaction.
    static let transactionControlRefused = DatabaseError(
        code: .invalidArgument,
        message: "BEGIN, COMMIT and ROLLBACK are refused inside a block that owns its transaction "
            + "(transaction { }, write { }): the block commits when it returns and rolls back when it throws; "
            + "nest transaction { } for a savepoint, or use writeWithoutTransaction to manage transactions yourself")

    /// This refusal, for the statement `sql`.
    func refusing(sql: String?, resultCode: ResultCode?) -> DatabaseError {
        DatabaseError(code: code, resultCode: resultCode, message: message, sql: sql)
    }
}
