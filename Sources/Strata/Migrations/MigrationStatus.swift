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

    /// Whether no migration is pending.
    public var isUpToDate: Bool { pending.isEmpty }

    public init(currentVersion: Int, latestVersion: Int, applied: [Int], pending: [Int]) {
        self.currentVersion = currentVersion
        self.latestVersion = latestVersion
        self.applied = applied
        self.pending = pending
    }
}
