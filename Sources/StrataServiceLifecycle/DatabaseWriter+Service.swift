public import ServiceLifecycle
public import Strata

/// A ``DatabasePool`` is a ServiceLifecycle `Service`: run it in the server's `ServiceGroup`, and **the group's
/// graceful shutdown (SIGTERM) closes the pool once the work asked for before has finished.**
///
/// ```swift
/// import Hummingbird
/// import StrataServiceLifecycle
///
/// let pool = try DatabasePool(path: "app.sqlite")
/// let app = Application(router: router, services: [pool])   // the pool closes after the server has stopped
/// try await app.runService()
/// ```
///
/// - **`run()` waits until graceful shutdown is triggered or its task is cancelled, then closes the pool and
///   returns.** It holds no connection and no thread meanwhile.
/// - Closing is `close()`: new work throws `DatabaseError.Code.connectionClosed` at once, **work asked for before
///   (reads, writes, streams being iterated) finishes**, then every connection closes and the WAL is checkpointed.
/// - A `ServiceGroup` shuts its services down in reverse order: list the pool **before** the services that use it
///   (Hummingbird runs an application's `services` before its server), so that they stop first and their last
///   requests still find the pool open.
extension DatabasePool: Service {
    public func run() async throws {
        await runUntilShutdown()
    }
}

/// A ``DatabaseQueue`` is a ServiceLifecycle `Service`, as a ``DatabasePool`` is: **the group's graceful shutdown, or
/// the cancellation of its task, closes the queue once the work asked for before has finished.**
///
/// ```swift
/// let queue = try DatabaseQueue(path: "app.sqlite")
/// let group = ServiceGroup(services: [queue, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension DatabaseQueue: Service {
    public func run() async throws {
        await runUntilShutdown()
    }
}

extension DatabaseWriter {
    /// Waits for graceful shutdown or cancellation, whichever comes first, then closes.
    fileprivate func runUntilShutdown() async {
        // `gracefulShutdown()` returns on graceful shutdown and throws `CancellationError` on cancellation: both end
        // the wait the same way. Outside a service group it waits for cancellation alone.
        try? await gracefulShutdown()
        await close()
    }
}
