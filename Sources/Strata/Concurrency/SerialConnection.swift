import Dispatch
import Synchronization

/// One SQLite connection and the serial dispatch queue its calls run on.
///
/// SQLite calls block, so they never run on Swift's cooperative thread pool: ``perform(_:)`` hands the body to
/// `queue`, a serial queue on libdispatch's own threads, and suspends the caller, without blocking a thread, until the
/// body has returned.
///
/// Callers hold a lease from ``ConnectionPool``, so only one body at a time is ever submitted. The database sits in a
/// mutex all the same: the compiler checks that it is only reached under the lock, and the lock is never contended.
final class SerialConnection: Sendable {
    private let database: Mutex<Database>
    private let queue: DispatchQueue

    init(_ database: consuming sending Database, label: String) {
        database.isOwnedByPool = true
        self.database = Mutex(database)
        self.queue = DispatchQueue(label: label)
    }

    /// Runs `body` with the connection on the connection's queue and returns what it returns.
    ///
    /// The caller stays suspended until `body` has returned, which is what makes handing a non-escaping,
    /// non-`Sendable` closure to another thread sound (see ``ConnectionJob``).
    @concurrent
    func perform<Output>(_ body: (Database) throws -> Output) async throws -> Output {
        try await withoutActuallyEscaping(body) { escapableBody in
            let job = ConnectionJob(escapableBody)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    self.database.withLock { database in job.run(on: database) }
                    // `run` has dropped the closure already, so `withoutActuallyEscaping` sees it unescaped.
                    continuation.resume()
                }
            }
            return try job.takeOutput()
        }
    }

    /// Runs `body` with the connection on the connection's queue, later, without waiting for it.
    func submit(_ body: @escaping @Sendable (Database) -> Void) {
        queue.async {
            self.database.withLock { database in body(database) }
        }
    }

    /// Closes the connection on its queue, after whatever was submitted before.
    @concurrent
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.database.withLock { database in database.closeConnection() }
                continuation.resume()
            }
        }
    }
}

/// The body of one call, carried to a connection's queue, and its outcome, carried back.
///
/// `@unchecked Sendable` is sound because the caller stays suspended until the body returns (the closure never runs
/// concurrently with its owner), and because the public entry points (`DatabasePool.write` and its siblings) are
/// `@concurrent`, the compiler rejects closures that capture actor-isolated state from an actor context. The queue
/// runs the body and stores `outcome`, then publishes them with a releasing store to `isFinished`; the caller reads
/// `outcome` only after an acquiring load of it, once the queue has resumed its continuation. So everything the body
/// did, to the database and to the caller's variables, happens before the caller goes on, with an edge the thread
/// sanitizer sees too (the runtime does not annotate a continuation resumed before its task suspends).
final class ConnectionJob<Output>: @unchecked Sendable {
    private var body: ((Database) throws -> Output)?
    private var outcome: Result<Output, any Error>?
    private let isFinished = Atomic<Bool>(false)

    init(_ body: @escaping (Database) throws -> Output) {
        self.body = body
    }

    /// Runs the body once and keeps its outcome. The closure is released before this returns.
    func run(on database: Database) {
        guard let body else { return }
        self.body = nil
        outcome = Result { try body(database) }
        isFinished.store(true, ordering: .releasing)
    }

    /// What the body returned or threw.
    func takeOutput() throws -> Output {
        guard isFinished.load(ordering: .acquiring), let outcome else {
            throw DatabaseError(code: .connectionClosed, message: "the connection stopped before the work could run")
        }
        return try outcome.get()
    }
}
