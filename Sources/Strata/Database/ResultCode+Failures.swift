internal import CSQLite

extension ResultCode {
    /// Whether a `COMMIT` that failed with this code may have committed all the same.
    ///
    /// Decided per primary code, from what SQLite has written when it reports each one at `COMMIT`:
    ///
    /// - Not committed: `SQLITE_BUSY` and `SQLITE_LOCKED` (the commit could not take its lock, so it wrote nothing
    ///   and the transaction is still open); `SQLITE_FULL` (a write of the commit ran out of space: SQLite writes the
    ///   record that makes a transaction committed, the WAL's commit frame or the end of the rollback journal, only
    ///   after everything it covers, and a short or failed write leaves that record missing or with a bad checksum,
    ///   so the transaction rolls back); `SQLITE_CONSTRAINT` (a deferred foreign key, checked before anything is
    ///   written); `SQLITE_READONLY` (a file that cannot be written, or was moved, found before writing); and the
    ///   codes of a `COMMIT` that never ran (`SQLITE_ERROR`, `SQLITE_MISUSE`, `SQLITE_INTERRUPT`, `SQLITE_ABORT`,
    ///   `SQLITE_AUTH`, `SQLITE_SCHEMA`, `SQLITE_RANGE`, `SQLITE_TOOBIG`, `SQLITE_MISMATCH`).
    /// - Unknown: everything else, first of all `SQLITE_IOERR` and its extended codes. The commit's write may have
    ///   reached the disk before its sync failed (`SQLITE_IOERR_FSYNC`: in WAL mode the commit frame is in the file,
    ///   and the next connection to read the WAL from scratch replays it), or the failure came after the commit point
    ///   (`SQLITE_IOERR_UNLOCK` once the rollback journal is gone, `SQLITE_IOERR_DELETE` of the journal itself).
    ///   `SQLITE_CORRUPT`, `SQLITE_NOTADB`, `SQLITE_PROTOCOL`, `SQLITE_NOMEM` and `SQLITE_CANTOPEN` can come from a
    ///   failed read or lock in the middle of the commit, and a code SQLite adds later is unknown until known.
    var leavesCommitOutcomeUnknown: Bool {
        switch primary {
        case .busy, .locked, .full, .constraint, .readOnly, .error, .misuse, .interrupt, .abort, .range, .schema,
            .tooBig, .mismatch, ResultCode(rawValue: 23):  // SQLITE_AUTH
            false
        default:
            true
        }
    }

    /// Whether a connection that reported this code may be left unusable until it is reopened, though the file is
    /// sound: a failed unlock leaves SQLite believing it still holds a lock, so that every later call of every
    /// connection of the process fails with `SQLITE_PROTOCOL`; a failed read can surface as `SQLITE_CORRUPT` or
    /// `SQLITE_NOTADB`. ``DatabasePool`` and ``DatabaseQueue`` reopen such a connection before its next use.
    var mayBreakConnection: Bool {
        switch primary {
        case .ioError, .protocol, .corrupt, .notADatabase, .cantOpen: true
        default: false
        }
    }
}

extension DatabaseError {
    /// This error of a failed `COMMIT`, as the caller must read it: ``DatabaseError/Code/commitOutcomeUnknown`` when
    /// the transaction may have committed all the same, itself when it certainly did not.
    ///
    /// A `connection` that still holds the write transaction after the failure committed nothing, whatever the code
    /// (see ``holdsWriteTransaction(_:)``).
    func atCommit(on connection: OpaquePointer) -> DatabaseError {
        guard isRefusalByDatabase, !holdsWriteTransaction(connection), let resultCode,
            resultCode.leavesCommitOutcomeUnknown
        else {
            return self
        }
        return DatabaseError(
            code: .commitOutcomeUnknown, resultCode: resultCode,
            message: "the commit failed with \(message), so the transaction may or may not be committed; check the "
                + "data before retrying", sql: sql, underlyingError: self)
    }
}

/// Whether `connection` holds a write transaction (`sqlite3_txn_state` is `SQLITE_TXN_WRITE`): before a commit,
/// whether it has writes to commit; after a failed one, whether nothing was committed. Not `sqlite3_get_autocommit`:
/// after a `RELEASE` whose commit failed, SQLite leaves the connection out of autocommit mode although the commit went
/// as far as it went and the write transaction is over.
///
/// See https://www.sqlite.org/c3ref/txn_state.html
func holdsWriteTransaction(_ connection: OpaquePointer) -> Bool {
    sqlite3_txn_state(connection, nil) == SQLITE_TXN_WRITE
}
