// The migration loop, written once for every backend: each backend supplies a `MigrationDriver` for what differs.

extension Migrator {
    /// Applies the pending migrations, in order, up to ``latestVersion``, on the writer of any backend: a SQLite
    /// `DatabasePool` or `DatabaseQueue`, a `PostgresPool`.
    ///
    /// ```swift
    /// func setUp(_ db: some DatabaseWriter) async throws {
    ///     try await migrator.migrate(db)          // [] when the database is up to date
    /// }
    /// ```
    ///
    /// The migrator runs on one connection of the writer, outside any other write (``DatabaseWriter/writeWithoutTransaction(_:)``):
    ///
    /// - **A migration and its version bump commit together**, with its `strata_migrations` row, in one transaction
    ///   that also keeps other migrators out (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's advisory lock). A failing
    ///   migration leaves the database as it was, and the migrations before it stay applied.
    /// - **Concurrent migrators apply each migration once**: inside that transaction the version is read again, and a
    ///   migration another migrator applied meanwhile is skipped.
    /// - **Nothing runs when a check fails**: a gap or a duplicate, a database newer than ``latestVersion``, an
    ///   applied file edited since (unless ``acceptsEditedFiles``), a migration the backend cannot run.
    /// - **The history is reconciled first**: applied versions the history lacks are recorded, without a time.
    ///
    /// - Returns: The versions this call applied. A version another migrator applied meanwhile is not in the list.
    /// - Throws: ``DatabaseError/Code/migration`` naming what failed: a failing migration is named by version, name
    ///   and file, with the underlying error kept in ``DatabaseError/underlyingError``.
    @discardableResult
    public func migrate(_ writer: some DatabaseWriter) async throws -> [Int] {
        try await migrate(writer, to: latestVersion)
    }

    /// Applies the pending migrations, in order, up to `targetVersion`, on the writer of any backend.
    ///
    /// ```swift
    /// try await migrator.migrate(pool, to: 2)
    /// ```
    ///
    /// A database already at or past `targetVersion` (and not past ``latestVersion``) is left as it is: migrations
    /// are never undone.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` when `targetVersion` is not between 0 and ``latestVersion``, and
    ///   for the failures listed at ``migrate(_:)``.
    @discardableResult
    public func migrate<Writer: DatabaseWriter>(_ writer: Writer, to targetVersion: Int) async throws -> [Int] {
        try await migrate(writer, to: targetVersion, as: try Self.migratable(Writer.Session.self))
    }

    /// The migrations ``migrate(_:to:)`` would apply to the database of `reader`, in order, after the checks it
    /// makes before running any (contiguous versions, a target in range, a database not newer, no edited file
    /// unless accepted, migrations the backend can run). Nothing is written: this is a dry run.
    ///
    /// ```swift
    /// for migration in try await migrator.pendingMigrations(for: pool) {
    ///     print("would apply", migration.identifier)
    /// }
    /// ```
    ///
    /// - Throws: What ``migrate(_:to:)`` throws before it runs a migration.
    public func pendingMigrations<Reader: DatabaseReader>(for reader: Reader, to targetVersion: Int? = nil)
        async throws -> [Migration]
    {
        try await pendingMigrations(for: reader, to: targetVersion, as: try Self.migratable(Reader.Session.self))
    }

    /// Where the database of `reader` stands: its version, the registered versions applied and pending, and the
    /// recorded history with the applied files edited since and the applied versions with no migration here.
    ///
    /// ```swift
    /// let status = try await migrator.status(of: pool)
    /// print(status.currentVersion, status.applied, status.pending)   // 1 [1] [2, 3]
    /// ```
    ///
    /// It only reads, in one `read` (a snapshot): a database never migrated is at version 0, a database newer than
    /// ``latestVersion`` is reported (its extra versions in `missing`), not refused, and a history the database
    /// lacks is not written.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` for a gap or duplicate, or a `strata_migrations` table edited by
    ///   hand into something Strata does not write.
    public func status<Reader: DatabaseReader>(of reader: Reader) async throws -> MigrationStatus {
        try await status(of: reader, as: try Self.migratable(Reader.Session.self))
    }

