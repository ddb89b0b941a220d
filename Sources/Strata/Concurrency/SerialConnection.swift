import Dispatch
import Foundation
import Synchronization

/// One SQLite connection and the serial dispatch queue its calls run on.
///
/// SQLite calls block, so they never run on Swift's cooperative thread pool: ``perform(_:)`` hands the body to
/// `queue`, a serial queue on libdispatch's own threads, and suspends the caller, without blocking a thread, until the
/// body has returned.
///
/// Callers hold a lease from ``ConnectionPool``, so only one body at a time is ever submitted. The database sits in a
/// mutex all the same: the compiler checks that it is only reached under the lock, and the lock is never contended.
///
/// **A connection that SQLite reported an I/O or locking protocol error on is renewed before its next use**, with all
/// the connections of its ``ConnectionFamily`` (a failed unlock breaks every connection of the process to the file,
/// until all have closed): the old connection is closed, and once the family's other old connections are closed too,
/// `reopen` opens and configures a new one. When that fails (the disk still fails), the work gets the error and the
/// next work tries again. So a pool works again as soon as the disk does.
final class SerialConnection: Sendable {
    private let database: Mutex<Database>
    private let queue: DispatchQueue
    /// Runs the code of a suspending body (``runSuspending(_:)``) on `queue`.
    private let executor: ConnectionExecutor
    /// Opens and configures a connection like the first one; nil when a new connection could not take the old one's
    /// place (an in-memory database, whose data lives in its one connection).
    private let reopen: (@Sendable () throws -> sending Database)?
    /// The connections renewed with this one, and this one's place among them.
    private let family: ConnectionFamily?
    private let memberIndex: Int
    /// The family's generation the connection was opened in (see ``ConnectionFamily``); written on its queue only.
    private let openedGeneration: Atomic<Int>
    /// Told, after each piece of work on the connection, that a transaction that wrote committed during it: the
    /// commit is then visible to every connection (see `Connection.takeCommit()`).
    private let commits: CommitBroadcast?
    /// The check for other processes' commits that runs after the current work when it is due; nil when no other
    /// process is looked out for.
    private let otherProcessCheck: DataVersionCheck?

    /// - Parameters:
    ///   - reopen: Opens a connection to replace a broken one; nil for one that cannot be replaced.
    ///   - family: The connections to the same file renewed with this one; a family of its own when nil.
    ///   - commits: What hears of the commits made on the connection; nil for a connection that cannot write.
    ///   - otherProcessCheck: The writer's check for other processes' commits (see ``OtherProcessCommits``).
    init(
        _ database: consuming sending Database, label: String,
        reopen: (@Sendable () throws -> sending Database)? = nil, family: ConnectionFamily? = nil,
        commits: CommitBroadcast? = nil, otherProcessCheck: DataVersionCheck? = nil
    ) {
        self.commits = commits
        self.otherProcessCheck = otherProcessCheck
        database.isOwnedByPool = true
        self.database = Mutex(database)
        self.queue = DispatchQueue(label: label)
        self.executor = ConnectionExecutor(queue: queue)
        queue.setSpecific(key: Self.queueKey, value: ())
        self.reopen = reopen
        let family = reopen == nil ? nil : (family ?? ConnectionFamily())
        self.family = family
        let membership = family?.join() ?? (index: 0, generation: 0)
        self.memberIndex = membership.index
        self.openedGeneration = Atomic(membership.generation)
        family?.attach(self, at: memberIndex)
    }

