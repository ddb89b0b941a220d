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
/// The same migrator runs on every backend: `migrate(_:)` takes a `Database` (SQLite) or any writer (a
/// `DatabasePool`, a `DatabaseQueue`, a `PostgresPool`), and the loop is written once; each backend supplies what
/// differs through its ``MigrationDriver`` (where the version lives, how concurrent migrators are kept apart). A
/// migration and its version bump (`user_version` on SQLite) commit together, a failure changes nothing, and
/// processes that migrate one database at once apply each migration exactly once.
///
/// - **Versions are contiguous from 1.** A gap or a duplicate version is an error reported before
///   any migration runs, by ``validate()``, `migrate(_:)`, `migrate(_:to:)` and `status(of:)`.
/// - **A newer database is refused.** A database whose `user_version` is above ``latestVersion``
///   was migrated by newer code; migrating it throws an error naming both versions, and `status(of:)`
///   reports the versions it has beyond them as `missing`.
/// - **Each applied migration is recorded with the migration.** A `strata_migrations` table holds its
///   version, identifier, the SHA-256 of its `.sql` file (nil for a Swift block) and the time, written in the
///   migration's own transaction: a row exists exactly when its migration committed. A database migrated
///   before the table existed gets rows for what it has (checksums of the files as they are then, no time) at
///   its next `migrate`.
/// - **An edited migration file is refused.** When an applied `.sql` file's SHA-256 differs from the one
///   recorded, `migrate` throws naming the file before anything runs, unless ``acceptsEditedFiles`` is set;
///   then it records the new checksum.
/// - **A migration error names the migration.** It says which version, name and file failed, and
///   why: the underlying error's message, kept in ``DatabaseError/underlyingError``.
public struct Migrator: Sendable {
    /// One registered migration.
    public struct Migration: Sendable, CustomStringConvertible {
        /// The version the database has once the migration is applied.
        public let version: Int
        /// The name given to `Migrator.register(version:name:_:)`, or the description of a file name
        /// (`create_note` for `0001_create_note.sql`).
        public let name: String
        /// The `.sql` file the migration runs, nil for a Swift block.
        public let fileURL: URL?
        /// The SHA-256 of the `.sql` file as registered (64 lowercase hexadecimal digits), nil for a Swift block.
        public let checksum: String?
        /// The SQL the migration runs: of its `.sql` file as registered, or given to
        /// ``Migrator/register(version:name:sql:)``; nil for a Swift block.
        public let sql: String?
        /// Whether the migration runs in a transaction with its version bump: false for SQL whose first line is
        /// `-- strata:no-transaction`, which only PostgreSQL runs.
        public let runsInTransaction: Bool

        /// What a Swift block runs, nil for a file: the backend's block (SQLite's takes a `Database`), kept without
        /// naming the backend's types; the backend that registered it is the one that can run it.
        package let block: (any Sendable)?

        package init(
            version: Int, name: String, fileURL: URL?, checksum: String?, sql: String? = nil,
            runsInTransaction: Bool = true, block: (any Sendable)? = nil
        ) {
            self.version = version
            self.name = name
            self.fileURL = fileURL
            self.checksum = checksum
            self.sql = sql
            self.runsInTransaction = runsInTransaction
            self.block = block
        }

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

        package static func paddedVersion(_ version: Int) -> String {
            let digits = String(version)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The first line of a `.sql` file whose statements run outside a transaction, one at a time (PostgreSQL only).
    package static let noTransactionDirective = "-- strata:no-transaction"

    /// The registered migrations, sorted by version.
    public private(set) var migrations: [Migration] = []

    /// Whether migrating records the new checksum of an applied `.sql` file that was edited since, instead of
    /// refusing to run. Set it once the edit is reviewed: the database keeps what the file did when it was applied.
    public var acceptsEditedFiles = false

    /// Creates a migrator with no migrations.
    public init() {}

    /// The highest registered version, 0 when there is none.
    public var latestVersion: Int {
        migrations.last?.version ?? 0
    }

    /// Registers a migration of SQL text, which runs on every backend: one or more statements, in the migration's
    /// transaction.
    ///
    /// ```swift
    /// migrator.register(version: 1, name: "create note", sql: "CREATE TABLE note (id BIGINT PRIMARY KEY, content TEXT)")
    /// ```
    ///
    /// As for a Swift block, no checksum is recorded: an edit of the text is not detected. Registering does not
    /// check the version; a duplicate or a gap is reported by ``validate()`` and before any migration runs.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` for a `-- strata:` comment that is not the
    ///   `-- strata:no-transaction` directive on the first line.
    public mutating func register(version: Int, name: String, sql: String) throws {
        let runsInTransaction = try MigrationFile.runsInTransaction(
            sql, fileName: Self.paddedName(version: version, name: name))
        insert(
            Migration(
                version: version, name: name, fileURL: nil, checksum: nil, sql: sql,
                runsInTransaction: runsInTransaction))
    }

    /// `0001_create note`, as a migration without a file is named.
    private static func paddedName(version: Int, name: String) -> String {
        Migration.paddedVersion(version) + "_" + name
    }

    /// Registers every `NNNN_description.sql` file of `directory` as the migration to version `NNNN`.
    ///
    /// ```swift
    /// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
    /// ```
    ///
    /// A file runs as one or more SQL statements (`Database.execute(query:)`), in the migration's
    /// transaction. Files are read now, so a missing or unreadable file fails here.
    ///
    /// On PostgreSQL, a file whose first line is `-- strata:no-transaction` runs its statements one at a time outside
    /// a transaction (for `CREATE INDEX CONCURRENTLY` and the like); SQLite refuses to migrate with such a file.
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
                Migration(
                    version: file.version, name: file.name, fileURL: file.url, checksum: file.checksum, sql: sql,
                    runsInTransaction: file.runsInTransaction))
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

