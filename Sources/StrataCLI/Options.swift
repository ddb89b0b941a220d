import ArgumentParser
import Foundation
import Strata

/// The `--database` option shared by the commands that open a database.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file, or a PostgreSQL URL (postgres://user:password@host:port/database) for a "
                + "strata built with the PostgreSQL trait.",
            valueName: "path-or-url"))
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

    /// Whether the database exists: the SQLite file is there (commands that only read never create it); a
    /// PostgreSQL database is taken to exist, and the server says otherwise.
    var exists: Bool {
        isPostgres || FileManager.default.fileExists(atPath: database)
    }

    /// Runs `body` with the writer of `--database`, and closes it when `body` returns: for a PostgreSQL URL, a
    /// `PostgresPool` of one connection; for a SQLite file, a `DatabaseQueue` on the connection ``open(readOnly:)``
    /// opens (`readOnly`, with the busy timeout), or on an empty in-memory database when the file is missing and
    /// `missingIsEmpty` (a missing database is at version 0, and is not created).
    ///
    /// The one place that opens a database for `migrate`, `status` and `query`, which are written once over the
    /// shared `DatabaseWriter`.
    func withWriter<Output>(
        readOnly: Bool = false, missingIsEmpty: Bool = false, _ body: (any DatabaseWriter) async throws -> Output
    ) async throws -> Output {
        let writer: any DatabaseWriter
        if isPostgres {
            writer = try openPostgresWriter(database)
        } else if missingIsEmpty, !exists {
            writer = try DatabaseQueue()
        } else {
            writer = DatabaseQueue(opened: try open(readOnly: readOnly))
        }
        let output: Output
        do {
            output = try await body(writer)
        } catch {
            await writer.close()
            throw error
        }
        await writer.close()
        return output
    }

    /// Whether `--database` is a PostgreSQL URL rather than a SQLite file: it starts with `postgres:` or
    /// `postgresql:`, in any case, so that a mistyped URL (`postgres:/app:pw@db`) is refused as a URL, its password
    /// hidden, rather than opened as a file.
    var isPostgres: Bool {
        let scheme = database.prefix(11).lowercased()
        return scheme.hasPrefix("postgres:") || scheme.hasPrefix("postgresql:")
    }

    /// The database as output names it: a URL with its password replaced by `***`, even one that does not parse.
    var displayName: String {
        isPostgres ? ConnectionURLRedaction.redacting(database) : database
    }
}

extension CommandError {
    /// The error of a `strata` built without PostgreSQL given a PostgreSQL URL.
    static let postgresNotBuilt = CommandError(
        "this strata was built without PostgreSQL support: build it with the PostgreSQL trait "
            + "(swift build --traits PostgreSQL, or swift run --traits PostgreSQL strata ...) to use a postgres:// URL")
}

/// The `--migrations` option shared by the commands that read the migrations folder.
struct MigrationsOptions: ParsableArguments {
    /// The default folder of migrations for a PostgreSQL database, when it exists.
    static let postgresFolder = "Migrations/postgresql"

    @Option(
        name: .customLong("migrations"),
        help: ArgumentHelp(
            "The folder of NNNN_description.sql migration files (default: Migrations; for a postgres:// database, "
                + "Migrations/postgresql when that folder exists, else Migrations).",
            valueName: "folder"))
    var folder: String?

    /// The folder for a SQLite database: `--migrations`, or `Migrations`.
    var migrations: String { folder ?? "Migrations" }

    var url: URL {
        URL(fileURLWithPath: migrations, isDirectory: true)
    }

    /// The folder for `database`: `--migrations`; or for a PostgreSQL URL `Migrations/postgresql` when it exists;
    /// or `Migrations`.
    func migrations(for database: DatabaseOptions) -> String {
        if folder == nil, database.isPostgres {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: Self.postgresFolder, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                return Self.postgresFolder
            }
        }
        return migrations
    }

    func url(for database: DatabaseOptions) -> URL {
        URL(fileURLWithPath: migrations(for: database), isDirectory: true)
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

/// Runs an async command's body; any error becomes one `error: ...` line on stderr and exit status 1.
func reportingAsyncErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
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
