import ArgumentParser
import Foundation
import Logging
import NotesApp

/// `NotesServer [--hostname H] [--port P] [--database FILE] [--migrations DIR] [--readers N] [--log-level L]`
@main
struct NotesServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "NotesServer",
        abstract: "A notes JSON API on Strata's DatabasePool and Hummingbird.",
        discussion: "Applies the migrations, then serves until SIGINT or SIGTERM, and closes the database."
    )

    @Option(help: "The address to listen on.")
    var hostname = "127.0.0.1"

    @Option(name: .shortAndLong, help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "The database file, created when missing (default: $NOTES_DATABASE, else notes.sqlite).")
    var database: String?

    @Option(help: "The migrations folder (default: $NOTES_MIGRATIONS, else the repository's Migrations/).")
    var migrations: String?

    @Option(help: "The pool's reader connections: how many reads run at once.")
    var readers = 4

    @Option(help: "trace, debug, info, notice, warning, error or critical (trace logs every SQL statement).")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("unknown log level \"\(logLevel)\"")
        }
        guard readers >= 1 else {
            throw ValidationError("--readers must be at least 1")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = NotesConfiguration()
        configuration.hostname = hostname
        configuration.port = port
        if let path = database ?? environment["NOTES_DATABASE"] {
            configuration.databasePath = path
        }
        if let path = migrations ?? environment["NOTES_MIGRATIONS"] {
            configuration.migrationsDirectory = URL(fileURLWithPath: path, isDirectory: true)
        }
        configuration.readers = readers
        configuration.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let app = try await buildApplication(configuration)
        try await app.runService()
    }
}
