import ArgumentParser
import Foundation
import Strata

/// `strata status`: the database's version and the applied and pending migrations.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the database's version and the applied and pending migrations.",
        discussion: """
            A missing database is reported at version 0 and is not created; the database is opened read-only. \
            A PostgreSQL database (--database postgres://..., a strata built with the PostgreSQL trait) never \
            migrated is at version 0; its migrations folder defaults to Migrations/postgresql when it exists.
            """
    )

    @OptionGroup var databaseOptions: DatabaseOptions
    @OptionGroup var migrationsOptions: MigrationsOptions

    func run() async throws {
        try await reportingAsyncErrors {
            let folder = migrationsOptions.migrations(for: databaseOptions)
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrationsOptions.url(for: databaseOptions))
            let exists = databaseOptions.exists
            // A missing database is at version 0, as an empty in-memory one is.
            let status = try await databaseOptions.withWriter(readOnly: true, missingIsEmpty: true) { writer in
                try await migrator.status(of: writer)
            }
            try report(status, of: migrator, exists: exists, folder: folder)
        }
    }

    /// Prints `status`, then throws for a database newer than the migrations or applied files edited since.
    private func report(_ status: MigrationStatus, of migrator: Migrator, exists: Bool, folder: String) throws {
        let history = Dictionary(status.history.map { ($0.version, $0) }) { first, _ in first }
        var lines = [
            "database: \(databaseOptions.displayName)" + (exists ? "" : " (does not exist yet)"),
            "current version: \(status.currentVersion)",
            "latest version: \(status.latestVersion)",
        ]
        func section(_ title: String, _ versions: [Int], _ line: (Int) -> String) {
            if versions.isEmpty {
                lines.append("\(title): none")
            } else {
                lines.append("\(title):")
                lines += versions.map { "  " + line($0) }
            }
        }
        let migrations = Dictionary(migrator.migrations.map { ($0.version, $0) }) { first, _ in first }
        section("applied", status.applied) { version in
            let name = migrations[version]?.identifier ?? String(version)
            let edited = status.edited.contains(version) ? "  EDITED since applied" : ""
            guard let applied = history[version] else { return name + "  (not recorded yet)" + edited }
            let when = applied.appliedAt.map { "applied " + Self.format($0) } ?? "applied before the history began"
            return "\(name)  \(when)\(edited)"
        }
        section("pending", status.pending) { migrations[$0]?.identifier ?? String($0) }
        if !status.missing.isEmpty {
            section("missing (applied, with no migration file here)", status.missing) { version in
                history[version]?.name ?? "version \(version)"
            }
        }
        Terminal.write(lines.joined(separator: "\n"))
        if !status.missing.isEmpty {
            throw CommandError(
                "the database is at version \(status.currentVersion), newer than the latest migration in "
                    + "\(folder) (version \(status.latestVersion)); it was migrated by newer code"
            )
        }
        if !status.edited.isEmpty {
            let files = status.edited.map { migrations[$0]?.fileURL?.lastPathComponent ?? String($0) }
            throw CommandError(
                "applied migration files changed since they were applied: \(files.joined(separator: ", ")); "
                    + "migrate refuses to run until they are restored or the edit is accepted (--accept-edited)")
        }
    }

    /// `2026-11-23T13:45:12Z`.
    private static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
