import Foundation

/// The SQLite side of the `strata_migrations` table: read, created and written on a ``Database``.
extension MigrationHistory {
    /// The recorded migrations by version, empty when the table does not exist.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` when the table or a row is not what Strata writes (edited by hand):
    ///   other columns, a version that is not a positive integer or is past the database's version, a missing name, a
    ///   checksum that is not 64 hexadecimal digits, a time that is not a date.
    static func read(from db: Database, currentVersion: Int) throws -> [Int: AppliedMigration] {
        let found = try db.fetchAll(String.self, query: "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
        if found.isEmpty { return [:] }
        guard found == columns else {
            throw malformed(
                "has the columns \(found.joined(separator: ", ")), not \(columns.joined(separator: ", "))")
        }
        var history: [Int: AppliedMigration] = [:]
        let statement = try db.prepare(query: "SELECT version, name, checksum, applied_at FROM \(table) ORDER BY rowid")
        while let row = try statement.next() {
            let values: [DatabaseValue] = try (0..<4).map { try row[$0] }
            guard case .integer(let stored) = values[0], let version = Int(exactly: stored), version >= 1 else {
                throw malformed("has a row whose version is \(describe(values[0])), not a version number")
            }
            guard version <= currentVersion else {
                throw malformed(
                    "records version \(version), but the database is at version \(currentVersion) (user_version)")
            }
            guard case .text(let name) = values[1] else {
                throw malformed("has a row for version \(version) whose name is \(describe(values[1]))")
            }
            let checksum: String?
            switch values[2] {
            case .null: checksum = nil
            case .text(let text) where isChecksum(text): checksum = text
            default:
                throw malformed(
                    "has a row for version \(version) whose checksum is \(describe(values[2])), "
                        + "not 64 hexadecimal digits or NULL")
            }
            var appliedAt: Date?
            if case .text = values[3] { appliedAt = try? Date(databaseValue: values[3]) }
            guard appliedAt != nil || values[3] == .null else {
                throw malformed(
                    "has a row for version \(version) whose applied_at is \(describe(values[3])), not a date or NULL")
            }
            history[version] = AppliedMigration(version: version, name: name, checksum: checksum, appliedAt: appliedAt)
        }
        return history
    }

    /// Creates the table when the database has none.
    static func create(in db: Database) throws {
        try db.execute(
            query: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT, applied_at TEXT)
                """)
    }

    /// Records `migration` as applied now; called in the migration's own transaction.
    static func record(_ migration: Migrator.Migration, in db: Database) throws {
        try create(in: db)
        try db.execute(
            query: """
                INSERT OR REPLACE INTO \(table) (version, name, checksum, applied_at)
                VALUES (:version, :name, :checksum, strftime('%Y-%m-%d %H:%M:%f', 'now'))
                """,
            parameters: Row(migration))
    }

    /// Records the migrations the database has but its history lacks (applied before it had one, or by
    /// ``Database/migrate(version:_:)``), with their checksums as the files are now and no time.
    static func backfill(_ migrations: [Migrator.Migration], in db: Database) throws {
        try create(in: db)
        for migration in migrations {
            try db.execute(
                query: "INSERT OR IGNORE INTO \(table) (version, name, checksum) VALUES (:version, :name, :checksum)",
                parameters: Row(migration))
        }
    }

    /// Records the checksum `migration`'s file has now, for an edit the migrator was told to accept.
    static func acceptChecksum(of migration: Migrator.Migration, in db: Database) throws {
        try db.execute(
            query: "UPDATE \(table) SET checksum = :checksum WHERE version = :version", parameters: Row(migration))
    }

    /// The parameters of a migration's row.
    private struct Row: Encodable {
        let version: Int
        let name: String
        let checksum: String?

        init(_ migration: Migrator.Migration) {
            version = migration.version
            name = migration.identifier
            checksum = migration.checksum
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(name, forKey: .name)
            // NULL for a Swift block: every parameter gets a value.
            if let checksum {
                try container.encode(checksum, forKey: .checksum)
            } else {
                try container.encodeNil(forKey: .checksum)
            }
        }

        enum CodingKeys: String, CodingKey {
            case version, name, checksum
        }
    }

    private static func describe(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): "'\(text.count > 80 ? String(text.prefix(80)) + "…" : text)'"
        case .blob(let data): "a BLOB of \(data.count) bytes"
        }
    }
}
