import ArgumentParser
import Foundation
import Strata

/// `strata migrate`: applies the pending migrations.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the pending migrations to the database, creating it when missing.",
        discussion: """
            Each migration runs in its own transaction with the user_version bump: a failing migration \
            changes nothing, and the migrations before it stay applied. Several processes may migrate \
            one database at once; each migration is applied exactly once.
            """
    )

    @OptionGroup var databaseOptions: DatabaseOptions
    @OptionGroup var migrationsOptions: MigrationsOptions

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("Stop at this version instead of the latest.", valueName: "version"))
    var targetVersion: Int?

    @Flag(help: "Print the migrations that would run, with their SQL, and change nothing.")
    var dryRun = false

    @Flag(
        help: ArgumentHelp(
            "Record the new checksum of applied migration files edited since, instead of refusing to run.",
            discussion: "The database keeps what the file did when it was applied; review the edit first."))
    var acceptEdited = false

    func run() throws {
        try reportingErrors {
            // The folder is checked before the database file is created.
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrationsOptions.url)
            migrator.acceptsEditedFiles = acceptEdited
            let target = targetVersion ?? migrator.latestVersion
            guard target >= 0, target <= migrator.latestVersion else {
                throw CommandError(
                    "cannot migrate to version \(target): the migrations in \(migrationsOptions.migrations) "
                        + "go from 1 to \(migrator.latestVersion)")
            }
            if dryRun { return try printPlan(migrator, to: target) }
            let db = try databaseOptions.open()
            defer { db.close() }
            let before = try migrator.status(of: db)
            let start = before.currentVersion
            // Migrating to where the database is applies nothing but makes the checks and records of every run: an
            // edited file refused (or accepted), the history of what the database has recorded.
            try migrator.migrate(db, to: min(start, migrator.latestVersion))
            for version in before.edited {
                let file = migrator.migrations.first { $0.version == version }?.fileURL?.lastPathComponent
                Terminal.write("accepted the edit of \(file ?? String(version))")
            }
            var appliedAny = false
            // One version at a time, so that what was applied is printed before a later failure.
            for migration in migrator.migrations where migration.version > start && migration.version <= target {
                if try !migrator.migrate(db, to: migration.version).isEmpty {
                    Terminal.write("applied \(migration.identifier)")
                    appliedAny = true
                }
            }
            let now = try db.userVersion
            if appliedAny {
                Terminal.write("now at version \(now)")
            } else if now > target {
                Terminal.write("at version \(now), past version \(target), nothing to do")
            } else {
                Terminal.write("already at version \(now), nothing to do")
            }
        }
    }

    /// `--dry-run`: what `migrate` would apply, after the checks it makes first; a missing database is neither
    /// created nor opened, and an existing one is opened read-only.
    private func printPlan(_ migrator: Migrator, to target: Int) throws {
        let exists = databaseOptions.exists
        let db = exists ? try databaseOptions.open(readOnly: true) : try Database()
        defer { db.close() }
        let plan = try migrator.pendingMigrations(for: db, to: target)
        let current = try db.userVersion
        if plan.isEmpty {
            Terminal.write("dry run: at version \(current), nothing to apply")
            return
        }
        var lines = [
            "dry run: at version \(current)\(exists ? "" : " (the database does not exist yet)"), would apply:"
        ]
        for migration in plan {
            lines.append("-- \(migration.identifier)")
            if let url = migration.fileURL, let sql = try? String(contentsOf: url, encoding: .utf8) {
                lines.append(sql.trimmingCharacters(in: .newlines))
            }
        }
        lines.append("dry run: nothing was changed")
        Terminal.write(lines.joined(separator: "\n"))
    }
}