    /// Runs `body` with the connection on the connection's queue and returns what it returns.
    ///
    /// The caller stays suspended until `body` has returned, which is what makes handing a non-escaping,
    /// non-`Sendable` closure to another thread sound (see ``ConnectionJob``).
    @concurrent
    func perform<Output>(_ body: (Database) throws -> Output) async throws -> Output {
        try await withoutActuallyEscaping(body) { escapableBody in
            let job = ConnectionJob(escapableBody)
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                job.attach(continuation)
                run(job, then: { nil })
            }
            return try job.takeOutput()
        }
    }

    /// Marks the connections' queues, for ``isOnConnectionQueue``.
    private static let queueKey = DispatchSpecificKey<Void>()

    /// Whether the caller runs on the queue of a connection: for the tests that check where a body's code runs.
    static var isOnConnectionQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) != nil
    }

    /// Runs `body`, which may suspend, with the connection, then `done`: **its code runs on the connection's queue**
    /// (the task prefers the connection's executor while it runs), so its SQLite calls block that queue's thread,
    /// never one of Swift's cooperative threads.
    ///
    /// The caller holds a lease from ``ConnectionPool`` for the whole body, so nothing else reaches the connection
    /// until it returns, suspended or not; a connection that needs renewing is renewed first, as for any work.
    ///
    /// The task goes to the queue once and comes back once: the connection is taken, and `done` (which gives the
    /// lease back) runs, on the queue, in the same trip as the body's first and last code.
    @concurrent
    func runSuspending<Output>(_ body: (Database) async throws -> Output, done: () -> Void) async throws -> Output {
        try await withTaskExecutorPreference(executor) {
            // On the connection's queue from here: the task's jobs go to its preferred executor.
            let lent: LentDatabase
            do {
                lent = try lend()
            } catch {
                done()
                throw error
            }
            defer {
                endWork(on: lent.database)
                done()
            }
            return try await body(lent.database)
        }
    }

    /// The connection, renewed first when it needs it, for a body that suspends; called on the connection's queue.
    private func lend() throws -> LentDatabase {
        try database.withLock { database throws(DatabaseError) -> LentDatabase in
            if let failure = renewIfNeeded(&database) { throw failure }
            beginWork(on: database)
            return LentDatabase(database: database)
        }
    }

    /// Runs `first` on the connection's queue, then each job `next` hands out, back to back on the queue's thread,
    /// until it hands out none; each job's caller resumes once the next job is chosen.
    ///
    /// So a pool whose connection finishes one job while others wait goes on to the next at once, without a trip
    /// through the waiting task: the connection never sits idle while work waits for it.
    func run(_ first: any PoolJob, then next: @escaping @Sendable () -> (any PoolJob)?) {
        queue.async {
            var job: (any PoolJob)? = first
            while let current = job {
                self.database.withLock { database in
                    if let failure = self.renewIfNeeded(&database) {
                        current.abandon(throwing: failure)
                    } else {
                        self.beginWork(on: database)
                        current.run(on: database)
                        self.endWork(on: database)
                    }
                }
                job = next()
                current.resumeCaller()
            }
        }
    }

    /// Makes `database` record the tables the work about to run changes while anything listens to ``commits`` (see
    /// `ChangeLog`), and stop once nothing does.
    private func beginWork(on database: Database) {
        guard let commits else { return }
        database.connection.recordChanges(commits.listenerCount > 0)
    }

    /// Tells ``commits`` when a transaction that wrote committed on `database` during the work that just ended, with
    /// the tables it changed; then runs the check for other processes' commits when it is due.
    private func endWork(on database: Database) {
        guard let commits else { return }
        if let changes = database.connection.takeCommit() { commits.announce(changes) }
        if let otherProcessCheck, otherProcessCheck.isDue { otherProcessCheck.run(on: database, announcingTo: commits) }
    }

    /// Runs `body` with the connection on the connection's queue, later, without waiting for it.
    func submit(_ body: @escaping @Sendable (Database) -> Void) {
        queue.async {
            self.database.withLock { database in
                if self.renewIfNeeded(&database) == nil {
                    self.beginWork(on: database)
                    body(database)
                    self.endWork(on: database)
                }
            }
        }
    }

    /// Closes the connection, on its queue after the work queued before, when a newer generation of its family has
    /// begun (see ``ConnectionFamily``).
    private func closeIfOutdated() {
        queue.async {
            self.database.withLock { database in
                guard let family = self.family, family.isOutdated(self.memberIndex) else { return }
                database.closeConnection()
                family.closed(self.memberIndex)
            }
        }
    }

    /// Renews `database` when an error broke it, or when its family renews (see the type's comment).
    ///
    /// - Returns: nil when `database` can be used; the error of the new connection when it could not be opened.
    private func renewIfNeeded(_ database: inout sending Database) -> DatabaseError? {
        guard let family, let reopen else { return nil }
        let brokenBy = database.connection.brokenBy
        // The usual case, without a lock: a sound connection of the current generation.
        if brokenBy == nil, openedGeneration.load(ordering: .relaxed) == family.latestGeneration { return nil }
        if brokenBy != nil, family.isCurrent(memberIndex) {
            for member in family.renew(from: memberIndex) {
                member.closeIfOutdated()
            }
        }
        guard !family.isCurrent(memberIndex) else { return nil }
        // Closed first: a lock it believes it holds would stall the new connection's first read.
        database.closeConnection()
        family.closed(memberIndex)
        family.waitForOlderConnectionsToClose(except: memberIndex)
        do {
            let fresh = try reopen()
            fresh.isOwnedByPool = true
            database = fresh
            // Its `data_version` counts from its own start.
            otherProcessCheck?.forget()
            openedGeneration.store(family.opened(memberIndex), ordering: .relaxed)
            return nil
        } catch {
            // `database` stays closed, so the next work tries again.
            let cause = (error as? DatabaseError) ?? DatabaseError(code: .connectionClosed, message: "\(error)")
            let reason = brokenBy.map { "after \($0.name)" } ?? "with the pool's other connections after an I/O error"
            return cause.withMessage(
                "the connection was closed \(reason), and a new one could not be opened: \(cause.message)")
        }
    }

    /// Closes the connection on its queue, after whatever was submitted before.
    @concurrent
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.database.withLock { database in database.closeConnection() }
                self.family?.closed(self.memberIndex)
                continuation.resume()
            }
        }
    }
}

