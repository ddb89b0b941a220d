import Synchronization

extension ConnectionPool {
    /// Runs a pausable write on this pool's connection: the loop of ``DatabasePool/pausableWrite(maxTransactionDuration:_:)``
    /// and ``DatabaseQueue/pausableWrite(maxTransactionDuration:_:)``.
    ///
    /// The steps run on the connection's queue, many to a transaction. Between two steps, when another request waits
    /// for the connection, the transaction commits and ``yield(_:)`` hands the connection to the waiting requests;
    /// it comes back after them and a new transaction begins. Waiting is the pool's own waiter queue: no polling.
    func pausableWrite(
        maxTransactionDuration: Duration?,
        _ body: (Database, inout Bool, Bool) throws -> Void
    ) async throws {
        let cancellation = CancellationFlag()
        try await withTaskCancellationHandler {
            var connection = try await acquire(isPausable: true)
            var isFirstTransaction = true
            // After a commit on duration, how long that transaction lasted: the gap that lets a writer in another
            // process take the lock follows from it.
            var pauseAfter: Duration?
            while true {
                let end: PausableStepsEnd
                do {
                    end = try await connection.perform { db in
                        try db.lent { db in
                            if let pauseAfter {
                                db.pauseForOtherWriters(after: pauseAfter)
                            }
                            if isFirstTransaction {
                                try db.checkCanBeginPausableTransaction(maxDuration: maxTransactionDuration)
                            }
                            return try db.pausableSteps(
                                maxDuration: maxTransactionDuration,
                                shouldYield: { self.hasWaitingRequest },
                                isCancelled: { cancellation.isSet },
                                body)
                        }
                    }
                } catch {
                    release(connection)
                    throw error
                }
                switch end {
                case .stopped:
                    release(connection)
                    return
                case .cancelled:
                    release(connection)
                    throw CancellationError()
                case .writeWaiting:
                    countPausableYield()
                    // Throws on cancellation, holding no connection then.
                    connection = try await yield(connection)
                    pauseAfter = nil
                case .durationElapsed(let lasted):
                    // This pool's waiting work first (at once if none), then the gap for other processes.
                    connection = try await yield(connection)
                    pauseAfter = lasted
                }
                isFirstTransaction = false
            }
        } onCancel: {
            cancellation.set()
        }
    }
}

/// Cancellation of the task that runs a pausable write, read between steps on the connection's queue, where
/// `Task.isCancelled` does not see the task.
private final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool {
        flag.load(ordering: .relaxed)
    }

    func set() {
        flag.store(true, ordering: .relaxed)
    }
}
