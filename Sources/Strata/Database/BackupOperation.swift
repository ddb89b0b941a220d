internal import CSQLite

/// One backup under way: the read transaction that pins the source's snapshot, the destination connection on the
/// temporary file, and SQLite's backup object between them.
///
/// ``Database/backup(to:overwrite:pagesPerStep:progress:)`` runs it in one call; a pool or queue runs each step in
/// its own turn on the connection's queue, holding the connection in between. Either way it ends with ``finish(source:)``
/// or ``abandon(source:)``, each on the source connection.
///
/// The read transaction is what makes the copy a snapshot: `sqlite3_backup_step` opens and closes a read transaction
/// of its own at each step when none is open, so the source could change between steps (and SQLite would restart
/// the copy at every commit of another connection). Inside one transaction, every step reads the same snapshot.
///
/// See https://www.sqlite.org/backup.html
final class BackupOperation {
    private let destination: BackupDestination
    private let pagesPerStep: Int32
    /// Whether the backup began the source's transaction, and so ends it.
    private let ownsTransaction: Bool
    private var destinationHandle: OpaquePointer?
    private var backup: OpaquePointer?
    /// Whether the last step copied the last page.
    private(set) var isDone = false
    /// The files the backup could not remove (see `BackupDestination.removeTemporaryFile()`), each with the operating
    /// system's error.
    private(set) var leftovers: [String] = []

    /// Checks the destination, pins the source's snapshot, and creates the temporary file.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for a refused destination, `pagesPerStep` 0, or a source
    ///   inside a write transaction; a ``DatabaseError`` when the temporary file cannot be created.
    init(source: Database, path: String, overwrite: Bool, pagesPerStep: Int32) throws {
        guard pagesPerStep != 0 else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "a backup step of 0 pages copies nothing; use a positive number, or -1 for all at once")
        }
        let sourceHandle = try source.openHandle()
        guard sqlite3_txn_state(sourceHandle, "main") != SQLITE_TXN_WRITE else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "cannot back up inside a write transaction: the copy would hold changes not yet committed; "
                    + "back up from a read transaction or outside any transaction")
        }
        self.destination = try BackupDestination(path: path, overwrite: overwrite, source: try source.mainFilePath)
        self.pagesPerStep = pagesPerStep
        self.ownsTransaction = !source.isInTransaction
        if ownsTransaction {
            try source.beginTransaction(.deferred)
        }
        do {
            // BEGIN takes no snapshot until the first read: take it now, before the first step.
            if sqlite3_txn_state(sourceHandle, "main") == SQLITE_TXN_NONE {
                try source.execute(query: "SELECT count(*) FROM main.sqlite_schema")
            }
            try openDestination(source: sourceHandle)
        } catch {
            abandon(source: source)
            throw error
        }
    }

    deinit {
        // Only when a caller forgot both `finish` and `abandon`: never leave the temporary file behind.
        closeDestination()
    }

    /// Copies the next `pagesPerStep` pages and reports how far the copy has got.
    ///
    /// - Throws: A ``DatabaseError`` when SQLite cannot read the source or write the copy;
    ///   ``DatabaseError/Code/connectionClosed`` once the source is closed.
    func step(source: Database) throws -> BackupProgress {
        // SQLite keeps a closed source alive for the backup: stop instead of copying from it.
        _ = try source.openHandle()
        guard let backup, !isDone else {
            throw DatabaseError(code: .invalidArgument, message: "the backup to \(destination.path) has ended")
        }
        let result = sqlite3_backup_step(backup, pagesPerStep)
        let progress = BackupProgress(
            totalPages: Int(sqlite3_backup_pagecount(backup)),
            remainingPages: Int(sqlite3_backup_remaining(backup)))
        switch result {
        case SQLITE_DONE:
            isDone = true
        case SQLITE_OK:
            break
        default:
            // A failed step leaves no message on either connection (finish would copy it to the destination's); the
            // operating system's error is on the files of one or the other.
            let error = failure(result, connection: nil, filesOf: destinationHandle)
            // An I/O error reading the source can break its connection: a pool replaces it before its next use.
            source.connection.recordFailure(error)
            throw error
        }
        return progress
    }

    /// Ends the read transaction and moves the complete copy to its path.
    ///
    /// A temporary file that cannot be removed once the copy is in place is kept in ``leftovers``.
    ///
    /// - Throws: A ``DatabaseError`` when SQLite cannot complete the copy or it cannot be moved into place; the
    ///   caller then abandons the backup, which removes the temporary file.
    func finish(source: Database) throws {
        guard isDone, let backup else {
            throw DatabaseError(code: .invalidArgument, message: "the backup to \(destination.path) is not complete")
        }
        self.backup = nil
        let result = sqlite3_backup_finish(backup)
        guard result == SQLITE_OK else {
            let error = failure(result, connection: destinationHandle)
            abandon(source: source)
            throw error
        }
        endTransaction(source: source)
        if let destinationHandle {
            self.destinationHandle = nil
            let closed = sqlite3_close(destinationHandle)
            guard closed == SQLITE_OK else {
                let error = failure(closed, connection: destinationHandle)
                sqlite3_close_v2(destinationHandle)
                throw error
            }
        }
        leftovers += try destination.publish()
    }

    /// Stops the backup: ends the read transaction and removes the temporary file. Safe to call twice.
    func abandon(source: Database) {
        closeDestination()
        endTransaction(source: source)
    }

    /// `error`, the error that stopped the backup, naming the files it left behind when it is a ``DatabaseError``
    /// (another error, the one a `progress` closure threw, is the caller's own and stays as it is).
    func reportingLeftovers(in error: any Error) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        return error.reportingLeftovers(leftovers)
    }

    // MARK: Private

    private func openDestination(source sourceHandle: OpaquePointer) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let result = sqlite3_open_v2(destination.temporaryPath, &opened, flags, nil)
        destinationHandle = opened
        guard result == SQLITE_OK, let handle = opened else {
            throw failure(
                result, connection: opened, doing: "could not create the backup file \(destination.temporaryPath)")
        }
        // The copy is renamed into place once this connection commits: it must be on disk by then.
        sqlite3_exec(handle, "PRAGMA synchronous = FULL", nil, nil, nil)
        guard let backup = sqlite3_backup_init(handle, "main", sourceHandle, "main") else {
            throw failure(sqlite3_errcode(handle), connection: handle)
        }
        self.backup = backup
    }

    /// Releases SQLite's backup object and the destination connection, and removes the temporary file.
    private func closeDestination() {
        if let backup {
            self.backup = nil
            sqlite3_backup_finish(backup)
        }
        if let destinationHandle {
            self.destinationHandle = nil
            sqlite3_close_v2(destinationHandle)
        }
        for leftover in destination.removeTemporaryFile() where !leftovers.contains(leftover) {
            leftovers.append(leftover)
        }
    }

    private func endTransaction(source: Database) {
        // Ending a read transaction cannot lose anything; it fails only on a closed connection.
        if ownsTransaction && source.isInTransaction {
            try? source.rollbackTransaction()
        }
    }

    /// The error SQLite reported, with the message on `connection` or, without one, SQLite's text for `result`.
    private func failure(
        _ result: Int32, connection: OpaquePointer?, filesOf: OpaquePointer? = nil, doing action: String? = nil
    ) -> DatabaseError {
        let error = DatabaseError.sqlite(result, connection: connection, filesOf: filesOf)
        return error.withMessage("\(action ?? "backup to \(destination.path) failed"): \(error.message)")
    }
}
