public import ServiceLifecycle
public import Strata

/// Closes the pool once the application shuts down gracefully.
///
/// Added after the server (`app.addServices`), so the service group stops the server first, in reverse order: the
/// requests in flight finish, then the pool closes. A stand-in for the `StrataServiceLifecycle` product, whose
/// `DatabasePool: Service` does the same; this file goes when that product lands.
public struct DatabaseService: Service {
    public let pool: DatabasePool

    public init(pool: DatabasePool) {
        self.pool = pool
    }

    public func run() async throws {
        // Throws only when the task is cancelled (a service failed): the pool closes then too.
        try? await gracefulShutdown()
        await pool.close()
    }
}
