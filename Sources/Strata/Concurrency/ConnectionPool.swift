import Metrics
import Tracing

/// Runs work on a fixed set of connections, and lends them to one task at a time.
///
/// `run(_:)` hands a body to a free connection, or queues it; the connection that finishes a body runs the next
/// queued one itself. `acquire(isPausable:)` lends a connection for several bodies (a pausable write, a backup, a
/// stream). Bodies and loans wait in one queue (suspended, holding no thread) and are served in the order they asked.
/// A task cancelled while it waits throws `CancellationError`; once its work has started, it runs to completion.
///
/// Closing is two steps: ``beginClosing()`` refuses new requests at once, then ``closeConnections()`` queues behind
/// every request made before, takes each connection in turn when it comes back and closes it. So work in flight,
/// including work still waiting for a connection, finishes first.
final class ConnectionPool: Sendable {
    private let state: LockedValue<State>
    private let count: Int
    /// Spans and metrics of the pool's work; nil when the observability asks for neither.
    private let instruments: PoolInstruments?

    private struct State {
        var idle: [SerialConnection]
        var waiters = WaiterQueue()
        var nextWaiterID: UInt64 = 0
        var isClosed = false
        /// Connections closed by ``closeConnections()``, which never come back to `idle`.
        var retiredCount = 0
    }

    /// - Parameters:
    ///   - kind: What the connections are for, in metrics: `writer`, `reader`, `queue`.
    init(
        _ connections: [SerialConnection], kind: String, observability: DatabaseObservability = DatabaseObservability()
    ) {
        count = connections.count
        state = LockedValue(State(idle: connections.reversed()))
        instruments = PoolInstruments(kind: kind, observability)
    }

    /// Runs `body` as ``run(_:)`` does, as the span `operation` (with the statements it runs as children) and with
    /// the pool's metrics, when the pool's observability asks for them.
    @concurrent
    func run<Output>(_ operation: String, _ body: (Database) throws -> Output) async throws -> Output {
        guard let instruments else { return try await run(body) }
        return try await instruments.observe(operation, body) { body in try await run(body) }
    }

    /// Runs `body`, which may suspend, on a connection lent to it alone until it returns, as the span `operation`
    /// when the pool's observability traces; the loan counts in the pool's metrics (see ``acquire(isPausable:)``).
    ///
    /// The body's code runs on the connection's queue (see ``SerialConnection/runSuspending(_:done:)``), which gives
    /// the connection back as the body ends, before the task leaves the queue.
    @concurrent
    func runSuspending<Output>(_ operation: String, _ body: (Database) async throws -> Output) async throws -> Output {
        let connection = try await acquire()
        guard instruments?.tracing == true else {
            return try await connection.runSuspending(body, done: { release(connection) })
        }
        return try await withSpan(operation, ofKind: .client) { span in
            span.attributes["db.system.name"] = "sqlite"
            return try await connection.runSuspending(body, done: { release(connection) })
        }
    }

    /// A pausable write committed to give way to other work.
    func countPausableYield() {
        instruments?.pausableYields?.increment()
    }

