public import Hummingbird
public import Logging
public import Strata
import StrataServiceLifecycle

/// Opens and migrates the database, then builds the application around it: the server's entry point.
public func buildApplication(_ configuration: NotesConfiguration) async throws -> some ApplicationProtocol {
    let logger = makeLogger(configuration)
    let pool = try await NotesDatabase.open(configuration, logger: logger)
    return buildApplication(configuration, pool: pool, logger: logger)
}

/// The logger of the app and of its database.
public func makeLogger(_ configuration: NotesConfiguration) -> Logger {
    var logger = Logger(label: "NotesServer")
    logger.logLevel = configuration.logLevel
    return logger
}

/// Builds the application around an open, migrated pool, **which it closes at graceful shutdown**, once the server
/// has stopped.
///
/// Middleware, outermost first: request logs, request metrics, a span per request (under which the pool's spans
/// appear), then errors made JSON.
public func buildApplication(
    _ configuration: NotesConfiguration, pool: DatabasePool, logger: Logger
) -> some ApplicationProtocol {
    let store = NoteStore(pool: pool)
    let router = Router(context: NotesRequestContext.self)
    router.addMiddleware {
        LogRequestsMiddleware(.info)
        MetricsMiddleware()
        TracingMiddleware()
        ErrorMiddleware()
    }
    router.get("health") { _, _ in
        Health(status: "ok", schemaVersion: try await store.schemaVersion())
    }
    NoteController(store: store).addRoutes(to: router.group("notes"))

    var app = Application(
        router: router,
        configuration: .init(
            address: .hostname(configuration.hostname, port: configuration.port),
            serverName: "NotesServer"
        ),
        logger: logger
    )
    // Added after the server: the service group stops the server first, so the requests in flight finish, then it
    // closes the pool (StrataServiceLifecycle's `DatabasePool: Service`).
    app.addServices(pool)
    return app
}
