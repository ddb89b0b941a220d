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

    /// The first failure of each open transaction block, innermost last (see `Database.runBlock`): a statement SQLite
    /// rejected, or rows a write returned that could not be read.
    @exclusivity(unchecked) private var blockFailures: [(any Error)?] = []
    /// Whether the innermost open block has a failed statement: every statement but transaction control is then
    /// refused until the block ends. Read at every step.
    @exclusivity(unchecked) private(set) var isAborted = false

    /// Whether a transaction block is open (see `Database.runBlock`).
    var isInBlock: Bool { !blockFailures.isEmpty }

    /// Opens a transaction block.
    func beginBlock() {
        blockFailures.append(nil)
        isAborted = false
    }

    /// Closes the innermost transaction block and returns its first failure, if any.
    func endBlock() -> (any Error)? {
        let failure = blockFailures.popLast() ?? nil
        isAborted = (blockFailures.last ?? nil) != nil
        return failure
    }

    /// Notes `error`, which SQLite reported for a statement that is not transaction control: the first in an open
    /// block fails that block.
    func statementFailed(_ error: DatabaseError) {
        guard error.isRefusalByDatabase else { return }
        failBlock(error)
    }

    /// Fails the innermost open block with `error`, unless it failed before: it rolls back when it ends, and throws
    /// its first failure.
    func failBlock(_ error: any Error) {
        guard let innermost = blockFailures.indices.last, blockFailures[innermost] == nil else { return }
        blockFailures[innermost] = error
        isAborted = true
    }

    /// The refusal of `sql`, run after a failed statement in the innermost block.
    func abortedRefusal(sql: String?) -> DatabaseError {
        let failure =
            (blockFailures.last ?? nil) ?? DatabaseError(code: .sqlite, message: "an earlier statement failed")
        return DatabaseError.transactionAborted(by: failure, sql: sql)
    }
    /// The first error SQLite reported that can leave this connection unusable though the file is sound (an I/O
    /// error, a locking protocol error, a read that surfaced as corruption; see `ResultCode.mayBreakConnection`); nil
    /// while there was none. A ``DatabasePool`` or ``DatabaseQueue`` replaces such a connection before its next use.
    @exclusivity(unchecked) var brokenBy: ResultCode?

    /// The tables the open transaction changed, while an observation listens (see ``takeCommit()``).
    let changes = ChangeLog()

    /// The SQL of the statements run while an observation reads (see `Database.tablesRead(during:)`); nil otherwise.
    @exclusivity(unchecked) private(set) var statementsRun: Set<String>?

    /// Whether ``willRun(sql:changesSchema:)`` has anything to note for any statement.
    @exclusivity(unchecked) private(set) var notesEveryStatement = false

    /// Set by SQLite's commit hook when a transaction that wrote commits on this connection; read and cleared by
    /// ``takeCommit()`` when the work of a pool or queue ends (the hook runs inside the statement that commits, on the
    /// connection's thread, before the commit is visible to other connections). A read-only transaction or a rollback
    /// never sets it.
    ///
    /// See https://www.sqlite.org/c3ref/commit_hook.html
    @exclusivity(unchecked) private var hasCommitted = false

    init(handle: OpaquePointer) {
        self.handle = handle
        transactionGuard.install(on: handle)
        sqlite3_commit_hook(
            handle,
            { context in
                if let context { Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().hasCommitted = true }
                return 0  // 0 lets the commit go on.
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// The tables changed by the transactions that wrote and committed on this connection since the last call; nil
    /// when none did. The tables are known while ``recordChanges(_:)`` records them, and for the commits it recorded
    /// whole; any other commit changed ``TableScope/everything``.
    func takeCommit() -> TableScope? {
        let committed = hasCommitted
        hasCommitted = false
        guard let handle else { return committed ? .everything : nil }
        let totalChanges = sqlite3_total_changes64(handle)
        let changed = committed ? changes.changes(totalChanges: totalChanges) : nil
        // A transaction still open goes on adding to the log.
        if sqlite3_get_autocommit(handle) != 0 { changes.restart(totalChanges: totalChanges) }
        return changed
    }

    /// Records the tables each transaction changes from now on, for the commits ``takeCommit()`` reports, or stops.
    func recordChanges(_ recording: Bool) {
        guard let handle, recording != changes.isRecording else { return }
        changes.record(recording, on: handle)
        notesEveryStatement = recording || statementsRun != nil
    }

    /// Runs `body` noting the SQL of every statement that runs meanwhile, and returns them with what `body` returns.
    func noteStatements<Output>(during body: () async throws -> Output) async rethrows -> (Output, Set<String>) {
        statementsRun = []
        notesEveryStatement = true
        defer {
            statementsRun = nil
            notesEveryStatement = changes.isRecording
        }
        let output = try await body()
        return (output, statementsRun ?? [])
    }

    /// Notes a statement about to run its first step: the schema change it makes, and its SQL while an observation
    /// reads. One test when there is nothing to note, so that every statement's first step can call it.
    @inline(__always)
    func willRun(sql: @autoclosure () -> String, changesSchema: Bool) {
        if changesSchema || notesEveryStatement { note(sql: sql(), changesSchema: changesSchema) }
    }

    private func note(sql: String, changesSchema: Bool) {
        if changesSchema { changes.schemaChanged = true }
        changes.lastTable = nil
        statementsRun?.insert(sql)
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

    /// Notes a failure SQLite reported on this connection: one that can break it sets ``brokenBy``.
    func recordFailure(_ error: DatabaseError) {
        if brokenBy == nil, let code = error.resultCode, code.mayBreakConnection {
            brokenBy = code
        }
    }

    /// The handle, or a thrown ``DatabaseError/Code/connectionClosed``.
    @inline(__always)
    func openHandle(sql: String? = nil) throws -> OpaquePointer {
        guard let handle else { throw DatabaseError.closed(sql: sql) }
        return handle
    }
}
