public import Hummingbird
public import Logging
public import ServiceLifecycle
public import Strata
import StrataServiceLifecycle

/// Opens and migrates the database of `configuration.backend` (a SQLite file, or PostgreSQL for a `postgres://`
/// URL), then builds the application around it: the server's entry point.
public func buildApplication(_ configuration: NotesConfiguration) async throws -> any ApplicationProtocol {
    let logger = makeLogger(configuration)
    switch configuration.backend {
    case .sqlite(let path):
        let pool = try await NotesDatabase.openSQLite(path: path, configuration, logger: logger)
        return buildApplication(configuration, database: pool, logger: logger)
    case .postgres(let url):
        let pool = try await NotesDatabase.openPostgres(url: url, configuration, logger: logger)
        return buildApplication(configuration, database: pool, logger: logger)
    }
}

/// The logger of the app and of its database.
public func makeLogger(_ configuration: NotesConfiguration) -> Logger {
    var logger = Logger(label: "NotesServer")
    logger.logLevel = configuration.logLevel
    return logger
}

/// Builds the application around an open, migrated database (a `DatabasePool`, a `PostgresPool`, any writer that is
/// a ServiceLifecycle `Service`), **which it closes at graceful shutdown**, once the server has stopped.
///
/// Middleware, outermost first: request logs, request metrics, a span per request (under which the pool's spans
/// appear, on SQLite), then errors made JSON.
public func buildApplication<Writer: DatabaseWriter & Service>(
    _ configuration: NotesConfiguration, database: Writer, logger: Logger
) -> some ApplicationProtocol {
    let store = NoteStore(database: database)
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
    // closes the pool (`DatabasePool: Service` from StrataServiceLifecycle; `PostgresPool` is one itself).
    app.addServices(database)
    return app
}
