public import Foundation
public import Logging

/// What the server needs to start: where it listens, its database, and the migrations to run first.
public struct NotesConfiguration: Sendable {
    /// The address to listen on: loopback by default.
    public var hostname = "127.0.0.1"
    /// The port to listen on; 0 lets the system choose one.
    public var port = 8080
    /// The database: a SQLite file path (created when missing), or a `postgres://` (or `postgresql://`) URL, which
    /// runs the same app on PostgreSQL. See ``backend``.
    public var database = "notes.sqlite"
    /// The folder of `NNNN_description.sql` migrations, applied at start-up before the server listens; nil for the
    /// repository's own folder for the backend: `Migrations/` on SQLite, `Migrations/postgresql/` on PostgreSQL.
    public var migrationsDirectory: URL?
    /// How many reads can run at once on SQLite: the pool's reader connections.
    public var readers = 4
    /// The most connections the PostgreSQL pool opens to the server.
    public var connections = 8
    /// The level of the app's logger, which Strata shares: `.trace` logs every SQL statement (on SQLite).
    public var logLevel = Logger.Level.info

    public init() {}

    /// Where the notes are stored: a SQLite file, or a PostgreSQL server.
    public enum Backend: Sendable, Equatable {
        /// A SQLite file, through a `DatabasePool`.
        case sqlite(path: String)
        /// A PostgreSQL database, through a `PostgresPool`.
        case postgres(url: String)
    }

    /// The backend ``database`` names: PostgreSQL for a `postgres://` or `postgresql://` URL, SQLite otherwise.
    public var backend: Backend {
        let scheme = database.prefix { $0 != ":" }.lowercased()
        if database.contains("://"), scheme == "postgres" || scheme == "postgresql" {
            return .postgres(url: database)
        }
        return .sqlite(path: database)
    }

    /// The migrations folder for ``backend``: ``migrationsDirectory``, or the repository's folder for the backend.
    public var resolvedMigrationsDirectory: URL {
        if let migrationsDirectory { return migrationsDirectory }
        switch backend {
        case .sqlite: return Self.repositoryMigrations
        case .postgres: return Self.repositoryMigrations.appendingPathComponent("postgresql", isDirectory: true)
        }
    }

    /// The repository's own `Migrations/` folder, found from this source file's path, so that the default works from
    /// any working directory of a checkout (`swift run` from the repository's root or from this package's folder, and
    /// the tests). A server deployed without the sources passes its own folder (`--migrations` or
    /// `NOTES_MIGRATIONS`).
    public static var repositoryMigrations: URL {
        // .../Examples/NotesServer/Sources/NotesApp/NotesConfiguration.swift -> .../Migrations
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // NotesApp
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // NotesServer
            .deletingLastPathComponent()  // Examples
            .deletingLastPathComponent()  // the repository
            .appendingPathComponent("Migrations", isDirectory: true)
    }
}
