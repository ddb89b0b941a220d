extension DatabaseQueue {
    /// Copies the database, in-memory or on file, into a new file at `path`, in the queue's turn.
    ///
    /// ```swift
    /// let queue = try DatabaseQueue()                 // in-memory
    /// try await queue.backup(to: "snapshot.sqlite")
    /// ```
    ///
    /// - **The copy is one consistent snapshot: the database as committed when the backup starts.**
    /// - **The backup holds the queue's one connection from its first step to its last: reads and writes of the
    ///   queue wait until it ends.** Use ``DatabasePool/backup(to:overwrite:pagesPerStep:progress:)`` to keep writing
    ///   while a file is backed up.
    /// - Between steps the task is suspended and `progress` is awaited. Cancelling the task stops the backup before
    ///   its next step with `CancellationError`.
    /// - What ``Database/backup(to:overwrite:pagesPerStep:progress:)`` says of the destination holds here: nothing
    ///   half-written is ever at `path`, an existing file is replaced only with `overwrite`, and the queue's own file
    ///   is refused.
    ///
    /// - Parameters:
    ///   - path: The new file. A relative path starts from the current folder. Its folder must exist.
    ///   - overwrite: Whether to replace a file already at `path`.
    ///   - pagesPerStep: How many pages each step copies; -1 (or any negative number) copies everything in one step.
    ///   - progress: Awaited after each step, the last time with ``BackupProgress/remainingPages`` 0. Throw to stop
    ///     the backup: the error is rethrown and nothing is left at `path`.
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
        try await connection.backup(to: path, overwrite: overwrite, pagesPerStep: pagesPerStep, progress: progress)
    }
}
