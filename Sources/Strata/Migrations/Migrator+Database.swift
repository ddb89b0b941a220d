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
    /// The block takes SQLite's `Database`, so it runs on SQLite only; `register(version:name:sql:)` registers SQL
    /// that runs on every backend. Registering does not check the version; a duplicate or a gap is reported by
    /// `validate()` and before any migration runs.
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
    /// It runs the loop of `migrate(_:)` on a writer, on this connection and the calling thread.
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
        try runOnCallingThread { try await migrateSession(db, to: targetVersion) }
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
        try runOnCallingThread {
            try await db.transaction(
                .deferred, suspending: { db in try await pendingMigrations(inSession: db, to: targetVersion) })
        }
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
        try runOnCallingThread {
            try await db.transaction(.deferred, suspending: { db in try await status(ofSession: db) })
        }
    }
}

/// A Swift-block migration of SQLite, as ``Migrator/register(version:name:_:)`` keeps it.
private struct DatabaseMigrationBlock: Sendable {
    let body: @Sendable (Database) throws -> Void
}

extension Database: MigratableSession {
    public typealias MigrationDriver = SQLiteMigrationDriver
}

/// How ``StrataCore/Migrator`` migrates a SQLite database: the version is `user_version`, concurrent migrators are kept apart
/// by `BEGIN IMMEDIATE` (each waits for the write lock up to the ``Database/busyTimeout``), and each migration runs
/// as ``Database/migrate(version:_:)`` runs one: foreign keys checked before the commit, `BEGIN`, `COMMIT` and
/// `ROLLBACK` refused. Every migration runs in a transaction: a file that begins with `-- strata:no-transaction` is
/// refused before anything runs.
///
/// The migrator uses it; an application does not call it.
public struct SQLiteMigrationDriver: MigrationDriver {
    public static func find(in session: Database, forWriting: Bool) async throws -> SQLiteMigrationDriver? {
        SQLiteMigrationDriver()
    }

    public static func check(_ migrator: Migrator) throws {
        try migrator.checkRunsInTransactions(backend: "SQLite")
    }

    public func withSnapshot<Output: Sendable>(_ session: Database, _ body: (Database) async throws -> Output)
        async throws
        -> Output
    {
        try await session.transaction(.deferred, suspending: body)
    }

    public func withMigrationLock<Output: Sendable>(_ session: Database, _ body: (Database) async throws -> Output)
        async throws -> Output
    {
        try await session.transaction(.immediate, suspending: body)
    }

    public func version(in session: Database) async throws -> Int {
        try session.userVersion
    }

    public func setVersion(_ version: Int, in session: Database) async throws {
        try session.setUserVersion(version)
    }

    public func history(in session: Database, currentVersion: Int) async throws -> [Int: AppliedMigration] {
        try MigrationHistory.read(from: session, currentVersion: currentVersion)
    }

    public func record(_ migration: Migrator.Migration, appliedNow: Bool, in session: Database) async throws {
        if appliedNow {
            try MigrationHistory.record(migration, in: session)
        } else {
            try MigrationHistory.backfill([migration], in: session)
        }
    }

    public func acceptChecksum(of migration: Migrator.Migration, in session: Database) async throws {
        try MigrationHistory.acceptChecksum(of: migration, in: session)
    }

    public func run(_ migration: Migrator.Migration, from currentVersion: Int, in session: Database) async throws {
        let db = session
        try db.withDeferredForeignKeys {
            try db.refusingTransactionControl(migrating: migration.version) {
                if let sql = migration.sql {
                    try db.execute(query: sql)
                } else if let block = migration.block as? DatabaseMigrationBlock {
                    try block.body(db)
                } else {
                    throw DatabaseError(
                        code: .migration, message: "\(migration) has neither SQL nor a Swift block that runs on SQLite")
                }
            }
            // A COMMIT or ROLLBACK in the migration would split it from its version bump.
            guard db.isInTransaction else {
                throw DatabaseError(
                    code: .migration,
                    message: "migration \(migration.version) ended the transaction it runs in (COMMIT or ROLLBACK); "
                        + "its changes may be committed but the version stays \(currentVersion)")
            }
            try db.checkForeignKeys()
        }
    }
}
