import Foundation
public import StrataCore

/// Strata's ``Migrator`` on PostgreSQL: the same migration files, validation, history and checks as on SQLite.
///
/// ```swift
/// var migrator = Migrator()
/// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/postgresql"))
/// try await migrator.migrate(pg)                    // [1, 2, 3] on an empty database
/// let status = try await migrator.status(of: pg)    // currentVersion 3, applied [1, 2, 3], pending []
/// ```
///
/// - **The version lives in a table.** `strata_schema_version` holds one row, the database's version, as
///   `user_version` does on SQLite; the history is in `strata_migrations`, as on SQLite. Both are created in the
///   first schema of the connection's `search_path` by the first `migrate`.
/// - **A step and its version bump commit together.** Each migration runs in its own transaction with its history
///   row and the new version (PostgreSQL DDL is transactional): a failing step leaves the database at the version
///   before it, with nothing of the step left.
/// - **Concurrent migrators apply each step once.** Each transaction first takes a transaction-scoped advisory lock
///   (`pg_advisory_xact_lock`) for the schema, then reads the version again: tasks and processes migrating one
///   database at once wait for each other, and a step another one applied is skipped.
/// - **Only SQL files run on PostgreSQL.** A migration registered as a Swift block takes a SQLite `Database`:
///   migrating a ``PostgresPool`` with one throws naming it, before anything runs.
/// - **The same refusals as on SQLite.** A database newer than ``Migrator/latestVersion``, and an applied file
///   edited since (unless ``Migrator/acceptsEditedFiles``), throw before any step runs.
extension Migrator {
    /// Applies the pending migrations to the database of `pool`, in order, up to ``Migrator/latestVersion``.
    ///
    /// - Returns: The versions this call applied; a version another migrator applied meanwhile is not in the list.
    /// - Throws: `DatabaseError` with the `migration` code for a gap or duplicate, a Swift-block migration, a
    ///   database newer than the migrations, an edited applied file, or a failing step (named, with PostgreSQL's
    ///   SQLSTATE and message); ``PostgresError`` when the server cannot be reached.
    @discardableResult
    public func migrate(_ pool: PostgresPool) async throws -> [Int] {
        try await migrate(pool, to: latestVersion)
    }

