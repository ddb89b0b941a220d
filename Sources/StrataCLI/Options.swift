import ArgumentParser
import Foundation
import Strata

/// The `--database` option shared by the commands that open a database.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The SQLite database file.", valueName: "path"))
    var database = "strata.sqlite"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long to wait for a lock another process holds (a migration, a server's write), in seconds.",
            valueName: "seconds"))
    var busyTimeout: Double = 60

    /// Opens the database with the busy timeout set before anything takes a lock.
    func open(readOnly: Bool = false) throws -> Database {
        guard busyTimeout.isFinite, busyTimeout >= 0 else {
            throw CommandError("--busy-timeout must be a number of seconds, 0 or more")
        }
        return try Database(path: database, readOnly: readOnly, busyTimeout: busyTimeout)
    }

    /// Whether the database file exists; commands that only read never create it.
    var exists: Bool {
        FileManager.default.fileExists(atPath: database)
    }
}

/// The `--migrations` option shared by the commands that read the migrations folder.
struct MigrationsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The folder of NNNN_description.sql migration files.", valueName: "folder"))
    var migrations = "Migrations"

    var url: URL {
        URL(fileURLWithPath: migrations, isDirectory: true)
    }
}

/// The failure a command reports as one `error: ...` line, after which `strata` exits with status 1.
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Runs a command's body; any error becomes one `error: ...` line on stderr and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Terminal.writeError("error: " + oneLine(String(describing: error)))
        throw ExitCode.failure
    }
}

/// `text` with each line break, and the spaces around it, turned into one space.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
        .joined(separator: " ")
}

/// Writes to the standard streams.
enum Terminal {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
