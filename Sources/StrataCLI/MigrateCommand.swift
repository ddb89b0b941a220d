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

    func run() throws {
        try reportingErrors {
            // The folder is checked before the database file is created.
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrationsOptions.url)
            let target = targetVersion ?? migrator.latestVersion
            guard target >= 0, target <= migrator.latestVersion else {
                throw CommandError(
                    "cannot migrate to version \(target): the migrations in \(migrationsOptions.migrations) "
                        + "go from 1 to \(migrator.latestVersion)")
            }
            let db = try databaseOptions.open()
            defer { db.close() }
            let start = try migrator.status(of: db).currentVersion
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
}