    /// Applies the pending migrations to the database of `pool`, in order, up to `targetVersion`.
    ///
    /// A database already at or past `targetVersion` (and not past ``Migrator/latestVersion``) is left as it is.
    @discardableResult
    public func migrate(_ pool: PostgresPool, to targetVersion: Int) async throws -> [Int] {
        try validate()
        try checkTarget(targetVersion)
        try checkRunsOnPostgres()
        let start = try await pool.write { db in
            try await PostgresMigrationTables.lock(db)
            try await PostgresMigrationTables.create(in: db)
            let (current, history) = try await PostgresMigrationTables.snapshot(of: db)
            try checkNotNewer(current)
            guard try historyNeedsWriting(history, at: current) else { return current }
            for migration in editedMigrations(history, upTo: current) {
                try await PostgresMigrationTables.acceptChecksum(of: migration, in: db)
            }
            for migration in migrations where migration.version <= current && history[migration.version] == nil {
                try await PostgresMigrationTables.record(migration, in: db, appliedNow: false)
            }
            return current
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > start && migration.version <= targetVersion {
            let ran = try await pool.write { db in
                try await PostgresMigrationTables.lock(db)
                let current = try await PostgresMigrationTables.version(of: db)
                try checkNotNewer(current)
                // Another migrator applied it while this one waited for the lock.
                guard current < migration.version else { return false }
                try await run(migration, in: db)
                try await PostgresMigrationTables.record(migration, in: db, appliedNow: true)
                try await PostgresMigrationTables.setVersion(migration.version, in: db)
                return true
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    /// The migrations `migrate(_:to:)` would apply to the database of `pool`, after the checks it makes before
    /// running any. Nothing is written: this is a dry run.
    public func pendingMigrations(for pool: PostgresPool, to targetVersion: Int? = nil) async throws -> [Migration] {
        try validate()
        let target = targetVersion ?? latestVersion
        try checkTarget(target)
        try checkRunsOnPostgres()
        let (current, history) = try await snapshot(of: pool)
        try checkNotNewer(current)
        _ = try historyNeedsWriting(history, at: current)
        return migrations.filter { $0.version > current && $0.version <= target }
    }

    /// Where the database of `pool` stands: its version, the registered versions applied and pending, and the
    /// recorded history with the applied files edited since and the applied versions with no migration here.
    ///
    /// It only reads, in one read-only transaction on the primary (a replica may lag): a database never migrated is
    /// at version 0, and a newer database is reported (its extra versions in `missing`), not refused. Swift-block
    /// migrations are listed like the others.
    public func status(of pool: PostgresPool) async throws -> MigrationStatus {
        try validate()
        let (current, history) = try await snapshot(of: pool)
        return status(current: current, history: history)
    }

    // MARK: Private

    /// The version and history, read in one snapshot.
    private func snapshot(of pool: PostgresPool) async throws -> (version: Int, history: [Int: AppliedMigration]) {
        try await pool.write { db in
            try await db.execute(query: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return try await PostgresMigrationTables.snapshot(of: db)
        }
    }

    /// Throws naming the first migration registered as a Swift block, which only runs on SQLite.
    private func checkRunsOnPostgres() throws {
        guard let block = migrations.first(where: { $0.sql == nil }) else { return }
        throw DatabaseError(
            code: .migration,
            message: "\(block) is a Swift block, (Database) throws -> Void, which runs on SQLite only: "
                + "write it as a .sql file to migrate a PostgreSQL database")
    }

    /// Runs the SQL of `migration`'s file, which may hold several statements, in the session's transaction.
    private func run(_ migration: Migration, in db: PostgresSession) async throws {
        let sql = migration.sql ?? ""
        do {
            // The extended protocol runs one statement at a time; PL/pgSQL's EXECUTE runs a whole script, in the
            // transaction. The file is quoted with a dollar tag it does not contain, so it is never spliced.
            var tag = "$strata_migration$"
            var suffix = 0
            while sql.contains(tag) {
                suffix += 1
                tag = "$strata_migration_\(suffix)$"
            }
            try await db.run(sql: "DO $strata_do$ BEGIN EXECUTE \(tag)\(sql)\(tag); END $strata_do$")
        } catch let error as PostgresError {
            let reason = error.summary
            throw DatabaseError(
                code: .migration, message: "\(migration) failed: \(reason)", sql: sql, underlyingError: error)
        } catch {
            throw Self.failure(error, of: migration)
        }
    }
}

/// The `strata_schema_version` and `strata_migrations` tables of a PostgreSQL database.
///
/// ```sql
/// CREATE TABLE strata_schema_version (
///     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), version integer NOT NULL CHECK (version >= 0))
/// CREATE TABLE strata_migrations (
///     version integer PRIMARY KEY, name text NOT NULL, checksum text, applied_at timestamptz)
/// ```
enum PostgresMigrationTables {
    static let versionTable = "strata_schema_version"

    /// Waits for, then holds until the transaction ends, the lock of migrations in the connection's schema.
    static func lock(_ db: PostgresSession) async throws {
        // 0x53747261 is "Stra"; the second key is the schema's, so that schemas of one database migrate apart.
        try await db.execute(
            query: "SELECT pg_advisory_xact_lock(1400140385, hashtext(coalesce(current_schema(), '')))")
    }

    /// Creates the tables when missing, the version at 0; called under the lock.
    static func create(in db: PostgresSession) async throws {
        try await db.execute(
            query: """
                CREATE TABLE IF NOT EXISTS \(versionTable) (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    version integer NOT NULL CHECK (version >= 0))
                """)
        try await db.execute(query: "INSERT INTO \(versionTable) (version) VALUES (0) ON CONFLICT DO NOTHING")
        try await db.execute(
            query: """
                CREATE TABLE IF NOT EXISTS \(MigrationHistory.table) (
                    version integer PRIMARY KEY, name text NOT NULL, checksum text, applied_at timestamptz)
                """)
    }

    /// The database's version: 0 when it was never migrated.
    static func version(of db: PostgresSession) async throws -> Int {
        let exists = try await db.fetchOne(
            Bool.self, query: "SELECT to_regclass('\(versionTable)') IS NOT NULL")
        guard exists == true else { return 0 }
        let versions = try await db.fetchAll(Int.self, query: "SELECT version FROM \(versionTable)")
        guard versions.count <= 1 else {
            throw DatabaseError(
                code: .migration,
                message: "\(versionTable) has \(versions.count) rows, not one; Strata writes this table with each "
                    + "migration: restore it from a backup")
        }
        return versions.first ?? 0
    }

    /// The version and the recorded history, in the session's transaction.
    static func snapshot(of db: PostgresSession) async throws -> (version: Int, history: [Int: AppliedMigration]) {
        let current = try await version(of: db)
        return (current, try await history(of: db, currentVersion: current))
    }

    /// The recorded migrations by version, empty when the table does not exist.
    ///
    /// - Throws: `DatabaseError` with the `migration` code when the table or a row is not what Strata writes.
    static func history(of db: PostgresSession, currentVersion: Int) async throws -> [Int: AppliedMigration] {
        let found = try await db.fetchAll(
            String.self,
            query: """
                SELECT CAST(attname AS text) FROM pg_attribute
                WHERE attrelid = to_regclass('\(MigrationHistory.table)') AND attnum > 0 AND NOT attisdropped
                ORDER BY attnum
                """)
        if found.isEmpty { return [:] }
        guard found == MigrationHistory.columns else {
            throw MigrationHistory.malformed(
                "has the columns \(found.joined(separator: ", ")), not "
                    + MigrationHistory.columns.joined(separator: ", "))
        }
        let rows = try await db.fetchAll(
            HistoryRow.self,
            query: "SELECT version, name, checksum, applied_at FROM \(MigrationHistory.table) ORDER BY version")
        var history: [Int: AppliedMigration] = [:]
        for row in rows {
            guard row.version >= 1 else {
                throw MigrationHistory.malformed("has a row whose version is \(row.version), not a version number")
            }
            guard row.version <= currentVersion else {
                throw MigrationHistory.malformed(
                    "records version \(row.version), but the database is at version \(currentVersion) "
                        + "(\(versionTable))")
            }
            if let checksum = row.checksum, !MigrationHistory.isChecksum(checksum) {
                throw MigrationHistory.malformed(
                    "has a row for version \(row.version) whose checksum is '\(checksum.prefix(80))', "
                        + "not 64 hexadecimal digits or NULL")
            }
            history[row.version] = AppliedMigration(
                version: row.version, name: row.name, checksum: row.checksum, appliedAt: row.appliedAt)
        }
        return history
    }

    /// Records `migration` as applied: now, or with no time for a migration applied before the history began.
    static func record(_ migration: Migrator.Migration, in db: PostgresSession, appliedNow: Bool) async throws {
        try await db.execute(
            query: """
                INSERT INTO \(MigrationHistory.table) (version, name, checksum, applied_at)
                VALUES (:version, :name, :checksum, \(appliedNow ? "clock_timestamp()" : "NULL"))
                ON CONFLICT (version) DO \(appliedNow
                    ? "UPDATE SET name = excluded.name, checksum = excluded.checksum, applied_at = excluded.applied_at"
                    : "NOTHING")
                """,
            parameters: ["version": migration.version, "name": migration.identifier, "checksum": migration.checksum])
    }

    /// Records the checksum `migration`'s file has now, for an edit the migrator was told to accept.
    static func acceptChecksum(of migration: Migrator.Migration, in db: PostgresSession) async throws {
        try await db.execute(
            query: "UPDATE \(MigrationHistory.table) SET checksum = :checksum WHERE version = :version",
            parameters: ["version": migration.version, "checksum": migration.checksum])
    }

    /// Sets the database's version, in the transaction of the step that brings it.
    static func setVersion(_ version: Int, in db: PostgresSession) async throws {
        try await db.execute(query: "UPDATE \(versionTable) SET version = :version", parameters: ["version": version])
    }

    /// A row of `strata_migrations`.
    private struct HistoryRow: Decodable {
        var version: Int
        var name: String
        var checksum: String?
        var appliedAt: Date?

        enum CodingKeys: String, CodingKey {
            case version, name, checksum
            case appliedAt = "applied_at"
        }
    }
}