    // MARK: Written once, over a session and its driver

    /// Applies the pending migrations up to `targetVersion` on `session`, which is outside any transaction (or, on
    /// SQLite, inside one: then each migration is a savepoint of it).
    package func migrateSession<Session: MigratableSession>(_ session: Session, to targetVersion: Int) async throws
        -> [Int]
    {
        typealias Driver = Session.MigrationDriver
        try validate()
        try checkTarget(targetVersion)
        try Driver.check(self)
        guard let driver = try await Driver.find(in: session, forWriting: true) else {
            throw DatabaseError(code: .migration, message: "\(Session.self) has nowhere to keep the version")
        }
        let (start, history) = try await driver.withSnapshot(session) { session in
            try await Self.snapshot(driver, session)
        }
        try checkNotNewer(start)
        try await reconcileHistory(driver, session, current: start, history: history)
        let pending = migrations.filter { $0.version > start && $0.version <= targetVersion }
        // Every migration to run is checked before the first runs: one that cannot run stops the migration here.
        try driver.checkPending(pending)
        var applied: [Int] = []
        for migration in pending {
            let ran: Bool
            do {
                ran = try await apply(migration, driver, session)
            } catch {
                throw Self.failure(error, of: migration)
            }
            if ran { applied.append(migration.version) }
        }
        return applied
    }

    /// The migrations `migrate(_:to:)` would apply to the database `session` reads, in a transaction.
    package func pendingMigrations<Session: MigratableSession>(inSession session: Session, to targetVersion: Int?)
        async throws -> [Migration]
    {
        try validate()
        let target = targetVersion ?? latestVersion
        try checkTarget(target)
        try Session.MigrationDriver.check(self)
        let driver = try await Session.MigrationDriver.find(in: session, forWriting: false)
        let (current, history) = try await Self.snapshot(driver, session)
        try checkNotNewer(current)
        _ = try historyNeedsWriting(history, at: current)
        let pending = migrations.filter { $0.version > current && $0.version <= target }
        try driver?.checkPending(pending)
        return pending
    }

    /// Where the database `session` reads stands, read in the session's transaction.
    package func status<Session: MigratableSession>(ofSession session: Session) async throws -> MigrationStatus {
        try validate()
        let driver = try await Session.MigrationDriver.find(in: session, forWriting: false)
        let (current, history) = try await Self.snapshot(driver, session)
        return status(current: current, history: history)
    }

    /// The database's version and recorded history, read in the session's transaction; version 0 and no history
    /// when there is nowhere they could be.
    package static func snapshot<Driver: MigrationDriver>(_ driver: Driver?, _ session: Driver.Session) async throws
        -> (version: Int, history: [Int: AppliedMigration])
    {
        guard let driver else { return (0, [:]) }
        let current = try await driver.version(in: session)
        return (current, try await driver.history(in: session, currentVersion: current))
    }

    // MARK: Private

    /// The session type of a writer or reader as a ``MigratableSession``, or an error saying the backend has no
    /// migrator: the one step that looks at a type at run time; the loop itself is generic.
    private static func migratable<Session>(_ type: Session.Type) throws -> any MigratableSession.Type {
        guard let migratable = type as? any MigratableSession.Type else {
            throw DatabaseError(
                code: .migration,
                message: "the migrator cannot run on a writer whose session is \(Session.self): it is not a "
                    + "MigratableSession, so there is no MigrationDriver for its backend")
        }
        return migratable
    }

