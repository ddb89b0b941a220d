import ArgumentParser
import Foundation
import Strata

/// `strata status`: the database's version and the applied and pending migrations.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the database's version and the applied and pending migrations.",
        discussion: "A missing database is reported at version 0 and is not created; the database is opened read-only."
    )

    @OptionGroup var databaseOptions: DatabaseOptions
    @OptionGroup var migrationsOptions: MigrationsOptions

    func run() throws {
        try reportingErrors {
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrationsOptions.url)
            let exists = databaseOptions.exists
            // A missing database is at version 0, as an empty in-memory one is.
            let db = exists ? try databaseOptions.open(readOnly: true) : try Database()
            defer { db.close() }
            let status = try migrator.status(of: db)
            let names = Dictionary(migrator.migrations.map { ($0.version, $0.identifier) }) { first, _ in first }
            var lines = [
                "database: \(databaseOptions.database)" + (exists ? "" : " (does not exist yet)"),
                "current version: \(status.currentVersion)",
                "latest version: \(status.latestVersion)",
            ]
            for (title, versions) in [("applied", status.applied), ("pending", status.pending)] {
                if versions.isEmpty {
                    lines.append("\(title): none")
                } else {
                    lines.append("\(title):")
                    lines += versions.map { "  " + (names[$0] ?? String($0)) }
                }
            }
            Terminal.write(lines.joined(separator: "\n"))
        }
    }
}