/// Work for a connection, queued by a pool until a connection is free.
protocol PoolJob: AnyObject, Sendable {
    /// Runs the body once with `database`, on the connection's queue.
    func run(on database: Database)
    /// Resumes the suspended caller, once the body has run.
    func resumeCaller()
    /// Drops the body unrun and resumes the caller with `error`.
    func abandon(throwing error: any Error)
}

/// The body of one call, carried to a connection's queue, and its outcome, carried back.
///
/// `@unchecked Sendable` is sound because the caller stays suspended until the body returns (the closure never runs
/// concurrently with its owner), and because the public entry points (`DatabasePool.write` and its siblings) are
/// `@concurrent`, the compiler rejects closures that capture actor-isolated state from an actor context. The queue
/// runs the body and stores `outcome`, then publishes them with a releasing store to `isFinished`; the caller reads
/// `outcome` only after an acquiring load of it, once its continuation is resumed. So everything the body did, to the
/// database and to the caller's variables, happens before the caller goes on, with an edge the thread sanitizer sees
/// too (the runtime does not annotate a continuation resumed before its task suspends).
///
/// The continuation is attached before the job is published (to a queue, or to a pool's waiters, under its lock), and
/// resumed exactly once, by whoever took the job: the queue after running it, or a cancellation or close that took
/// it from the waiters. Either way the body is dropped before the caller resumes, as `withoutActuallyEscaping`
/// requires.
final class ConnectionJob<Output>: PoolJob, @unchecked Sendable {
    private var body: ((Database) throws -> Output)?
    private var outcome: Result<Output, any Error>?
    private var continuation: CheckedContinuation<Void, any Error>?
    private let isFinished = Atomic<Bool>(false)

    init(_ body: @escaping (Database) throws -> Output) {
        self.body = body
    }

    /// Sets the continuation the job resumes; before the job is published.
    func attach(_ continuation: CheckedContinuation<Void, any Error>) {
        self.continuation = continuation
    }

    /// Runs the body once and keeps its outcome. The closure is released before this returns.
    func run(on database: Database) {
        guard let body else { return }
        self.body = nil
        outcome = Result { try body(database) }
        isFinished.store(true, ordering: .releasing)
    }

    func resumeCaller() {
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume()
    }

    func abandon(throwing error: any Error) {
        body = nil
        let continuation = self.continuation
        self.continuation = nil
        continuation?.resume(throwing: error)
    }

    /// What the body returned or threw.
    func takeOutput() throws -> Output {
        guard isFinished.load(ordering: .acquiring), let outcome else {
            throw DatabaseError(code: .connectionClosed, message: "the connection stopped before the work could run")
        }
        return try outcome.get()
    }
}

/// The connection of a lease, taken out of its mutex for a body that suspends.
///
/// `@unchecked Sendable` is sound because the lease gives the connection to that body alone until it returns, and
/// its code runs on the connection's queue (``ConnectionExecutor``).
private struct LentDatabase: @unchecked Sendable {
    let database: Database
}

/// The task executor of one connection: it runs the jobs of a task that prefers it on the connection's serial queue,
/// after the work queued there before.
///
/// See https://github.com/swiftlang/swift-evolution/blob/main/proposals/0417-task-executor-preference.md
final class ConnectionExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
