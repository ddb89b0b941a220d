internal import CSQLite

/// How far a backup has got: reported after each step of ``Database/backup(to:overwrite:pagesPerStep:progress:)``,
/// ``DatabasePool/backup(to:overwrite:pagesPerStep:progress:)`` and ``DatabaseQueue/backup(to:overwrite:pagesPerStep:progress:)``.
///
/// ```swift
/// try db.backup(to: "backup.sqlite", pagesPerStep: 100) { progress in
///     print("\(progress.copiedPages) of \(progress.totalPages) pages")
/// }
/// ```
///
/// See https://www.sqlite.org/c3ref/backup_finish.html#sqlite3backupremaining
public struct BackupProgress: Sendable, Hashable, CustomStringConvertible {
    /// The pages of the source database.
    public var totalPages: Int
    /// The pages still to copy: 0 once the copy is complete.
    public var remainingPages: Int

    public init(totalPages: Int, remainingPages: Int) {
        self.totalPages = totalPages
        self.remainingPages = remainingPages
    }

    /// The files a complete backup could not remove, each with the operating system's error, such as
    /// `backup.sqlite.strata-backup-UUID (errno 5 (Input/output error))`; empty unless the disk failed.
    ///
    /// Set only in the final progress a backup returns. **The copy at the destination is complete all the same**;
    /// remove these files by hand. (A backup that fails names the files it left in its error instead.)
    public var leftovers: [String] = []

    /// The pages copied so far.
    public var copiedPages: Int { totalPages - remainingPages }

    /// Whether every page is copied.
    public var isComplete: Bool { remainingPages == 0 }

    /// The part copied, from 0 to 1; 1 for an empty database.
    public var fractionCompleted: Double {
        totalPages == 0 ? 1 : Double(copiedPages) / Double(totalPages)
    }

    /// `12 of 40 pages copied`
    public var description: String { "\(copiedPages) of \(totalPages) pages copied" }
}

extension Database {
    /// Copies the database into a new file at `path`, a step at a time, with SQLite's online backup.
    ///
    /// ```swift
    /// let db = try Database(path: "app.sqlite")
    /// try db.backup(to: "backups/app-2025-06-01.sqlite") { progress in
    ///     print(progress)     // 1000 of 2500 pages copied
    /// }
    /// ```
    ///
    /// - **The copy is one consistent snapshot**: the database as this connection sees it when the backup starts or,
    ///   inside a read transaction, as that transaction sees it. The backup reads in a transaction that lasts until
    ///   it ends, so **commits of other connections meanwhile are not in the copy and do not restart it**. In WAL
    ///   mode they go on while the backup runs; in a rollback-journal mode they wait for it (up to their busy
    ///   timeout).
    /// - **Nothing half-written is ever at `path`**: the pages go to a temporary file beside it (named
    ///   `NAME.strata-backup-UUID`), which is synced and renamed to `path` only once complete. **A backup that
    ///   fails, or that `progress` stops by throwing, removes its temporary file and leaves `path` as it was.**
    /// - **An existing file at `path` is refused unless `overwrite` is true**; then it is replaced in one rename:
    ///   whoever opens `path` gets the old file or the complete copy. A `-wal` or `-journal` file with content beside
    ///   `path` is always refused: SQLite would apply it to the copy. Replace a file no connection has open.
    /// - **The source is never a destination**: its own file is refused even with `overwrite`, whether named by the
    ///   same path, through `./` or `..`, a symbolic link or a hard link, as are its `-wal`, `-shm` and `-journal`
    ///   files. A symbolic link at `path` to another file is followed.
    /// - The copy has the source's schema, data, page size, `user_version` and journal mode (a WAL source gives a WAL
    ///   copy). Only the `main` database is copied, not attached ones. An in-memory database backs up to a file like
    ///   any other.
    /// - Inside a write transaction (one that has written, or began `IMMEDIATE` or `EXCLUSIVE`), the backup throws:
    ///   it would copy changes not yet committed.
    ///
    /// - Parameters:
    ///   - path: The new file. A relative path starts from the current folder. Its folder must exist.
    ///   - overwrite: Whether to replace a file already at `path`.
    ///   - pagesPerStep: How many pages each step copies; -1 (or any negative number) copies everything in one step.
    ///   - progress: Called after each step, **the last time with ``BackupProgress/remainingPages`` 0**. Throw to
    ///     stop the backup: the error is rethrown and nothing is left at `path`.
    /// - Returns: The final progress, which counts the pages copied.
    /// - Throws: `DatabaseError.Code.invalidArgument` for a destination that is refused (its folder missing, the
    ///   source's own file, a file already there without `overwrite`, a folder, a `-wal` or `-journal` file beside
    ///   it), for `pagesPerStep` 0, and inside a write transaction; a `DatabaseError` from SQLite when the copy
    ///   fails (a full disk, an unreadable page); `DatabaseError.Code.connectionClosed` when the database is closed,
    ///   before or during the backup; the error `progress` throws.
    /// - Complexity: O(pages of the database); the steps hold only a page at a time in memory.
    ///
    /// See https://www.sqlite.org/backup.html
    @discardableResult
    public func backup(
        to path: String,
        overwrite: Bool = false,
        pagesPerStep: Int32 = 1000,
        progress: ((BackupProgress) throws -> Void)? = nil
    ) throws -> BackupProgress {
        let operation = try BackupOperation(source: self, path: path, overwrite: overwrite, pagesPerStep: pagesPerStep)
        do {
            var current: BackupProgress
            repeat {
                current = try operation.step(source: self)
                try progress?(current)
            } while !operation.isDone
            try operation.finish(source: self)
            current.leftovers = operation.leftovers
            return current
        } catch {
            operation.abandon(source: self)
            throw operation.reportingLeftovers(in: error)
        }
    }

    /// The absolute path of the `main` database's file, nil for an in-memory or temporary database.
    ///
    /// See https://www.sqlite.org/c3ref/db_filename.html
    var mainFilePath: String? {
        get throws {
            guard let name = sqlite3_db_filename(try openHandle(), "main") else { return nil }
            let path = String(cString: name)
            return path.isEmpty ? nil : path
        }
    }
}
