public import Foundation

/// A list of versioned schema migrations, from Swift blocks and `.sql` files, and the code that applies them.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register(version: 1, name: "create note") { db in
///     try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
/// }
/// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))   // 0002_..., 0003_...
///
/// let db = try Database(path: "app.sqlite")
/// let applied = try migrator.migrate(db)           // [2, 3] on a database at version 1
/// let status = try migrator.status(of: db)         // currentVersion 3, applied [1, 2, 3], pending []
/// ```
///
/// Each migration is applied by ``Database/migrate(version:_:)``, so it inherits its guarantees: a
/// migration and its `user_version` bump commit together, a failure changes nothing, and
/// processes that migrate one file at once apply each migration exactly once.
///
/// - **Versions are contiguous from 1.** A gap or a duplicate version is an error reported before
///   any migration runs, by ``validate()``, `migrate(_:)`, `migrate(_:to:)` and `status(of:)`.
/// - **A newer database is refused.** A database whose `user_version` is above ``latestVersion``
///   was migrated by newer code; migrating or inspecting it throws an error naming both versions.
/// - **A migration error names the migration.** It says which version, name and file failed, and
///   why: the underlying error's message, kept in ``DatabaseError/underlyingError``.
public struct Migrator: Sendable {
    /// One registered migration.
    public struct Migration: Sendable, CustomStringConvertible {
        /// The version the database has once the migration is applied.
        public let version: Int
        /// The name given to ``Migrator/register(version:name:_:)``, or the description of a file name
        /// (`create_note` for `0001_create_note.sql`).
        public let name: String
        /// The `.sql` file the migration runs, nil for a Swift block.
        public let fileURL: URL?

        let body: @Sendable (Database) throws -> Void

        /// `0001_create_note` for a file, `0001_create note` for a Swift block named "create note".
        public var identifier: String {
            if let fileURL {
                return fileURL.deletingPathExtension().lastPathComponent
            }
            return Self.paddedVersion(version) + "_" + name
        }

        /// `migration 2 "add_tags" (0002_add_tags.sql)`, as errors name it.
        public var description: String {
            var text = "migration \(version) \"\(name)\""
            if let fileURL {
                text += " (\(fileURL.lastPathComponent))"
            }
            return text
        }

        static func paddedVersion(_ version: Int) -> String {
            let digits = String(version)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The registered migrations, sorted by version.
    public private(set) var migrations: [Migration] = []

    /// Creates a migrator with no migrations.
    public init() {}

    /// The highest registered version, 0 when there is none.
    public var latestVersion: Int {
        migrations.last?.version ?? 0
    }

    /// Registers a migration written in Swift.
    ///
    /// ```swift
    /// migrator.register(version: 2, name: "add updated_at") { db in
    ///     try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
    /// }
    /// ```
    ///
    /// Registering does not check the version; a duplicate or a gap is reported by ``validate()``
    /// and before any migration runs.
    public mutating func register(
        version: Int,
        name: String,
        _ migration: @escaping @Sendable (Database) throws -> Void
    ) {
        insert(Migration(version: version, name: name, fileURL: nil, body: migration))
    }

    /// Registers every `NNNN_description.sql` file of `directory` as the migration to version `NNNN`.
    ///
    /// ```swift
    /// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    /// ```
    ///
    /// A file runs as one or more SQL statements (``Database/execute(query:)``), in the migration's
    /// transaction. Files are read now, so a missing or unreadable file fails here.
    ///
    /// - **Files that are not migrations are ignored.** Hidden files and files without the `.sql`
    ///   extension, such as `README.md` or `.DS_Store`, are skipped.
    /// - **A malformed migration file name is an error.** A `.sql` file whose name is not
    ///   `NNNN_description.sql` throws, and nothing is registered.
    /// - **A gap or a duplicate version is an error.** After the folder is added, the registered
    ///   versions must run from 1 without a gap or a repeat; register Swift migrations that come
    ///   before or among the files first.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` naming the folder or file at fault.
    public mutating func registerSQLFiles(in directory: URL) throws {
        let files = try MigrationFile.load(from: directory)
        var combined = self
        for file in files {
            let sql = file.sql
            combined.insert(
                Migration(version: file.version, name: file.name, fileURL: file.url) { db in
                    try db.execute(query: sql)
                })
        }
        try combined.validate()
        self = combined
    }

    /// Checks that the versions run from 1 to ``latestVersion`` with no gap and no duplicate.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` naming the missing or repeated version.
    public func validate() throws {
        var expected = 1
        var previous: Migration?
        for migration in migrations {
            if let previous, previous.version == migration.version {
                throw DatabaseError(
                    code: .migration,
                    message: "duplicate migration version \(migration.version): \(previous) and \(migration)")
            }
            guard migration.version >= 1, Int32(exactly: migration.version) != nil else {
                throw DatabaseError(
                    code: .migration, message: "\(migration) has an invalid version: versions go from 1 to \(Int32.max)"
                )
            }
            guard migration.version == expected else {
                let after = previous.map { "\($0) is followed by \(migration)" } ?? "the first is \(migration)"
                throw DatabaseError(
                    code: .migration,
                    message: "migration versions must be contiguous from 1: version \(expected) is missing (\(after))")
            }
            previous = migration
            expected += 1
        }
    }

    /// Applies the pending migrations, in order, up to ``latestVersion``.
    ///
    /// ```swift
    /// let applied = try migrator.migrate(db)     // [] when the database is up to date
    /// ```
    ///
    /// - Returns: The versions this call applied. A version another connection applied meanwhile is
    ///   not in the list.
    /// - Throws: ``DatabaseError/Code/migration`` for a gap or duplicate, a database newer than
    ///   ``latestVersion``, or a failing migration (named in the message); nothing is applied after a
    ///   failure, and the failing migration leaves the database as it was.
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
    public func migrate(_ writer: some DatabaseWriter) async throws -> [Int] {
        try await writer.writeWithoutTransaction { db in try migrate(db) }
    }

    /// Applies the pending migrations of a pool's or queue's database up to `targetVersion`.
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter, to targetVersion: Int) async throws -> [Int] {
        try await writer.writeWithoutTransaction { db in try migrate(db, to: targetVersion) }
    }

