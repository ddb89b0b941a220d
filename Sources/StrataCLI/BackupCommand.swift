import ArgumentParser
import Foundation
import Strata

/// `strata backup --to PATH`: copies the database into a new file while other processes keep using it.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database into a new file, while other processes keep using it.",
        discussion: """
            The copy is the database as it was committed when the backup began; in WAL mode, writers keep \
            committing meanwhile. It is written beside the destination and renamed into place only once complete, \
            so a failed backup leaves nothing behind; if the disk fails to remove the temporary file, the error names it. An \
            existing destination is refused unless --overwrite is given.
            """
    )

    @OptionGroup var databaseOptions: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The backup file to create. Its folder must exist.", valueName: "path"))
    var to: String

    @Flag(name: .long, help: "Replace a file already at the destination.")
    var overwrite = false

    func run() throws {
        try reportingErrors {
            if databaseOptions.isPostgres {
                throw CommandError("backup copies SQLite databases; for PostgreSQL, use pg_dump")
            }
            // Opening a missing database would create an empty one, and back that up.
            guard databaseOptions.exists else {
                throw CommandError("no database at \(databaseOptions.database)")
            }
            let db = try databaseOptions.open(readOnly: true)
            defer { db.close() }
            let result = try db.backup(to: to, overwrite: overwrite)
            Terminal.write("backed up \(databaseOptions.database) to \(to): \(result.totalPages) pages")
            // The copy is good, but the disk failed to remove a file: say which, and exit non-zero.
            guard result.leftovers.isEmpty else {
                throw CommandError(
                    "the backup at \(to) is complete, but its temporary file could not be removed; remove it by hand: "
                        + result.leftovers.joined(separator: ", "))
            }
        }
    }
}