    /// Runs `body` on a connection, in turn with the other requests, and returns what it returns.
    ///
    /// With a connection free, the body goes to its queue at once; otherwise it waits in the pool's queue, and the
    /// connection that finishes the work before it runs it next, on its own thread, without waking this task in
    /// between: a busy pool goes from one body to the next with no idle connection while work waits.
    ///
    /// - Throws: What `body` throws; ``DatabaseError/Code/connectionClosed`` once closing has begun;
    ///   `CancellationError` when the task is cancelled before its body starts. A body that has started runs to
    ///   completion.
    @concurrent
    func run<Output>(_ body: (Database) throws -> Output) async throws -> Output {
        try await withoutActuallyEscaping(body) { escapableBody in
            let job = ConnectionJob(escapableBody)
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    job.attach(continuation)
                    // As in `acquire`: the cancellation flag is set before the handler below runs, and both take the
                    // lock, so either this sees the flag, or the handler finds the job queued and takes it back.
                    let outcome = state.withLock { state -> JobStart in
                        if Task.isCancelled { return .failure(CancellationError()) }
                        if state.isClosed { return .failure(Self.closedError) }
                        if let connection = state.idle.popLast() { return .run(connection) }
                        state.waiters.append(.job(job))
                        return .waiting
                    }
                    switch outcome {
                    case .run(let connection): self.start(job, on: connection)
                    case .failure(let error): job.abandon(throwing: error)
                    case .waiting: break
                    }
                }
            } onCancel: {
                let waiter = state.withLock { state in state.waiters.remove(job: job) }
                waiter?.fail(with: CancellationError())
            }
            return try job.takeOutput()
        }
    }

    /// Runs `body` as ``run(_:)`` does when a connection is idle (no work waits then); returns nil at once, without
    /// running it, otherwise (every connection busy, or the pool closing).
    func runIfIdle<Output>(_ body: (Database) throws -> Output) async throws -> Output? {
        let idle = state.withLock { state in state.isClosed ? nil : state.idle.popLast() }
        guard let idle else { return nil }
        return try await withoutActuallyEscaping(body) { escapableBody in
            let job = ConnectionJob(escapableBody)
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                job.attach(continuation)
                start(job, on: idle)
            }
            return try job.takeOutput()
        }
    }

    /// What a job finds when it asks for a connection.
    private enum JobStart {
        case run(SerialConnection)
        case failure(any Error)
        case waiting
    }

    /// Runs `job` on `connection`'s queue, then the jobs that wait after it, until a lease or nothing waits.
    private func start(_ job: any PoolJob, on connection: SerialConnection) {
        connection.run(job) { [self] in
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.waiters.popFirst() { return waiter }
                state.idle.append(connection)
                return nil
            }
            guard let waiter else { return nil }
            if case .job(let next) = waiter { return next }
            // A lease (a pausable write, a close) takes the connection from here.
            hand(connection, to: waiter)
            return nil
        }
    }

    /// Gives `connection` to `waiter`: runs a job on it, or lends it.
    private func hand(_ connection: SerialConnection, to waiter: Waiter) {
        switch waiter {
        case .request(_, _, let continuation): continuation.resume(returning: connection)
        case .job(let job): start(job, on: connection)
        case .closing(let continuation): continuation.resume(returning: connection)
        }
    }

    /// A connection for the caller alone, until it gives it back with ``release(_:)``.
    ///
    /// The loan counts in the pool's metrics as a body does: its wait in `StrataMetric/poolWait`, the connection in
    /// `StrataMetric/poolConnectionsInUse` until ``release(_:)`` (or a ``yield(_:)`` that gives it away).
    ///
    /// - Parameter isPausable: Whether the caller is a pausable write, which gives way to the other requests
    ///   (see ``yield(_:)``) and so does not make another pausable write give way to it.
    /// - Throws: ``DatabaseError/Code/connectionClosed`` once closing has begun; `CancellationError` when the task is
    ///   cancelled while it waits.
    func acquire(isPausable: Bool = false) async throws -> SerialConnection {
        let requested = instruments == nil ? nil : ContinuousClock.now
        let connection = try await waitForConnection(isPausable: isPausable)
        if let requested { instruments?.connectionLent(waitingSince: requested) }
        return connection
    }

    /// The connection ``acquire(isPausable:)`` lends, before it is counted in the metrics.
    private func waitForConnection(isPausable: Bool) async throws -> SerialConnection {
        enum FirstTry {
            case connection(SerialConnection)
            case wait(id: UInt64)
            case closed
        }
        let firstTry = state.withLock { state -> FirstTry in
            if state.isClosed { return .closed }
            if let connection = state.idle.popLast() { return .connection(connection) }
            state.nextWaiterID += 1
            return .wait(id: state.nextWaiterID)
        }
        let id: UInt64
        switch firstTry {
        case .connection(let connection): return connection
        case .closed: throw Self.closedError
        case .wait(let waiterID): id = waiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<SerialConnection, any Error>) in
                enum Outcome {
                    case connection(SerialConnection)
                    case failure(any Error)
                    case waiting
                }
                // The cancellation flag is set before the handler below runs, and both take the lock: either this
                // sees the flag, or the handler finds the waiter queued and removes it.
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.isClosed { return .failure(Self.closedError) }
                    if let connection = state.idle.popLast() { return .connection(connection) }
                    state.waiters.append(.request(id: id, isPausable: isPausable, continuation))
                    return .waiting
                }
                switch outcome {
                case .connection(let connection): continuation.resume(returning: connection)
                case .failure(let error): continuation.resume(throwing: error)
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in state.waiters.remove(id: id) }
            waiter?.fail(with: CancellationError())
        }
    }

    /// Gives a connection back: to the longest-waiting task, or to the idle ones.
    func release(_ connection: SerialConnection) {
        instruments?.connectionReturned()
        let waiter = state.withLock { state -> Waiter? in
            if let waiter = state.waiters.popFirst() { return waiter }
            state.idle.append(connection)
            return nil
        }
        if let waiter { hand(connection, to: waiter) }
    }

    /// Whether a request that is not a pausable write waits for a connection: the signal for a pausable write to
    /// commit and give way.
    var hasWaitingRequest: Bool {
        state.withLock { state in state.waiters.requestCount > 0 }
    }

    /// Gives `connection` to the requests waiting now, and returns it once they are done: **a pausable write gives
    /// way to the other work, in order, then goes on before anything asked for later, and before a close.**
    ///
    /// Returns at once when no request waits. Closing does not refuse it: the pausable write was asked for before.
    ///
    /// - Throws: `CancellationError` when the task is cancelled before it has the connection back; the caller holds
    ///   no connection then.
    func yield(_ connection: SerialConnection) async throws -> SerialConnection {
        let lastWaiterID = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        // Set when the connection goes to the waiting requests: it is no longer the caller's in the metrics, and
        // counts as lent again, after its wait, when it comes back.
        var gaveWayAt: ContinuousClock.Instant?
        let connection = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<SerialConnection, any Error>) in
                enum Outcome {
                    case keep
                    case handOff(to: Waiter?)
                    case cancelled(handOffTo: Waiter?)
                }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled {
                        if let waiter = state.waiters.popFirst() { return .cancelled(handOffTo: waiter) }
                        state.idle.append(connection)
                        return .cancelled(handOffTo: nil)
                    }
                    guard state.waiters.requestCount > 0 else { return .keep }
                    state.waiters.insertBeforeClosing(.request(id: lastWaiterID, isPausable: true, continuation))
                    return .handOff(to: state.waiters.popFirst())
                }
                switch outcome {
                case .keep:
                    continuation.resume(returning: connection)
                case .handOff(let waiter):
                    gaveWayAt = ContinuousClock.now
                    instruments?.connectionReturned()
                    if let waiter { hand(connection, to: waiter) }
                case .cancelled(let waiter):
                    instruments?.connectionReturned()
                    if let waiter { hand(connection, to: waiter) }
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in state.waiters.remove(id: lastWaiterID) }
            waiter?.fail(with: CancellationError())
        }
        if let gaveWayAt { instruments?.connectionLent(waitingSince: gaveWayAt) }
        return connection
    }

    /// How many tasks wait for a connection, requests and closes: for tests that need work queued before they go on.
    var waitingCount: Int {
        state.withLock { state in state.waiters.count }
    }

    /// How many connections are neither lent nor closed: for tests that check a connection came back.
    var idleCount: Int {
        state.withLock { state in state.idle.count }
    }

    /// Refuses every request from now on.
    func beginClosing() {
        state.withLock { state in state.isClosed = true }
    }

    /// Whether ``beginClosing()`` has been called.
    var isClosed: Bool {
        state.withLock { state in state.isClosed }
    }

    /// Waits for the work of every earlier request, then closes each connection. Safe to call more than once, and
    /// from several tasks: each call returns once every connection is closed.
    func closeConnections() async {
        while let connection = await acquireForClosing() {
            await connection.close()
            retire(connection)
        }
    }

    /// A connection still open, in turn behind every request made before, or nil once all are closed. Neither refused
    /// once closing has begun nor cancellable.
    private func acquireForClosing() async -> SerialConnection? {
        enum FirstTry {
            case connection(SerialConnection)
            case allClosed
            case wait
        }
        let firstTry = state.withLock { state -> FirstTry in
            if state.retiredCount == count { return .allClosed }
            if let connection = state.idle.popLast() { return .connection(connection) }
            return .wait
        }
        switch firstTry {
        case .connection(let connection): return connection
        case .allClosed: return nil
        case .wait: break
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<SerialConnection?, Never>) in
            let firstTry = state.withLock { state -> FirstTry in
                if state.retiredCount == count { return .allClosed }
                if let connection = state.idle.popLast() { return .connection(connection) }
                state.waiters.append(.closing(continuation))
                return .wait
            }
            switch firstTry {
            case .connection(let connection): continuation.resume(returning: connection)
            case .allClosed: continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// Keeps a closed connection out of the pool. The last one releases every other `close` still waiting.
    private func retire(_ connection: SerialConnection) {
        let waiters = state.withLock { state -> [Waiter] in
            state.retiredCount += 1
            guard state.retiredCount == count else { return [] }
            var waiters: [Waiter] = []
            while let waiter = state.waiters.popFirst() { waiters.append(waiter) }
            return waiters
        }
        for waiter in waiters { waiter.fail(with: Self.closedError) }
    }

    fileprivate static var closedError: DatabaseError {
        DatabaseError(code: .connectionClosed, message: "the database was closed")
    }
}

/// A task waiting for a connection.
private enum Waiter {
    /// A request for a lease, which cancellation can withdraw. A pausable write's request does not make another
    /// pausable write give way: two of them take turns only when other work waits.
    case request(id: UInt64, isPausable: Bool, CheckedContinuation<SerialConnection, any Error>)
    /// A body to run (``ConnectionPool/run(_:)``), which cancellation can withdraw.
    case job(any PoolJob)
    /// A `close` taking the connections in turn; nil tells it every connection is closed.
    case closing(CheckedContinuation<SerialConnection?, Never>)

    /// Tells the waiter it will get no connection: a request or a job throws `error`, a close learns that every
    /// connection is closed.
    func fail(with error: any Error) {
        switch self {
        case .request(_, _, let continuation): continuation.resume(throwing: error)
        case .job(let job): job.abandon(throwing: error)
        case .closing(let continuation): continuation.resume(returning: nil)
        }
    }
}

/// Tasks waiting for a connection, first come first served, with removal of a withdrawn request.
///
/// Requests come before closes: requests are refused once closing has begun, except a pausable write's return
/// (``insertBeforeClosing(_:)``).
///
/// - Complexity: Appending and taking the first are amortized O(1); removing a withdrawn request and inserting
///   before the closes are O(n).
private struct WaiterQueue {
    private var entries: [Waiter?] = []
    private var head = 0
    /// How many requests wait that are not pausable writes: the ones a pausable write gives way to.
    private(set) var requestCount = 0

    /// How many tasks wait.
    var count: Int {
        entries[head...].count { $0 != nil }
    }

    mutating func append(_ waiter: Waiter) {
        entries.append(waiter)
        count(waiter, as: 1)
    }

    /// Queues `waiter` after every request and before the first close.
    mutating func insertBeforeClosing(_ waiter: Waiter) {
        let firstClose = entries[head...].firstIndex { entry in
            if case .closing = entry { return true }
            return false
        }
        entries.insert(waiter, at: firstClose ?? entries.endIndex)
        count(waiter, as: 1)
    }

    mutating func popFirst() -> Waiter? {
        while head < entries.count {
            let entry = entries[head]
            entries[head] = nil
            head += 1
            if let entry {
                count(entry, as: -1)
                compactIfNeeded()
                return entry
            }
        }
        entries.removeAll(keepingCapacity: true)
        head = 0
        return nil
    }

    /// Withdraws the lease request `id`; nil when it was served already.
    mutating func remove(id: UInt64) -> Waiter? {
        remove { entry in
            if case .request(let entryID, _, _) = entry { return entryID == id }
            return false
        }
    }

    /// Withdraws `job`; nil when it was taken already.
    mutating func remove(job: any PoolJob) -> Waiter? {
        remove { entry in
            if case .job(let queued) = entry { return queued === job }
            return false
        }
    }

    private mutating func remove(where matches: (Waiter) -> Bool) -> Waiter? {
        for index in head..<entries.count {
            if let entry = entries[index], matches(entry) {
                entries[index] = nil
                count(entry, as: -1)
                return entry
            }
        }
        return nil
    }

    private mutating func count(_ waiter: Waiter, as change: Int) {
        switch waiter {
        case .request(_, isPausable: false, _), .job: requestCount += change
        case .request, .closing: break
        }
    }

    private mutating func compactIfNeeded() {
        if head >= 64 && head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}

/// The spans and metrics of a pool's work.
private struct PoolInstruments: Sendable {
    let tracing: Bool
    let waitTime: Metrics.Timer?
    let inUse: Meter?
    let pausableYields: Counter?

    /// A connection lent for several bodies (``ConnectionPool/acquire(isPausable:)``, or back to a pausable write
    /// after ``ConnectionPool/yield(_:)``): its wait, and one more connection at work.
    func connectionLent(waitingSince requested: ContinuousClock.Instant) {
        waitTime?.recordNanoseconds(StatementObserver.nanoseconds(ContinuousClock.now - requested))
        inUse?.increment()
    }

    /// A lent connection given back (``ConnectionPool/release(_:)``) or given away (``ConnectionPool/yield(_:)``).
    func connectionReturned() {
        inUse?.decrement()
    }

    init?(kind: String, _ observability: DatabaseObservability) {
        guard observability.tracing || observability.metrics else { return nil }
        tracing = observability.tracing
        let dimensions = [("kind", kind)]
        waitTime = observability.metrics ? Metrics.Timer(label: StrataMetric.poolWait, dimensions: dimensions) : nil
        inUse = observability.metrics ? Meter(label: StrataMetric.poolConnectionsInUse, dimensions: dimensions) : nil
        pausableYields = observability.metrics ? Counter(label: StrataMetric.pausableWriteYields) : nil
    }

    /// Runs `body` through `run` in a span named `operation`, whose context the statements see on the connection's
    /// thread, recording how long it waited for a connection and how many connections are at work.
    func observe<Output>(
        _ operation: String, _ body: (Database) throws -> Output,
        run: ((Database) throws -> Output) async throws -> Output
    ) async throws -> Output {
        let requested = ContinuousClock.now
        return try await withoutActuallyEscaping(body) { body in
            let measured: (Database) throws -> Output = { db in
                waitTime?.recordNanoseconds(StatementObserver.nanoseconds(ContinuousClock.now - requested))
                inUse?.increment()
                defer { inUse?.decrement() }
                return try body(db)
            }
            guard tracing else { return try await run(measured) }
            return try await withSpan(operation, ofKind: .client) { span in
                span.attributes["db.system.name"] = "sqlite"
                // The connection's thread is not this task: the statements' spans find their parent through this.
                let context = ServiceContext.current
                return try await run { db in try ServiceContext.$current.withValue(context) { try measured(db) } }
            }
        }
    }
}
