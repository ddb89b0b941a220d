import Foundation
internal import StrataCore

/// What a ``PostgresSession`` has done so far, shared by its copies: whether its body still runs, its transaction
/// blocks and their first failures, whether it may have changed the connection's session, a connection that broke,
/// a result still being read, and a cancel request on its way to the server.
final class PostgresSessionState: Sendable {
    /// A `write`'s transaction or a nested `transaction { }`.
    struct Block: Sendable {
        /// The savepoint of a nested transaction; nil for the transaction itself.
        let savepoint: String?
        /// The first statement of the block that failed: the block rolls back and throws it when it ends.
        var failure: (any Error)?
    }

    struct Value: Sendable {
        /// Whether the session's body still runs.
        var isOpen = true
        /// The open transaction blocks, outermost first.
        var blocks: [Block] = []
        /// Whether a statement may have changed the connection's session (see ``PostgresStatementEffects``).
        var changedSession = false
        /// Whether the caller's SQL began or ended a transaction outside any block (a read's `BEGIN`).
        var controlledTransaction = false
        /// The error of the connection when it broke: every later statement throws it.
        var lost: DatabaseError?
        /// A result not read to its end.
        var result: PostgresOpenResult?
        /// A cancel request on its way to the server: no statement is sent before it arrived.
        var pendingCancel: Task<Void, Never>?
        /// The number of statements started, to tell a cancelled statement from the next one.
        var statements: UInt64 = 0
        /// Whether a statement waits for the server.
        var isWaiting = false
    }

    private let value = LockedValue(Value())

    /// Runs `body` with the state, under its lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try value.withLock(body)
    }

    /// Whether the session's body still runs.
    var isOpen: Bool {
        value.withLock { $0.isOpen }
    }

    /// Whether statement number `statement` still waits for the server.
    func isWaiting(on statement: UInt64) -> Bool {
        value.withLock { $0.isWaiting && $0.statements == statement }
    }

    /// The error of a session used after its body returned.
    static func usedAfterEnd(sql: String?) -> DatabaseError {
        DatabaseError(
            code: .connectionClosed, message: "the PostgreSQL session was used after its read or write returned",
            sql: sql)
    }
}

extension PostgresSessionState.Value {
    /// Lets a statement of `effects` start, or throws why it cannot: the session ended, its connection broke, its
    /// block failed earlier, or it is `BEGIN`/`COMMIT`/`ROLLBACK` inside a block.
    mutating func admit(sql: String, effects: PostgresStatementEffects) throws {
        guard isOpen else { throw PostgresSessionState.usedAfterEnd(sql: sql) }
        try admitInternal(sql: sql)
        if effects.controlsTransaction {
            guard blocks.isEmpty else {
                let refusal = DatabaseError(
                    code: .invalidArgument,
                    message:
                        "BEGIN, COMMIT and ROLLBACK are refused inside a read, a write or a transaction { }: the block "
                        + "owns its transaction; nest with transaction { } instead",
                    sql: sql)
                // The block rolls back, so that nothing it wrote is committed behind the caller's back.
                blocks[blocks.count - 1].failure = refusal
                throw refusal
            }
            controlledTransaction = true
            changedSession = true
        }
        if effects.changesSession { changedSession = true }
    }

    /// Lets one of Strata's own statements start (a savepoint, a transaction's end), or throws the error of a
    /// broken connection or of the block's first failure.
    mutating func admitInternal(sql: String) throws {
        if let lost {
            throw DatabaseError(code: lost.code, sqlState: lost.sqlState, message: lost.message, sql: sql)
        }
        if let failure = blocks.last?.failure {
            throw DatabaseError.transactionAborted(by: failure, sql: sql)
        }
    }

    /// Notes `error`, which a statement threw: a server error fails the innermost block; a connection that broke
    /// fails every later statement.
    mutating func record(_ error: any Error) {
        if let error = error as? DatabaseError {
            switch error.code {
            case _ where error.isRefusalByDatabase, .transactionAborted:
                failBlock(error)
            case .connectionLost, .commitOutcomeUnknown:
                if lost == nil { lost = error }
                failBlock(error)
            default:
                break
            }
        } else if error is CancellationError {
            // The server's statement was cancelled, which aborts the transaction it ran in.
            failBlock(error)
        }
    }

    /// Notes `error`, thrown while the rows a write returned were read (see `PostgresSession.undoingWrite`): it fails
    /// the innermost block as a server error does, unless nothing was written.
    mutating func writtenRowsFailed(_ error: any Error) {
        if DatabaseError.failsItsBlock(readingWrittenRows: error) { failBlock(error) }
    }

    /// Fails the innermost block with `error`, unless it failed before.
    private mutating func failBlock(_ error: any Error) {
        guard !blocks.isEmpty, blocks[blocks.count - 1].failure == nil else { return }
        blocks[blocks.count - 1].failure = error
    }
}