    private func migrate<Writer: DatabaseWriter, Session: MigratableSession>(
        _ writer: Writer, to targetVersion: Int, as _: Session.Type
    ) async throws -> [Int] {
        // Checked before a connection is taken.
        try validate()
        try checkTarget(targetVersion)
        try Session.MigrationDriver.check(self)
        return try await writer.writeWithoutTransaction { session in
            try await migrateSession(try Self.cast(session, to: Session.self), to: targetVersion)
        }
    }

    private func pendingMigrations<Reader: DatabaseReader, Session: MigratableSession>(
        for reader: Reader, to targetVersion: Int?, as _: Session.Type
    ) async throws -> [Migration] {
        try await reader.read { session in
            try await pendingMigrations(inSession: try Self.cast(session, to: Session.self), to: targetVersion)
        }
    }

    private func status<Reader: DatabaseReader, Session: MigratableSession>(of reader: Reader, as _: Session.Type)
        async throws -> MigrationStatus
    {
        try validate()
        return try await reader.read { session in try await status(ofSession: try Self.cast(session, to: Session.self))
        }
    }

    /// `session` as `Session`, the type ``migratable(_:)`` found for it.
    private static func cast<Given, Session>(_ session: Given, to type: Session.Type) throws -> Session {
        guard let session = session as? Session else {
            throw DatabaseError(code: .migration, message: "\(Given.self) is not \(Session.self)")
        }
        return session
    }

    /// Checks the recorded history against the migrations before any runs: an applied `.sql` file edited since is
    /// refused, or its new checksum recorded when ``acceptsEditedFiles``; applied versions the history lacks are
    /// recorded. Writes only when there is something to record, in a transaction of its own.
    private func reconcileHistory<Driver: MigrationDriver>(
        _ driver: Driver, _ session: Driver.Session, current: Int, history: [Int: AppliedMigration]
    ) async throws {
        guard try historyNeedsWriting(history, at: current) else { return }
        try await driver.withMigrationLock(session) { session in
            // Another migrator may have migrated or recorded meanwhile: decide again under the lock.
            let (current, history) = try await Self.snapshot(driver, session)
            try checkNotNewer(current)
            guard try historyNeedsWriting(history, at: current) else { return }
            for migration in editedMigrations(history, upTo: current) {
                try await driver.acceptChecksum(of: migration, in: session)
            }
            for migration in migrations where migration.version <= current && history[migration.version] == nil {
                try await driver.record(migration, appliedNow: false, in: session)
            }
        }
    }

    /// Applies one migration with its history row and version bump, unless another migrator applied it first.
    ///
    /// - Returns: Whether this call applied it.
    private func apply<Driver: MigrationDriver>(
        _ migration: Migration, _ driver: Driver, _ session: Driver.Session
    ) async throws -> Bool {
        /// The version under the lock, or nil when the migration is applied already.
        func versionBefore(_ session: Driver.Session) async throws -> Int? {
            let current = try await driver.version(in: session)
            try checkNotNewer(current)
            // Another migrator applied it while this one waited for the lock.
            guard current < migration.version else { return nil }
            guard migration.version == current + 1 else {
                throw DatabaseError(
                    code: .migration,
                    message: "migration \(migration.version) is out of order: the database is at version \(current), "
                        + "so version \(current + 1) must be applied first")
            }
            return current
        }
        func recordAndBump(_ session: Driver.Session) async throws {
            try await driver.record(migration, appliedNow: true, in: session)
            try await driver.setVersion(migration.version, in: session)
        }
        guard migration.runsInTransaction else {
            return try await driver.withMigrationLockOutsideTransaction(session) { session in
                guard let current = try await versionBefore(session) else { return false }
                try await driver.runOutsideTransaction(migration, from: current, in: session)
                try await driver.withMigrationLock(session) { session in try await recordAndBump(session) }
                return true
            }
        }
        return try await driver.withMigrationLock(session) { session in
            guard let current = try await versionBefore(session) else { return false }
            try await driver.run(migration, from: current, in: session)
            try await recordAndBump(session)
            return true
        }
    }
}
