/// Where a database stands against a ``Migrator``'s migrations.
public struct MigrationStatus: Sendable, Hashable {
    /// The database's `user_version`.
    public var currentVersion: Int
    /// The migrator's highest version.
    public var latestVersion: Int
    /// The registered versions the database has, in order.
    public var applied: [Int]
    /// The registered versions still to apply, in order.
    public var pending: [Int]
    /// The applied versions whose `.sql` file changed since it was applied (its SHA-256 differs from the one
    /// recorded), in order. `Migrator.migrate(_:)` refuses to run while there are any, unless
    /// ``Migrator/acceptsEditedFiles``.
    public var edited: [Int]
    /// The versions the database has that no registered migration brings: it was migrated by newer code, or files
    /// were removed. `Migrator.migrate(_:)` refuses such a database.
    public var missing: [Int]
    /// The migrations the database records in `strata_migrations`, by version; empty for a database migrated
    /// before Strata kept a history, until the next `migrate` records what it has.
    public var history: [AppliedMigration]

    /// Whether no migration is pending.
    public var isUpToDate: Bool { pending.isEmpty }

    public init(
        currentVersion: Int, latestVersion: Int, applied: [Int], pending: [Int], edited: [Int] = [],
        missing: [Int] = [], history: [AppliedMigration] = []
    ) {
        self.currentVersion = currentVersion
        self.latestVersion = latestVersion
        self.applied = applied
        self.pending = pending
        self.edited = edited
        self.missing = missing
        self.history = history
    }
}
