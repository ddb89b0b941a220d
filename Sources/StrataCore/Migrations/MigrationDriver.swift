/// What a backend supplies so that ``Migrator`` runs on its databases: the part of migrating that differs from one
/// backend to another. The migration loop, its checks and the history rules are ``Migrator``'s, written once.
///
/// A backend's session names its driver by conforming to ``MigratableSession``; the migrator finds it from the
/// session type of the writer it is given:
///
/// ```swift
/// extension MySession: MigratableSession {
///     public typealias MigrationDriver = MyMigrationDriver
/// }
/// try await migrator.migrate(myPool)      // runs MyMigrationDriver's steps in Migrator's loop
/// ```
///
/// What a driver decides:
/// - **Where the version lives**, and how it is read and written: SQLite's `user_version`, PostgreSQL's
///   `strata_schema_version` table.
/// - **How concurrent migrators are kept apart**: ``withMigrationLock(_:_:)`` runs a transaction that one migrator of
///   the database runs at a time (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's advisory lock); the migrator reads the
///   version again inside it, so that a step another migrator applied meanwhile is skipped.
/// - **How one migration runs** with its version bump in that transaction (``run(_:from:in:)``), and whether a
///   migration may run outside a transaction (``runOutsideTransaction(_:from:in:)``).
/// - **The `strata_migrations` table's SQL** (the history): read, record, accept an edited checksum.
///
/// Every method runs on the one session the migrator was lent, in the order the loop calls them.
public protocol MigrationDriver<Session>: Sendable {
    /// The backend's session: `Database` on SQLite, `PostgresSession` on PostgreSQL.
    associatedtype Session: DatabaseSession

    /// Finds where `session`'s database keeps its version and history (on PostgreSQL, the first schema of the
    /// `search_path`), once per migrator call.
    ///
    /// - Parameters:
    ///   - session: The session the migrator was lent.
    ///   - forWriting: true when the migrator may write (`migrate`): then a database with nowhere to keep them
    ///     throws; false for `status` and `pendingMigrations`, which see such a database at version 0 (nil).
    static func find(in session: Session, forWriting: Bool) async throws -> Self?

    /// Throws when a registered migration cannot run on this backend (a Swift block that takes another backend's
    /// session, a file this backend cannot run outside a transaction), before the database is touched.
    static func check(_ migrator: Migrator) throws

    /// Throws when a migration about to run cannot run, before the first one runs (PostgreSQL reads each file's
    /// statements here).
    func checkPending(_ migrations: [Migrator.Migration]) throws

    /// Runs `body` in a transaction that sees one consistent snapshot, for reading the version and the history
    /// together.
    func withSnapshot<Output: Sendable>(_ session: Session, _ body: (Session) async throws -> Output) async throws
        -> Output

    /// Runs `body` in a transaction that only one migrator of the database runs at a time, and that creates the
    /// version and history tables when the backend keeps them in tables: **it commits when `body` returns and rolls
    /// back when it throws**.
    func withMigrationLock<Output: Sendable>(_ session: Session, _ body: (Session) async throws -> Output) async throws
        -> Output

    /// The database's version: 0 when it was never migrated.
    func version(in session: Session) async throws -> Int

    /// Sets the database's version, in the transaction of the migration that brings it.
    func setVersion(_ version: Int, in session: Session) async throws

    /// The `strata_migrations` rows by version, empty when the table does not exist.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` when the table or a row
    ///   is not what Strata writes, or records a version past `currentVersion`.
    func history(in session: Session, currentVersion: Int) async throws -> [Int: AppliedMigration]

    /// Records `migration` as applied, creating the table when missing: now (in the migration's own transaction),
    /// or, when `appliedNow` is false, with no time, for a migration applied before the history began (a row
    /// that exists already stays).
    func record(_ migration: Migrator.Migration, appliedNow: Bool, in session: Session) async throws

    /// Records the checksum `migration`'s file has now, for an edit the migrator was told to accept.
    func acceptChecksum(of migration: Migrator.Migration, in session: Session) async throws

    /// Runs `migration` in the transaction of ``withMigrationLock(_:_:)``, on a database at `currentVersion`; the
    /// migrator records it and sets the version after it, in the same transaction.
    ///
    /// An error that names the migration (its message begins with the migration's description) is thrown as it is;
    /// any other is named by the migrator.
    func run(_ migration: Migrator.Migration, from currentVersion: Int, in session: Session) async throws

    /// Runs `body` outside any transaction while no other migrator of the database runs, for a migration that runs
    /// outside a transaction (``Migrator/Migration/runsInTransaction`` false). The default throws: only a backend
    /// whose ``check(_:)`` lets such migrations through implements it.
    func withMigrationLockOutsideTransaction<Output: Sendable>(
        _ session: Session, _ body: (Session) async throws -> Output
    ) async throws -> Output

    /// Runs the statements of `migration` outside a transaction, each committing on its own, in
    /// ``withMigrationLockOutsideTransaction(_:_:)``; the migrator then records it and sets the version in a
    /// ``withMigrationLock(_:_:)`` transaction. The default throws.
    func runOutsideTransaction(_ migration: Migrator.Migration, from currentVersion: Int, in session: Session)
        async throws
}

extension MigrationDriver {
    public func checkPending(_ migrations: [Migrator.Migration]) throws {}

    public func withMigrationLockOutsideTransaction<Output: Sendable>(
        _ session: Session, _ body: (Session) async throws -> Output
    ) async throws -> Output {
        throw DatabaseError(
            code: .migration, message: "\(Session.self) cannot run a migration outside a transaction")
    }

    public func runOutsideTransaction(_ migration: Migrator.Migration, from currentVersion: Int, in session: Session)
        async throws
    {
        throw DatabaseError(
            code: .migration, message: "\(migration): \(Session.self) cannot run a migration outside a transaction")
    }
}

/// A session that ``Migrator`` can migrate: it names its backend's ``MigrationDriver``. `Database` (SQLite) and
/// `PostgresSession` (PostgreSQL) are.
///
/// ```swift
/// func setUp(_ db: some DatabaseWriter) async throws {
///     try await migrator.migrate(db)       // any writer whose session is a MigratableSession
/// }
/// ```
public protocol MigratableSession: DatabaseSession {
    /// The backend's migration steps.
    associatedtype MigrationDriver: StrataCore.MigrationDriver where MigrationDriver.Session == Self
}
