internal import CSQLite

extension Database {
    /// Applies one schema migration and records it in ``userVersion``.
    ///
    /// ```swift
    /// try db.migrate(version: 1) { db in
    ///     try db.execute(query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT NOT NULL)")
    /// }
    /// try db.migrate(version: 2) { db in
    ///     try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
    /// }
    /// ```
    ///
    /// Call it with each version in order, every time the application starts: versions the
    /// database already has are skipped without taking the write lock.
    ///
    /// - **A migration and its version bump commit together.** The block runs in a
    ///   `BEGIN IMMEDIATE` transaction that also sets `user_version` to `version`.
    /// - **A failing migration leaves schema, data and version as before.** When the block throws
    ///   (or the process dies before the commit), the transaction rolls back.
    /// - **An applied version is skipped.** When `userVersion >= version`, the block does not run.
    /// - **An out-of-order version throws.** Versions start at 1 and go up by one: applying 3 to a
    ///   database at version 1 throws `DatabaseError.Code.migration`.
    /// - **Concurrent migrators apply a migration once.** `BEGIN IMMEDIATE` takes the write lock,
    ///   waiting up to ``busyTimeout`` for another connection or process that migrates the same file,
    ///   and `user_version` is read again under the lock: the one that waited sees the work done.
    /// - **A foreign key violation rolls the migration back.** Foreign key checks are deferred while
    ///   the block runs, then `PRAGMA foreign_key_check` runs before the commit; a violation throws
    ///   `DatabaseError.Code.migration` naming the table.
    /// - **A migration cannot end its transaction.** `BEGIN`, `COMMIT` and `ROLLBACK` are refused
    ///   when a migration prepares them, so the step fails and rolls back whole, version included.
    /// - **Inside a transaction, a migration is a savepoint.** Called inside ``transaction(_:_:)``
    ///   (or a pool's write), the migration and its version bump form a savepoint of that transaction
    ///   and commit with it.
    ///
    /// - Parameters:
    ///   - version: The version the database has once the migration is applied, from 1.
    ///   - migration: The schema changes. It receives this database.
    /// - Returns: Whether the migration ran: false when the database already had `version`.
    /// - Throws: The error of `migration`; `DatabaseError.Code.migration` for a version out of
    ///   order or a foreign key violation; a `DatabaseError` from SQLite, such as
    ///   `ResultCode.busy` when another writer holds the lock longer than ``busyTimeout``.
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_user_version and
    /// https://www.sqlite.org/lang_transaction.html
    @discardableResult
    public func migrate(version: Int, _ migration: (Database) throws -> Void) throws -> Bool {
        guard version >= 1, Int32(exactly: version) != nil else {
            throw DatabaseError(
                code: .migration, message: "migration version \(version) is invalid: versions go from 1 to \(Int32.max)"
            )
        }
        // The common case at every start: nothing to do, and no write lock taken.
        if try userVersion >= version {
            return false
        }
        return try transaction(.immediate) { db in
            // Another connection may have migrated while this one waited for the lock.
            let current = try db.userVersion
            if current >= version {
                return false
            }
            guard version == current + 1 else {
                throw DatabaseError(
                    code: .migration,
                    message: "migration \(version) is out of order: the database is at version \(current), "
                        + "so version \(current + 1) must be applied first")
            }
            try db.withDeferredForeignKeys {
                try db.refusingTransactionControl(migrating: version) { try migration(db) }
                // A COMMIT or ROLLBACK in the migration would split it from its version bump.
                guard db.isInTransaction else {
                    throw DatabaseError(
                        code: .migration,
                        message: "migration \(version) ended the transaction it runs in (COMMIT or ROLLBACK); "
                            + "its changes may be committed but the version stays \(current)")
                }
                try db.checkForeignKeys()
            }
            try db.setUserVersion(version)
            return true
        }
    }

    /// Whether the database is older than `targetVersion`: `userVersion < targetVersion`.
    ///
    /// ```swift
    /// if try db.needsMigration(targetVersion: 2) {
    ///     try backUp(db)
    /// }
    /// ```
    public func needsMigration(targetVersion: Int) throws -> Bool {
        try userVersion < targetVersion
    }

    // MARK: Internal

    /// Runs `body` with `BEGIN`, `COMMIT` and `ROLLBACK` refused: a migration that could end its transaction
    /// would let its later statements autocommit, apart from its version bump. Savepoints stay allowed.
    func refusingTransactionControl<Result>(migrating version: Int, _ body: () throws -> Result) throws -> Result {
        let refusal = DatabaseError(
            code: .migration,
            message: "migration \(version) cannot BEGIN, COMMIT or ROLLBACK: it runs in one transaction "
                + "with its version bump, which rolls back whole when a step fails")
        return try refusingTransactionControl(refusal, body)
    }

    /// Runs `body` with foreign key checks deferred to the end of the transaction, then restores the setting.
    ///
    /// SQLite resets `defer_foreign_keys` at each commit or rollback; the restore matters inside an outer
    /// transaction, where the migration is a savepoint.
    func withDeferredForeignKeys<Result>(_ body: () throws -> Result) throws -> Result {
        let wasDeferred = try pragmaInteger("defer_foreign_keys") != 0
        if !wasDeferred {
            try execute(query: "PRAGMA defer_foreign_keys = ON")
        }
        defer {
            if !wasDeferred, isInTransaction {
                // Restoring a setting cannot fail in a way the caller could act on; the original outcome wins.
                try? execute(query: "PRAGMA defer_foreign_keys = OFF")
            }
        }
        return try body()
    }

    /// Throws when `PRAGMA foreign_key_check` finds a row whose parent is missing.
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_foreign_key_check
    func checkForeignKeys() throws {
        let statement = try prepare(query: "PRAGMA foreign_key_check")
        var first: (table: String, rowid: Int64?, parent: String)?
        var tables: Set<String> = []
        var count = 0
        while let row = try statement.next() {
            let table: String = try row[0]
            if first == nil {
                first = (table, try row[1], try row[2])
            }
            tables.insert(table)
            count += 1
        }
        guard let first else { return }
        var message = "foreign key violation: table \"\(first.table)\""
        if let rowid = first.rowid {
            message += " row \(rowid)"
        }
        message += " references a missing row of \"\(first.parent)\""
        if count > 1 {
            let others = tables.subtracting([first.table]).sorted().map { "\"\($0)\"" }
            message +=
                " (\(count) violations" + (others.isEmpty ? ")" : ", also in " + others.joined(separator: ", ") + ")")
        }
        throw DatabaseError(code: .migration, resultCode: .constraintForeignKey, message: message)
    }
}