    /// The status of a database at version `current` with the recorded `history`, whatever its backend.
    package func status(current: Int, history: [Int: AppliedMigration]) -> MigrationStatus {
        let versions = migrations.map(\.version)
        return MigrationStatus(
            currentVersion: current,
            latestVersion: latestVersion,
            applied: versions.filter { $0 <= current },
            pending: versions.filter { $0 > current },
            edited: editedMigrations(history, upTo: current).map(\.version),
            missing: current > latestVersion ? Array((latestVersion + 1)...current) : [],
            history: history.values.sorted { $0.version < $1.version })
    }

    // MARK: For the backends

    package mutating func insert(_ migration: Migration) {
        // Stable: a duplicate lands after the first, so errors name them in registration order.
        let index = migrations.firstIndex { $0.version > migration.version } ?? migrations.endIndex
        migrations.insert(migration, at: index)
    }

    /// Throws when an applied `.sql` file was edited and edits are not accepted; returns whether the history needs
    /// writing (an accepted edit, or applied versions it lacks).
    package func historyNeedsWriting(_ history: [Int: AppliedMigration], at current: Int) throws -> Bool {
        guard current > 0 else { return false }
        let edited = editedMigrations(history, upTo: current)
        if !edited.isEmpty && !acceptsEditedFiles {
            let files = edited.map { $0.fileURL?.lastPathComponent ?? $0.identifier }
            let one = files.count == 1
            throw DatabaseError(
                code: .migration,
                message: "applied migration\(one ? "" : "s") \(files.joined(separator: ", ")) changed since "
                    + "\(one ? "it was" : "they were") applied (the SHA-256 differs from the one recorded in "
                    + "\(MigrationHistory.table)); the database keeps what the applied version did: restore the file, "
                    + "or add a new migration for the change, or accept the edit (Migrator.acceptsEditedFiles, "
                    + "strata migrate --accept-edited)")
        }
        return !edited.isEmpty || migrations.contains { $0.version <= current && history[$0.version] == nil }
    }

    /// The applied migrations whose registered checksum differs from the one recorded when they were applied: a
    /// `.sql` file edited since, or a file replaced by a Swift block. A migration recorded without a checksum (a
    /// Swift block) is never edited.
    package func editedMigrations(_ history: [Int: AppliedMigration], upTo current: Int) -> [Migration] {
        migrations.filter { migration in
            guard migration.version <= current, let recorded = history[migration.version]?.checksum else {
                return false
            }
            return migration.checksum != recorded
        }
    }

    package func checkTarget(_ targetVersion: Int) throws {
        guard targetVersion >= 0, targetVersion <= latestVersion else {
            throw DatabaseError(
                code: .migration,
                message: "cannot migrate to version \(targetVersion): the migrations go from 1 to \(latestVersion)")
        }
    }

    /// Refuses a database whose version is newer than every registered migration.
    package func checkNotNewer(_ current: Int) throws {
        guard current <= latestVersion else {
            throw DatabaseError(
                code: .migration,
                message: "the database is at version \(current), newer than the latest migration known here "
                    + "(version \(latestVersion)); it was migrated by newer code")
        }
    }

    /// Throws naming the first migration that asks to run outside a transaction (`-- strata:no-transaction`), for a
    /// backend that runs every migration in one.
    package func checkRunsInTransactions(backend: String) throws {
        guard let migration = migrations.first(where: { !$0.runsInTransaction }) else { return }
        throw DatabaseError(
            code: .migration,
            message: "\(migration) begins with \(Self.noTransactionDirective), which only PostgreSQL runs: "
                + "on \(backend) every migration runs in one transaction with its version bump; remove the line")
    }

    /// The error of a failed migration, naming it, with the original error's message, code and SQL.
    ///
    /// A commit whose outcome is unknown stays ``DatabaseError/Code/commitOutcomeUnknown``: the migration may be
    /// applied, and the caller must look at the database's version before migrating again.
    /// An error that names its migration already (its message begins with the migration's description, as a
    /// backend's ``MigrationDriver/run(_:from:in:)`` may throw) is returned as it is.
    package static func failure(_ error: any Error, of migration: Migration) -> DatabaseError {
        if let error = error as? DatabaseError, error.code == .migration,
            error.message.hasPrefix(migration.description + " ") || error.message.hasPrefix(migration.description + ",")
        {
            return error
        }
        guard let error = error as? DatabaseError else {
            return DatabaseError(code: .migration, message: "\(migration) failed: \(error)", underlyingError: error)
        }
        let outcomeUnknown = error.code == .commitOutcomeUnknown
        return DatabaseError(
            code: outcomeUnknown ? .commitOutcomeUnknown : .migration,
            resultCode: error.resultCode,
            message: outcomeUnknown
                ? "\(migration) may or may not be applied: its commit failed with "
                    + "\((error.underlyingError as? DatabaseError)?.message ?? error.message); check the database's "
                    + "version before migrating again"
                : "\(migration) failed: \(error.message)",
            sql: error.sql,
            column: error.column,
            columnIndex: error.columnIndex,
            underlyingError: error)
    }
}
