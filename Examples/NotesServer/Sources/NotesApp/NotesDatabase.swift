public import Logging
public import Strata

/// Opening the server's database: the pool, with observability on, migrated before anything else uses it.
public enum NotesDatabase {
    /// Opens the pool at `configuration.databasePath` and applies the pending migrations of
    /// `configuration.migrationsDirectory`.
    ///
    /// The pool reports to `logger` (every statement at `.trace`), to the tracer (a span per `read`, `write` and
    /// statement, under the caller's span: the request's) and to the metrics backend (``StrataMetric``).
    ///
    /// - Throws: A ``DatabaseError`` when the migrations cannot be read (checked before the file is opened), the file
    ///   cannot be opened, or a migration fails; the pool is closed again then.
    public static func open(_ configuration: NotesConfiguration, logger: Logger) async throws -> DatabasePool {
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: configuration.migrationsDirectory)
        let pool = try DatabasePool(
            path: configuration.databasePath,
            readers: configuration.readers,
            observability: DatabaseObservability(logger: logger, tracing: true, metrics: true)
        )
        do {
            let applied = try await migrator.migrate(pool)
            logger.info(
                "database ready",
                metadata: [
                    "path": "\(configuration.databasePath)",
                    "schema_version": "\(migrator.latestVersion)",
                    "migrations_applied": "\(applied)",
                ])
        } catch {
            await pool.close()
            throw error
        }
        return pool
    }
}
