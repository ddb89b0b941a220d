import Foundation

extension Database {
    /// Runs `body` again and again in a transaction until it sets `stop`, **committing and beginning a new
    /// transaction each time `maxDuration` has passed**: a long write (an import, a backfill) that lets writers on
    /// other connections, and in other processes, take their turn.
    ///
    /// ```swift
    /// var index = 0
    /// try db.pausableTransaction(maxDuration: .milliseconds(200)) { db, stop, isNewTransaction in
    ///     try db.execute(query: "INSERT INTO item (name) VALUES (?)", parameters: names[index])
    ///     index += 1
    ///     stop = index == names.count
    /// }
    /// ```
    ///
    /// - **The body is called once per step**, and one transaction holds many steps. The first call, and the first
    ///   call after each commit, get `isNewTransaction == true`: another connection may have written in between, so
    ///   re-read there anything the steps depend on.
    /// - **After a commit on duration, a writer on another connection or in another process that began waiting
    ///   during the transaction gets in before the next one begins**, so it waits about one `maxDuration` at most.
    ///   Nothing tells this connection that a writer waits: that writer sleeps in its busy handler (SQLite's busy
    ///   timeout, which Strata sets) and tries again 1, 2, 5... and at most 100 ms later, longer the longer it has
    ///   waited. So the write lock stays free, before the next transaction begins, for the longest such sleep of a
    ///   writer that has waited as long as the transaction ran, and a quarter more (at least 5 ms): 25 ms after a
    ///   50 ms transaction, 31 ms after a 100 ms one, 125 ms after one of a quarter second or more.
    /// - **If the body throws, the current transaction rolls back and the error is thrown**; what earlier
    ///   transactions committed stays committed. A commit that fails throws the same way.
    /// - **Cancelling the calling task stops the loop** at the next step: what the steps did so far is committed,
    ///   then `CancellationError` is thrown.
    /// - `BEGIN`, `COMMIT` and `ROLLBACK` are refused inside `body`; nest ``transaction(_:_:)`` for a savepoint.
    ///
    /// On a ``DatabasePool`` or ``DatabaseQueue``, use their `pausableWrite`, which also gives way to the pool's
    /// other writes as soon as one waits.
    ///
    /// - Parameters:
    ///   - maxDuration: How long one transaction may run; it commits after the step that passes it.
    ///   - body: One step: the connection, a flag to set when the work is done, and whether this step is the first
    ///     of a transaction.
    /// - Throws: `DatabaseError.Code.invalidArgument` inside a transaction (nothing runs) or for a duration that
    ///   is not positive; the error of `body`; a `DatabaseError` when a transaction cannot begin or commit;
    ///   `CancellationError` when the task was cancelled.
    ///
    /// See https://www.sqlite.org/lang_transaction.html
    public func pausableTransaction(
        maxDuration: Duration,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) throws {
        try checkCanBeginPausableTransaction(maxDuration: maxDuration)
        while true {
            let end = try pausableSteps(
                maxDuration: maxDuration,
                shouldYield: { false },
                isCancelled: { Task.isCancelled },
                body)
            switch end {
            case .stopped: return
            case .cancelled: throw CancellationError()
            case .durationElapsed(let lasted): pauseForOtherWriters(after: lasted)
            case .writeWaiting: break
            }
        }
    }

