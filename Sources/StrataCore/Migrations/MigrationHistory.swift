public import Foundation

/// A migration a database has had, as its `strata_migrations` table records it.
///
/// ```swift
/// for applied in try migrator.status(of: db).history {
///     print(applied.version, applied.name, applied.appliedAt ?? "before the history began")
/// }
/// ```
public struct AppliedMigration: Sendable, Hashable {
    /// The version the migration brought the database to.
    public var version: Int
    /// The migration's identifier when it was applied: `0002_add_tags` for a file, `0002_add tags` for a Swift block.
    public var name: String
    /// The SHA-256 of the `.sql` file as it was applied (64 lowercase hexadecimal digits), nil for a Swift block.
    public var checksum: String?
    /// When it was applied (UTC); nil for a migration applied before the database had a history, recorded later.
    public var appliedAt: Date?

    public init(version: Int, name: String, checksum: String?, appliedAt: Date?) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}

/// The `strata_migrations` table: one row per applied migration, written by ``Migrator`` in the transaction of the
/// migration itself, so a row exists exactly when its migration committed.
///
/// ```sql
/// CREATE TABLE strata_migrations (
///     version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT, applied_at TEXT)
/// ```
package enum MigrationHistory {
    package static let table = "strata_migrations"
    package static let columns = ["version", "name", "checksum", "applied_at"]

    package static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    package static func malformed(_ problem: String) -> DatabaseError {
        DatabaseError(
            code: .migration,
            message: "\(table) \(problem); Strata writes this table with each migration: restore it from a backup, "
                + "or delete the rows at fault to have them recorded again from the migrations")
    }
}
