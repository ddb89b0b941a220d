import ArgumentParser
import Foundation
import Strata

/// `strata migrate`: applies the pending migrations.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the pending migrations to the database, creating it when missing.",
        discussion: """
            Each migration runs in its own transaction with the user_version bump: a failing migration \
            changes nothing, and the migrations before it stay applied. Several processes may migrate \
            one database at once; each migration is applied exactly once.

            With --database postgres://... (a strata built with the PostgreSQL trait), the version is in the \
            table strata_schema_version, each migration commits with its version bump, and concurrent \
            migrators wait for each other on an advisory lock. The migrations folder defaults to \
            Migrations/postgresql when it exists.
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

    func run() async throws {
        try await reportingAsyncErrors {
            // The folder is checked before the database file is created.
            let folder = migrationsOptions.migrations(for: databaseOptions)
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: migrationsOptions.url(for: databaseOptions))
            migrator.acceptsEditedFiles = acceptEdited
            let target = targetVersion ?? migrator.latestVersion
            guard target >= 0, target <= migrator.latestVersion else {
                throw CommandError(
                    "cannot migrate to version \(target): the migrations in \(folder) "
                        + "go from 1 to \(migrator.latestVersion)")
            }
            if dryRun {
                // A missing database is neither created nor opened, and an existing one is opened read-only.
                return try await databaseOptions.withWriter(readOnly: true, missingIsEmpty: true) { writer in
                    let plan = try await migrator.pendingMigrations(for: writer, to: target)
                    let current = try await migrator.status(of: writer).currentVersion
                    printPlan(plan, current: current, exists: databaseOptions.exists)
                }
            }
            try await databaseOptions.withWriter { writer in try await apply(migrator, to: target, on: writer) }
        }
    }

    /// Applies the migrations up to `target` one at a time, printing each, on the writer of any backend.
    private func apply(_ migrator: Migrator, to target: Int, on writer: some DatabaseWriter) async throws {
        func migrate(_ version: Int) async throws -> [Int] { try await migrator.migrate(writer, to: version) }
        let before = try await migrator.status(of: writer)
        let start = before.currentVersion
        // Migrating to where the database is applies nothing but makes the checks and records of every run: an
        // edited file refused (or accepted), the history of what the database has recorded.
        _ = try await migrate(min(start, migrator.latestVersion))
        for version in before.edited {
            let file = migrator.migrations.first { $0.version == version }?.fileURL?.lastPathComponent
            Terminal.write("accepted the edit of \(file ?? String(version))")
        }
        var appliedAny = false
        // One version at a time, so that what was applied is printed before a later failure.
        for migration in migrator.migrations where migration.version > start && migration.version <= target {
            let applied: [Int]
            do {
                applied = try await migrate(migration.version)
            } catch let error as DatabaseError where error.code == .commitOutcomeUnknown {
                // The commit failed after it may have reached the disk: the database may be at this version or not.
                throw CommandError(
                    "\(error); run `strata status` to see whether migration \(migration.version) was applied "
                        + "before migrating again")
            }
            if !applied.isEmpty {
                Terminal.write("applied \(migration.identifier)")
                appliedAny = true
            }
        }
        let now = try await migrator.status(of: writer).currentVersion
        if appliedAny {
            Terminal.write("now at version \(now)")
        } else if now > target {
            Terminal.write("at version \(now), past version \(target), nothing to do")
        } else {
            Terminal.write("already at version \(now), nothing to do")
        }
    }

    /// Prints the migrations `--dry-run` would apply, with their SQL.
    private func printPlan(_ plan: [Migrator.Migration], current: Int, exists: Bool) {
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