    /// Throws when a pausable loop cannot begin here: inside a transaction, whose end it would steal, or with a
    /// duration that is not positive.
    func checkCanBeginPausableTransaction(maxDuration: Duration?) throws {
        if let maxDuration, maxDuration <= .zero {
            throw DatabaseError(
                code: .invalidArgument,
                message: "the maximum duration of a pausable transaction must be positive, "
                    + "not \(maxDuration)")
        }
        guard !isInTransaction else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "a pausable transaction cannot run inside another transaction (a write block, "
                    + "transaction { } or another pausable transaction): it commits on its own schedule; "
                    + "start it on its own, with pool.pausableWrite or db.pausableTransaction")
        }
    }

    /// Runs steps of `body` in a new immediate transaction, the first with `isNewTransaction == true`, and commits
    /// it, until `body` stops, the task is cancelled, `shouldYield` says another write waits for the connection, or
    /// `maxDuration` has passed.
    ///
    /// If `body` throws, or the commit fails, the transaction rolls back and the error is thrown.
    func pausableSteps(
        maxDuration: Duration?,
        shouldYield: () -> Bool,
        isCancelled: () -> Bool,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) throws -> PausableStepsEnd {
        let clock = ContinuousClock()
        let start = clock.now
        try beginTransaction(.immediate)
        let deadline = maxDuration.map { clock.now.advanced(by: $0) }
        let end: PausableStepsEnd
        do {
            end = try runBlock {
                try refusingTransactionControl(.transactionControlRefused) {
                    var stop = false
                    var isNewTransaction = true
                    while true {
                        try body(self, &stop, isNewTransaction)
                        // A step that caught a failed statement ends the loop: the transaction rolls back, and the
                        // failure is thrown (see `runBlock`).
                        if connection.isAborted { return .stopped }
                        isNewTransaction = false
                        try checkPausableStepKeptTransaction()
                        if stop { return .stopped }
                        if isCancelled() { return .cancelled }
                        if shouldYield() { return .writeWaiting }
                        if let deadline, clock.now >= deadline { return .durationElapsed(lasted: clock.now - start) }
                    }
                }
            }
            try commitTransaction()
        } catch {
            if isInTransaction {
                try? rollbackTransaction()
            }
            throw error
        }
        return end
    }

    /// Throws when the transaction of a pausable step has gone: SQLite rolls one back on its own after some errors
    /// (a full disk, an I/O error), and a body that caught the error would go on writing outside any transaction.
    /// Also throws after a `close()` a pool refused.
    private func checkPausableStepKeptTransaction() throws {
        if closeWasRefused {
            throw DatabaseError(
                code: .invalidArgument,
                message: "close() was called inside a pausable write: the pool owns its connections and closes "
                    + "them in its own close(); the current transaction rolls back, earlier ones stay committed")
        }
        guard isInTransaction else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "the transaction of a pausable write ended inside a step: SQLite rolled it back after an "
                    + "error the step caught; what this transaction wrote is lost, earlier transactions stay "
                    + "committed")
        }
    }

    /// Leaves the write lock free after a commit on duration, for a transaction that `lasted` that long, so that a
    /// writer on another connection, waiting in its busy handler since the transaction began (or later), tries again
    /// while it is free.
    ///
    /// The waiter sleeps as SQLite's busy handler does (``BusyBackoff``), at most the longest sleep of a writer that
    /// has waited `lasted`; a quarter more (at least 5 ms) covers a sleep that ends late on a busy machine.
    func pauseForOtherWriters(after lasted: Duration) {
        let gap = Self.otherWritersGap(after: lasted)
        let microseconds = gap.components.seconds * 1_000_000 + gap.components.attoseconds / 1_000_000_000_000
        usleep(useconds_t(clamping: max(microseconds, 1)))
    }

    /// How long ``pauseForOtherWriters(after:)`` leaves the write lock free after a transaction that `lasted`.
    static func otherWritersGap(after lasted: Duration) -> Duration {
        let sleep = BusyBackoff.longestSleep(afterWaiting: lasted)
        return sleep + max(sleep / 4, .milliseconds(5))
    }
}

/// Why ``Database/pausableSteps(maxDuration:shouldYield:isCancelled:_:)`` committed.
enum PausableStepsEnd {
    /// The body set `stop`: the work is done.
    case stopped
    /// The task was cancelled.
    case cancelled
    /// Another write of the pool or queue waits for the connection.
    case writeWaiting
    /// The transaction ran for its maximum duration; it lasted `lasted`, from its `BEGIN` to its `COMMIT`.
    case durationElapsed(lasted: Duration)
}
