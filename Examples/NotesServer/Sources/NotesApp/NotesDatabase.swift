public import Logging
public import Strata
public import StrataPostgres

/// Opening the server's database: the pool of its backend, migrated before anything else uses it.
public enum NotesDatabase {
    /// Opens the SQLite pool at `path` and applies the pending migrations of the configuration's migrations folder
    /// (`Migrations/` by default).
    ///
    /// The pool reports to `logger` (every statement at `.trace`), to the tracer (a span per `read`, `write` and
    /// statement, under the caller's span: the request's) and to the metrics backend (``StrataMetric``).
    ///
    /// - Throws: A ``DatabaseError`` when the migrations cannot be read (checked before the file is opened), the file
    ///   cannot be opened, or a migration fails; the pool is closed again then.
    public static func openSQLite(
        path: String, _ configuration: NotesConfiguration, logger: Logger
    ) async throws -> DatabasePool {
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: configuration.resolvedMigrationsDirectory)
        let pool = try DatabasePool(
            path: path,
            readers: configuration.readers,
            observability: DatabaseObservability(logger: logger, tracing: true, metrics: true)
        )
        do {
            let applied = try await migrator.migrate(pool)
            logger.info(
                "database ready",
                metadata: [
                    "path": "\(path)",
                    "schema_version": "\(migrator.latestVersion)",
                    "migrations_applied": "\(applied)",
                ])
        } catch {
            await pool.close()
            throw error
        }
        return pool
    }

    /// Opens a PostgreSQL pool of `configuration.connections` connections to `url` and applies the pending
    /// migrations of the configuration's migrations folder (`Migrations/postgresql/` by default), then installs the
    /// notify trigger on `note` that `GET /notes/live` needs (see `PostgresObservation`).
    ///
    /// The URL is never logged: it may hold a password.
    ///
    /// - Throws: A ``DatabaseError`` when the migrations cannot be read (checked before any connection opens) or a
    ///   migration fails, a `DatabaseError` when the URL cannot be used or the server cannot be reached; the pool
    ///   is closed again then.
    public static func openPostgres(
        url: String, _ configuration: NotesConfiguration, logger: Logger
    ) async throws -> PostgresPool {
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: configuration.resolvedMigrationsDirectory)
        let pool = try PostgresPool(
            url: url, connections: configuration.connections, logger: logger,
            observability: DatabaseObservability(logger: logger, tracing: true, metrics: true))
        do {
            let applied = try await migrator.migrate(pool)
            // `GET /notes/live` observes the notes, which needs PostgreSQL's notify trigger on them. Installed here
            // rather than by a migration, so that both backends' migration folders keep the same versions; an app of
            // your own puts `PostgresObservation.triggerSQL(for:)` in a migration file instead.
            try await pool.write { db in try await db.installObservationTriggers(on: ["note"]) }
            logger.info(
                "database ready",
                metadata: [
                    "backend": "postgresql",
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
