import Foundation

extension Migrator {
    /// Registers a migration written in Swift.
    ///
    /// ```swift
    /// migrator.register(version: 2, name: "add updated_at") { db in
    ///     try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
    /// }
    /// ```
    ///
    /// Registering does not check the version; a duplicate or a gap is reported by `validate()`
    /// and before any migration runs.
    public mutating func register(
        version: Int,
        name: String,
        _ migration: @escaping @Sendable (Database) throws -> Void
    ) {
        insert(
            Migration(
                version: version, name: name, fileURL: nil, checksum: nil,
                block: DatabaseMigrationBlock(body: migration)))
    }

    /// Applies the pending migrations, in order, up to `latestVersion`.
    ///
    /// ```swift
    /// let applied = try migrator.migrate(db)     // [] when the database is up to date
    /// ```
    ///
    /// - Returns: The versions this call applied. A version another connection applied meanwhile is
    ///   not in the list.
    /// - Throws: `DatabaseError.Code.migration` for a gap or duplicate, a database newer than
    ///   `latestVersion`, a file that begins with `-- strata:no-transaction` (PostgreSQL only), or a failing
    ///   migration (named in the message); nothing is applied after a failure, and the failing migration leaves the
    ///   database as it was.
    @discardableResult
    public func migrate(_ db: Database) throws -> [Int] {
        try migrate(db, to: latestVersion)
    }

    /// Applies the pending migrations of a pool's or queue's database, on its writer, outside any other write.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.sqlite")
    /// try await migrator.migrate(pool)
    /// ```
    ///
    /// Each migration runs in its own transaction, as `migrate(_:)` on a `Database` does; writes asked for meanwhile
    /// wait for the writer.
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter<Database>) async throws -> [Int] {
        try await writer.writeWithoutTransaction { db in try migrate(db) }
    }

    /// Applies the pending migrations of a pool's or queue's database up to `targetVersion`.
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter<Database>, to targetVersion: Int) async throws -> [Int] {
        try await writer.writeWithoutTransaction { db in try migrate(db, to: targetVersion) }
    }

    /// Applies the pending migrations, in order, up to `targetVersion`.
    ///
    /// ```swift
    /// try migrator.migrate(db, to: 2)
    /// ```
    ///
    /// A database already at or past `targetVersion` (and not past `latestVersion`) is left as it is:
    /// migrations are never undone.
    ///
    /// - Returns: The versions this call applied.
    /// - Throws: `DatabaseError.Code.migration` when `targetVersion` is not between 0 and
    ///   `latestVersion`, and for the failures listed at `migrate(_:)`.
    @discardableResult
    public func migrate(_ db: Database, to targetVersion: Int) throws -> [Int] {
        try validate()
        try checkTarget(targetVersion)
        try checkRunsInTransactions(backend: "SQLite")
        let (current, history) = try snapshot(of: db)
        try checkNotNewer(current)
        try reconcileHistory(of: db, current: current, history: history)
        var applied: [Int] = []
        for migration in migrations where migration.version > current && migration.version <= targetVersion {
            do {
                let ran = try db.migrate(version: migration.version) { db in
                    try migration.run(on: db)
                    try MigrationHistory.record(migration, in: db)
                }
                if ran { applied.append(migration.version) }
            } catch {
                throw Self.failure(error, of: migration)
            }
        }
        return applied
    }

    /// The migrations `migrate(_:to:)` would apply to `db`, in order, after the checks it makes before running any
    /// (contiguous versions, a target in range, a database not newer, no edited file unless accepted). Nothing is
    /// written: this is a dry run.
    ///
    /// ```swift
    /// for migration in try migrator.pendingMigrations(for: db) {
    ///     print("would apply", migration.identifier)
    /// }
    /// ```
    ///
    /// - Throws: What `migrate(_:to:)` throws before it runs a migration.
    public func pendingMigrations(for db: Database, to targetVersion: Int? = nil) throws -> [Migration] {
        try validate()
        let target = targetVersion ?? latestVersion
        try checkTarget(target)
        try checkRunsInTransactions(backend: "SQLite")
        let (current, history) = try snapshot(of: db)
        try checkNotNewer(current)
        _ = try historyNeedsWriting(history, at: current)
        return migrations.filter { $0.version > current && $0.version <= target }
    }

    /// The migration status of a pool's or queue's database, read on a reader.
    public func status(of reader: some DatabaseReader<Database>) async throws -> MigrationStatus {
        try await reader.read { db in try status(of: db) }
    }

    /// Where `db` stands: its version, the registered versions applied and pending, and the recorded history with
    /// the applied files edited since and the applied versions with no migration here.
    ///
    /// ```swift
    /// let status = try migrator.status(of: db)
    /// print(status.currentVersion, status.applied, status.pending)   // 1 [1] [2, 3]
    /// print(status.edited, status.missing)                           // [] []
    /// ```
    ///
    /// It only reads: a database newer than `latestVersion` is reported (its extra versions in `missing`), not
    /// refused, and a history the database lacks is not written.
    ///
    /// - Throws: `DatabaseError.Code.migration` for a gap or duplicate, or a `strata_migrations` table edited by
    ///   hand into something Strata does not write.
    public func status(of db: Database) throws -> MigrationStatus {
        try validate()
        let (current, history) = try snapshot(of: db)
        return status(current: current, history: history)
    }

    // MARK: Private

    /// Checks the recorded history against the migrations before any runs: an applied `.sql` file edited since is
    /// refused, or its new checksum recorded when ``acceptsEditedFiles``; applied versions the history lacks are
    /// recorded. Writes only when there is something to record, in a transaction of its own.
    private func reconcileHistory(of db: Database, current: Int, history: [Int: AppliedMigration]) throws {
        guard try historyNeedsWriting(history, at: current) else { return }
        try db.transaction(.immediate) { db in
            // Another connection may have migrated or recorded meanwhile: decide again under the write lock.
            let (current, history) = try snapshot(of: db)
            try checkNotNewer(current)
            guard try historyNeedsWriting(history, at: current) else { return }
            for migration in editedMigrations(history, upTo: current) {
                try MigrationHistory.acceptChecksum(of: migration, in: db)
            }
            try MigrationHistory.backfill(
                migrations.filter { $0.version <= current && history[$0.version] == nil }, in: db)
        }
    }

    /// The database's version and recorded history, read in one transaction, so that another connection's migration
    /// cannot commit between the two reads.
    private func snapshot(of db: Database) throws -> (version: Int, history: [Int: AppliedMigration]) {
        try db.transaction { db in
            let current = try db.userVersion
            return (current, try MigrationHistory.read(from: db, currentVersion: current))
        }
    }
}

/// A Swift-block migration of SQLite, as ``Migrator/register(version:name:_:)`` keeps it.
private struct DatabaseMigrationBlock: Sendable {
    let body: @Sendable (Database) throws -> Void
}

extension Migrator.Migration {
    /// Runs the migration on `db`: its SQL, or its Swift block.
    fileprivate func run(on db: Database) throws {
        if let sql {
            try db.execute(query: sql)
        } else if let block = block as? DatabaseMigrationBlock {
            try block.body(db)
        } else {
            throw DatabaseError(
                code: .migration, message: "\(self) has neither SQL nor a Swift block that runs on SQLite")
        }
    }
}
