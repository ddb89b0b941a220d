extension DatabasePool {
    /// Copies the database into a new file at `path` from a reader, **while writes go on**.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite")
    /// try await pool.backup(to: "backups/app-2025-06-01.sqlite") { progress in
    ///     logger.info("backup: \(progress)")          // 1000 of 2500 pages copied
    /// }
    /// ```
    ///
    /// - **The copy is one consistent snapshot: the database as committed when the backup starts.** It runs on one
    ///   of the reader connections, in a read transaction from its first step to its last, so **writes that commit
    ///   meanwhile are not in the copy, and no write waits for the backup**: in WAL mode a reader never blocks the
    ///   writer. The WAL grows meanwhile, since no checkpoint can go past a snapshot still read; the next checkpoint
    ///   after the backup catches up.
    /// - It holds that reader until it ends, so the other reads share the remaining ones.
    /// - Each step of `pagesPerStep` pages runs on the reader's queue; between steps the task is suspended, and
    ///   `progress` is awaited. **Cancelling the task stops the backup before its next step** with
    ///   `CancellationError`.
    /// - What ``Database/backup(to:overwrite:pagesPerStep:progress:)`` says of the destination holds here: nothing
    ///   half-written is ever at `path`, an existing file is replaced only with `overwrite`, and the pool's own file
    ///   is refused.
    ///
    /// - Parameters:
    ///   - path: The new file. A relative path starts from the current folder. Its folder must exist.
    ///   - overwrite: Whether to replace a file already at `path`.
    ///   - pagesPerStep: How many pages each step copies; -1 (or any negative number) copies everything in one step.
    ///   - progress: Awaited after each step, **the last time with ``BackupProgress/remainingPages`` 0**. It may
    ///     pause (to spread the backup's I/O over time) or throw to stop the backup: the error is rethrown and nothing
    ///     is left at `path`.
    /// - Returns: The final progress, which counts the pages copied.
    /// - Throws: `DatabaseError.Code.invalidArgument` for a destination that is refused and for `pagesPerStep` 0;
    ///   a `DatabaseError` from SQLite when the copy fails; the error `progress` throws;
    ///   `DatabaseError.Code.connectionClosed` after ``close()``; `CancellationError` when the task is cancelled.
    ///
    /// See https://www.sqlite.org/backup.html
    @discardableResult
    @concurrent
    public func backup(
        to path: String,
        overwrite: Bool = false,
        pagesPerStep: Int32 = 1000,
        progress: ((BackupProgress) async throws -> Void)? = nil
    ) async throws -> BackupProgress {
        try await readers.backup(to: path, overwrite: overwrite, pagesPerStep: pagesPerStep, progress: progress)
    }
}