    /// Applies the pending migrations, in order, up to `targetVersion`.
    ///
    /// ```swift
    /// try migrator.migrate(db, to: 2)
    /// ```
    ///
    /// A database already at or past `targetVersion` (and not past ``latestVersion``) is left as it is:
    /// migrations are never undone.
    ///
    /// - Returns: The versions this call applied.
    /// - Throws: ``DatabaseError/Code/migration`` when `targetVersion` is not between 0 and
    ///   ``latestVersion``, and for the failures listed at `migrate(_:)`.
    @discardableResult
    public func migrate(_ db: Database, to targetVersion: Int) throws -> [Int] {
        try validate()
        guard targetVersion >= 0, targetVersion <= latestVersion else {
            throw DatabaseError(
                code: .migration,
                message: "cannot migrate to version \(targetVersion): the migrations go from 1 to \(latestVersion)")
        }
        let current = try checkedVersion(of: db)
        var applied: [Int] = []
        for migration in migrations where migration.version > current && migration.version <= targetVersion {
            do {
                if try db.migrate(version: migration.version, migration.body) {
                    applied.append(migration.version)
                }
            } catch {
                throw Self.failure(error, of: migration)
            }
        }
        return applied
    }

    /// The migration status of a pool's or queue's database, read on a reader.
    public func status(of reader: some DatabaseReader) async throws -> MigrationStatus {
        try await reader.read { db in try status(of: db) }
    }

    /// Where `db` stands: its version, and the registered versions applied and pending.
    ///
    /// ```swift
    /// let status = try migrator.status(of: db)
    /// print(status.currentVersion, status.applied, status.pending)   // 1 [1] [2, 3]
    /// ```
    ///
    /// - Throws: ``DatabaseError/Code/migration`` for a gap or duplicate, or a database newer than
    ///   ``latestVersion``.
    public func status(of db: Database) throws -> MigrationStatus {
        try validate()
        let current = try checkedVersion(of: db)
        let versions = migrations.map(\.version)
        return MigrationStatus(
            currentVersion: current,
            latestVersion: latestVersion,
            applied: versions.filter { $0 <= current },
            pending: versions.filter { $0 > current })
    }

    // MARK: Private

    private mutating func insert(_ migration: Migration) {
        // Stable: a duplicate lands after the first, so errors name them in registration order.
        let index = migrations.firstIndex { $0.version > migration.version } ?? migrations.endIndex
        migrations.insert(migration, at: index)
    }

    /// The database's version, refused when it is newer than every registered migration.
    private func checkedVersion(of db: Database) throws -> Int {
        let current = try db.userVersion
        guard current <= latestVersion else {
            throw DatabaseError(
                code: .migration,
                message: "the database is at version \(current), newer than the latest migration known here "
                    + "(version \(latestVersion)); it was migrated by newer code")
        }
        return current
    }

    /// The error of a failed migration, naming it, with the original error's message, code and SQL.
    private static func failure(_ error: any Error, of migration: Migration) -> DatabaseError {
        guard let error = error as? DatabaseError else {
            return DatabaseError(code: .migration, message: "\(migration) failed: \(error)", underlyingError: error)
        }
        return DatabaseError(
            code: .migration,
            resultCode: error.resultCode,
            message: "\(migration) failed: \(error.message)",
            sql: error.sql,
            column: error.column,
            columnIndex: error.columnIndex,
            underlyingError: error)
    }
}
