import ArgumentParser
import Foundation
import Logging
import NotesApp

/// `NotesServer [--hostname H] [--port P] [--database FILE|URL] [--migrations DIR] [--readers N] [--connections N]
/// [--log-level L]`
@main
struct NotesServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "NotesServer",
        abstract: "A notes JSON API on Strata (SQLite or PostgreSQL) and Hummingbird.",
        discussion: "Applies the migrations, then serves until SIGINT or SIGTERM, and closes the database."
    )

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(name: .shortAndLong, help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(
        help: """
            The SQLite database file, created when missing, or a postgres:// URL (default: $NOTES_DATABASE, else \
            notes.sqlite).
            """)
    var database: String?

    @Option(
        help: """
            The migrations folder (default: $NOTES_MIGRATIONS, else the repository's Migrations/, or \
            Migrations/postgresql/ for a postgres:// database).
            """)
    var migrations: String?

    @Option(help: "SQLite: the pool's reader connections, how many reads run at once.")
    var readers = 4

    @Option(help: "PostgreSQL: the most connections the pool opens.")
    var connections = 8

    @Option(help: "trace, debug, info, notice, warning, error or critical (trace logs every SQL statement).")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level \"\(logLevel)\"")
        }
        guard readers >= 1 else {
            throw ValidationError("--readers must be at least 1")
        }
        guard connections >= 1 else {
            throw ValidationError("--connections must be at least 1")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = NotesConfiguration()
        configuration.hostname = hostname
        configuration.port = port
        if let database = database ?? environment["NOTES_DATABASE"] {
            configuration.database = database
        }
        if let path = migrations ?? environment["NOTES_MIGRATIONS"] {
            configuration.migrationsDirectory = URL(fileURLWithPath: path, isDirectory: true)
        }
        configuration.readers = readers
        configuration.connections = connections
        configuration.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
