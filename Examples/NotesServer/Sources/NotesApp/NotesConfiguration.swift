public import Foundation
public import Logging

/// What the server needs to start: where it listens, its database, and the migrations to run first.
public struct NotesConfiguration: Sendable {
    /// The address to listen on: loopback by default.
    public var hostname = "127.0.0.1"
    /// The port to listen on; 0 lets the system choose one.
    public var port = 8080
    /// The database file, created when missing.
    public var databasePath = "notes.sqlite"
    /// The folder of `NNNN_description.sql` migrations, applied at start-up before the server listens.
    public var migrationsDirectory = NotesConfiguration.repositoryMigrations
    /// How many reads can run at once: the pool's reader connections.
    public var readers = 4
    /// The level of the app's logger, which Strata shares: `.trace` logs every SQL statement.
    public var logLevel = Logger.Level.info

    public init() {}

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
