import Foundation
public import StrataCore

/// How Strata's ``Migrator`` migrates a PostgreSQL database: the same loop, migration files, validation, history and
/// checks as on SQLite; this driver supplies what differs.
///
/// ```swift
/// var migrator = Migrator()
/// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/postgresql"))
/// try await migrator.migrate(pg)                    // [1, 2, 3] on an empty database
/// let status = try await migrator.status(of: pg)    // currentVersion 3, applied [1, 2, 3], pending []
/// ```
///
/// The migrator uses it; an application does not call it.
///
/// - **The version lives in a table.** `strata_schema_version` holds one row, the database's version, as
///   `user_version` does on SQLite; the history is in `strata_migrations`, as on SQLite. Both are in the first schema
///   of the connection's `search_path` when `migrate` starts, and Strata names them with that schema throughout: a
///   migration that changes the `search_path` (a `pg_dump` output empties it) does not move them.
/// - **A step and its version bump commit together.** Each migration runs in its own transaction with its history
///   row and the new version (PostgreSQL DDL is transactional): a failing step leaves the database at the version
///   before it, with nothing of the step left.
/// - **A migration already runs in a transaction.** A file with a top-level `BEGIN`, `COMMIT`, `ROLLBACK`,
///   `SAVEPOINT` (or their synonyms), a `COPY ... FROM STDIN` or a psql command (`\connect`) is refused before it
///   runs, saying so; psql's `\restrict` and `\unrestrict` lines, which `pg_dump` writes, are left out.
/// - **Settings do not outlive their file.** What a file `SET`s (`search_path`, `TimeZone`...) is reset when it is
///   done (`RESET ALL`, in its transaction): the next file and the pool's next user see the connection's settings.
/// - **Concurrent migrators apply each step once.** Each transaction first takes a transaction-scoped advisory lock
///   (`pg_advisory_xact_lock`) for the schema, then reads the version again: tasks and processes migrating one
///   database at once wait for each other, and a step another one applied is skipped.
/// - **A file can run outside a transaction.** A file whose first line is `-- strata:no-transaction` runs its
///   statements one at a time, each committing on its own (`CREATE INDEX CONCURRENTLY`, `VACUUM`), under a
///   session-level advisory lock; its history row and version bump commit once every statement has run. It cannot
///   be rolled back: when statement k fails, statements 1 to k-1 stay, the version stays before the file, and the
///   next `migrate` runs the whole file again from its first statement (write each one so that it can run again).
/// - **Only SQL files run on PostgreSQL.** A migration registered as a Swift block takes a SQLite `Database`:
///   migrating a ``PostgresPool`` with one throws naming it, before anything runs.
/// - **The same refusals as on SQLite.** A database newer than ``Migrator/latestVersion``, and an applied file
///   edited since (unless ``Migrator/acceptsEditedFiles``), throw before any step runs.
public struct PostgresMigrationDriver: MigrationDriver {
    /// The tables, in the schema found when the migrator began.
    let tables: PostgresMigrationTables

    public static func find(in session: PostgresSession, forWriting: Bool) async throws -> PostgresMigrationDriver? {
        if forWriting {
            return PostgresMigrationDriver(tables: try await PostgresMigrationTables.resolve(in: session))
        }
        // A search_path that names no existing schema has no tables of Strata's: version 0.
        let tables = try await PostgresMigrationTables.resolveIfPossible(in: session)
        return tables.map(PostgresMigrationDriver.init(tables:))
    }

    /// Throws naming the first migration registered as a Swift block, which only runs on SQLite.
    public static func check(_ migrator: Migrator) throws {
        guard let block = migrator.migrations.first(where: { $0.sql == nil }) else { return }
        throw DatabaseError(
            code: .migration,
            message: "\(block) is a Swift block, (Database) throws -> Void, which runs on SQLite only: "
                + "write it as a .sql file to migrate a PostgreSQL database")
    }

    /// Reads the statements of every file about to run: one that cannot run stops the migration before the first.
    public func checkPending(_ migrations: [Migrator.Migration]) throws {
        for migration in migrations {
            _ = try Self.script(of: migration)
        }
    }

    public func withSnapshot<Output: Sendable>(
        _ session: PostgresSession, _ body: (PostgresSession) async throws -> Output
    ) async throws -> Output {
        try await session.transaction(readOnly: true) { session in
            try await body(session)
        }
    }

    /// A transaction that first takes the transaction-scoped advisory lock of the schema, then creates the tables
    /// when missing.
    public func withMigrationLock<Output: Sendable>(
        _ session: PostgresSession, _ body: (PostgresSession) async throws -> Output
    ) async throws -> Output {
        try await session.transaction(readOnly: false) { session in
            try await tables.lock(session)
            try await tables.create(in: session)
            return try await body(session)
        }
    }

    public func version(in session: PostgresSession) async throws -> Int {
        try await tables.version(of: session)
    }

    public func setVersion(_ version: Int, in session: PostgresSession) async throws {
        try await tables.setVersion(version, in: session)
    }

    public func history(in session: PostgresSession, currentVersion: Int) async throws -> [Int: AppliedMigration] {
        try await tables.history(of: session, currentVersion: currentVersion)
    }

    public func record(_ migration: Migrator.Migration, appliedNow: Bool, in session: PostgresSession) async throws {
        try await tables.record(migration, in: session, appliedNow: appliedNow)
    }

    public func acceptChecksum(of migration: Migrator.Migration, in session: PostgresSession) async throws {
        try await tables.acceptChecksum(of: migration, in: session)
    }

    /// Runs the SQL of `migration`'s file, which may hold several statements, in the session's transaction, then
    /// resets what it `SET`.
    public func run(_ migration: Migrator.Migration, from currentVersion: Int, in session: PostgresSession)
        async throws
    {
        let sql = try Self.script(of: migration).sql
        do {
            // The extended protocol runs one statement at a time; PL/pgSQL's EXECUTE runs a whole script, in the
            // transaction. The file, and then the block around it, are each quoted with a dollar tag whose name
            // they do not contain, so that neither is ever cut short.
            let inner = Self.dollarTag("strata_migration", notIn: sql)
            let block = "BEGIN EXECUTE \(inner)\(sql)\(inner); END"
            let outer = Self.dollarTag("strata_do", notIn: block)
            try await session.run(sql: "DO \(outer)\(block)\(outer)")
        } catch let error as PostgresError {
            throw DatabaseError(
                code: .migration, message: "\(migration) failed: \(Self.reason(error))", sql: sql,
                underlyingError: error)
        }
        // What the file SET stays with the session after COMMIT: reset it with the step.
        try await session.run(sql: "RESET ALL")
    }

    /// Holds the session-level advisory lock of the schema while `body` runs, outside a transaction; then resets
    /// the settings and releases the lock, also when `body` throws.
    public func withMigrationLockOutsideTransaction<Output: Sendable>(
        _ session: PostgresSession, _ body: (PostgresSession) async throws -> Output
    ) async throws -> Output {
        try await tables.lockSession(session)
        let output: Output
        do {
            output = try await body(session)
        } catch {
            // The connection goes back to the pool: without its settings, and without the lock, which would
            // otherwise keep every other migrator waiting. A broken connection took both with it.
            try? await session.run(sql: "RESET ALL")
            try? await tables.unlockSession(session)
            throw error
        }
        try await session.run(sql: "RESET ALL")
        try await tables.unlockSession(session)
        return output
    }

    /// Runs the statements of a `-- strata:no-transaction` file one at a time, in autocommit mode.
    public func runOutsideTransaction(
        _ migration: Migrator.Migration, from currentVersion: Int, in session: PostgresSession
    ) async throws {
        let script = try Self.script(of: migration)
        let statements = script.statements.filter { !$0.leadingWords.isEmpty }
        for (offset, statement) in statements.enumerated() {
            do {
                try await session.run(sql: script.text(of: statement))
            } catch let error as PostgresError {
                let done =
                    offset == 0
                    ? "nothing of it ran"
                    : "statements 1 to \(offset) committed and stay (no transaction can undo them)"
                throw DatabaseError(
                    code: .migration,
                    message: "\(migration), statement \(offset + 1) of \(statements.count) (line "
                        + "\(statement.line)) failed: \(Self.reason(error)); \(done), the database stays at "
                        + "version \(currentVersion), and the next migrate runs the file again from its first "
                        + "statement",
                    sql: script.text(of: statement), underlyingError: error)
            }
        }
    }

    // MARK: Private

    /// The statements of `migration`'s file.
    ///
    /// - Throws: `DatabaseError` with the `migration` code, naming the file and line, for a statement that ends or
    ///   begins a transaction (a migration already runs in one), a `COPY ... FROM STDIN` or `TO STDOUT` (psql's
    ///   input and output, which a migration does not have), or a psql command.
    private static func script(of migration: Migrator.Migration) throws -> PostgresMigrationScript {
        let script = PostgresMigrationScript(migration.sql ?? "")
        func refuse(_ line: Int, _ reason: String) -> DatabaseError {
            DatabaseError(code: .migration, message: "\(migration), line \(line): \(reason)")
        }
        // The first problem in the file, by line.
        var problem: (line: Int, reason: String)?
        if let command = script.psqlCommands.first {
            problem = (
                command.line,
                "\\\(command.name) is a psql command, not SQL: PostgreSQL cannot run it; remove it from the file"
            )
        }
        for statement in script.statements where statement.line < problem?.line ?? Int.max {
            let words = statement.leadingWords
            guard let first = words.first else { continue }
            let second = words.dropFirst().first
            let controlsTransaction =
                ["BEGIN", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE"].contains(first)
                || (first == "START" && second == "TRANSACTION") || (first == "PREPARE" && second == "TRANSACTION")
            if controlsTransaction {
                let keyword = first == "START" || first == "PREPARE" ? "\(first) TRANSACTION" : first
                let transaction =
                    migration.runsInTransaction
                    ? "a migration already runs in a transaction, with its version bump"
                    : "a file marked \(Migrator.noTransactionDirective) runs each statement on its own"
                problem = (statement.line, "\(keyword) cannot run in a migration: \(transaction); remove it")
                break
            }
            if first == "COPY", statement.namesClientStream {
                problem = (
                    statement.line,
                    "COPY ... FROM STDIN and TO STDOUT use psql's input and output, which a migration does not have: "
                        + "write the rows as INSERT statements (pg_dump --inserts)"
                )
                break
            }
        }
        if let problem { throw refuse(problem.line, problem.reason) }
        return script
    }

    /// PostgreSQL's reason for a failed statement of a migration, without the values it may quote, with a word on
    /// the statements that cannot run in a transaction.
    private static func reason(_ error: DatabaseError) -> String {
        guard error.sqlState == "25001" else { return error.summary }
        return error.summary + " (a file whose first line is \(Migrator.noTransactionDirective) runs its "
            + "statements outside a transaction)"
    }

    /// `$name$`, or `$name_1$`, `$name_2$`...: the first dollar-quote tag whose name `text` does not contain, so
    /// that the tag can neither occur in the quoted text nor be formed where the text meets it.
    static func dollarTag(_ name: String, notIn text: String) -> String {
        var candidate = name
        var suffix = 0
        while text.contains(candidate) {
            suffix += 1
            candidate = "\(name)_\(suffix)"
        }
        return "$\(candidate)$"
    }
}

extension PostgresSession: MigratableSession {
    public typealias MigrationDriver = PostgresMigrationDriver
}

/// The `strata_schema_version` and `strata_migrations` tables of a PostgreSQL database, in the schema a migrator
/// found first in the `search_path` when it started, and named with it in every statement.
///
/// ```sql
/// CREATE TABLE "app".strata_schema_version (
///     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), version integer NOT NULL CHECK (version >= 0))
/// CREATE TABLE "app".strata_migrations (
///     version integer PRIMARY KEY, name text NOT NULL, checksum text, applied_at timestamptz)
/// ```
struct PostgresMigrationTables {
    static let versionTableName = "strata_schema_version"

    /// The schema of the tables.
    let schema: String

    /// The version table, named with its schema: `"app".strata_schema_version`.
    var versionTable: String { qualified(Self.versionTableName) }
    /// The history table, named with its schema: `"app".strata_migrations`.
    var historyTable: String { qualified(MigrationHistory.table) }

    /// `"schema".name`, the schema quoted (a `"` doubled).
    private func qualified(_ name: String) -> String {
        "\"" + schema.replacingOccurrences(of: "\"", with: "\"\"") + "\"." + name
    }

    /// The tables of the session's first schema: the first of its `search_path` that exists.
    ///
    /// - Throws: `DatabaseError` with the `migration` code when the `search_path` names no schema that exists.
    static func resolve(in db: PostgresSession) async throws -> PostgresMigrationTables {
        guard let tables = try await resolveIfPossible(in: db) else {
            throw DatabaseError(
                code: .migration,
                message: "the search_path names no schema that exists, so there is none to keep "
                    + "\(versionTableName) in: create the schema, or set search_path (options=-c search_path=...)")
        }
        return tables
    }

    /// The tables of the session's first schema, nil when its `search_path` names no schema that exists.
    static func resolveIfPossible(in db: PostgresSession) async throws -> PostgresMigrationTables? {
        let schema = try await db.fetchOne(String?.self, query: "SELECT current_schema()")
        return (schema ?? nil).map(PostgresMigrationTables.init(schema:))
    }

    /// The advisory lock's keys: 0x53747261 ("Stra"), and the hash of the schema's name, so that schemas of one
    /// database migrate apart. Earlier versions hashed `current_schema()`, the same name: they and this one wait for
    /// each other.
    private var lockKeys: String { "1400140385, hashtext(:schema)" }

    /// Waits for, then holds until the transaction ends, the lock of migrations in the schema.
    func lock(_ db: PostgresSession) async throws {
        try await db.execute(query: "SELECT pg_advisory_xact_lock(\(lockKeys))", parameters: ["schema": schema])
    }

    /// Waits for, then holds until ``unlockSession(_:)`` or the end of the connection, the same lock as
    /// ``lock(_:)``, outside any transaction: for a migration that runs outside one. A session that holds it can
    /// still take the transaction-level lock.
    func lockSession(_ db: PostgresSession) async throws {
        try await db.execute(query: "SELECT pg_advisory_lock(\(lockKeys))", parameters: ["schema": schema])
    }

    /// Releases the lock of ``lockSession(_:)``.
    func unlockSession(_ db: PostgresSession) async throws {
        try await db.execute(query: "SELECT pg_advisory_unlock(\(lockKeys))", parameters: ["schema": schema])
    }

    /// Creates the tables when missing, the version at 0; called under the lock.
    func create(in db: PostgresSession) async throws {
        try await db.execute(
            query: """
                CREATE TABLE IF NOT EXISTS \(versionTable) (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    version integer NOT NULL CHECK (version >= 0))
                """)
        try await db.execute(query: "INSERT INTO \(versionTable) (version) VALUES (0) ON CONFLICT DO NOTHING")
        try await db.execute(
            query: """
                CREATE TABLE IF NOT EXISTS \(historyTable) (
                    version integer PRIMARY KEY, name text NOT NULL, checksum text, applied_at timestamptz)
                """)
    }

    /// The database's version: 0 when it was never migrated.
    func version(of db: PostgresSession) async throws -> Int {
        let exists = try await db.fetchOne(
            Bool.self, query: "SELECT to_regclass(:table) IS NOT NULL", parameters: ["table": versionTable])
        guard exists == true else { return 0 }
        let versions = try await db.fetchAll(Int.self, query: "SELECT version FROM \(versionTable)")
        guard versions.count <= 1 else {
            throw DatabaseError(
                code: .migration,
                message: "\(versionTable) has \(versions.count) rows, not one; Strata writes this table with each "
                    + "migration: restore it from a backup")
        }
        return versions.first ?? 0
    }

    /// The version and the recorded history, in the session's transaction.
    func snapshot(of db: PostgresSession) async throws -> (version: Int, history: [Int: AppliedMigration]) {
        let current = try await version(of: db)
        return (current, try await history(of: db, currentVersion: current))
    }

    /// The recorded migrations by version, empty when the table does not exist.
    ///
    /// - Throws: `DatabaseError` with the `migration` code when the table or a row is not what Strata writes.
    func history(of db: PostgresSession, currentVersion: Int) async throws -> [Int: AppliedMigration] {
        let found = try await db.fetchAll(
            String.self,
            query: """
                SELECT CAST(attname AS text) FROM pg_attribute
                WHERE attrelid = to_regclass(:table) AND attnum > 0 AND NOT attisdropped
                ORDER BY attnum
                """,
            parameters: ["table": historyTable])
        if found.isEmpty { return [:] }
        guard found == MigrationHistory.columns else {
            throw MigrationHistory.malformed(
                "has the columns \(found.joined(separator: ", ")), not "
                    + MigrationHistory.columns.joined(separator: ", "))
        }
        let rows = try await db.fetchAll(
            HistoryRow.self,
            query: "SELECT version, name, checksum, applied_at FROM \(historyTable) ORDER BY version")
        var history: [Int: AppliedMigration] = [:]
        for row in rows {
            guard row.version >= 1 else {
                throw MigrationHistory.malformed("has a row whose version is \(row.version), not a version number")
            }
            guard row.version <= currentVersion else {
                throw MigrationHistory.malformed(
                    "records version \(row.version), but the database is at version \(currentVersion) "
                        + "(\(Self.versionTableName))")
            }
            if let checksum = row.checksum, !MigrationHistory.isChecksum(checksum) {
                throw MigrationHistory.malformed(
                    "has a row for version \(row.version) whose checksum is '\(checksum.prefix(80))', "
                        + "not 64 hexadecimal digits or NULL")
            }
            history[row.version] = AppliedMigration(
                version: row.version, name: row.name, checksum: row.checksum, appliedAt: row.appliedAt)
        }
        return history
    }

    /// Records `migration` as applied: now, or with no time for a migration applied before the history began.
    func record(_ migration: Migrator.Migration, in db: PostgresSession, appliedNow: Bool) async throws {
        try await db.execute(
            query: """
                INSERT INTO \(historyTable) (version, name, checksum, applied_at)
                VALUES (:version, :name, :checksum, \(appliedNow ? "clock_timestamp()" : "NULL"))
                ON CONFLICT (version) DO \(appliedNow
                    ? "UPDATE SET name = excluded.name, checksum = excluded.checksum, applied_at = excluded.applied_at"
                    : "NOTHING")
                """,
            parameters: ["version": migration.version, "name": migration.identifier, "checksum": migration.checksum])
    }

    /// Records the checksum `migration`'s file has now, for an edit the migrator was told to accept.
    func acceptChecksum(of migration: Migrator.Migration, in db: PostgresSession) async throws {
        try await db.execute(
            query: "UPDATE \(historyTable) SET checksum = :checksum WHERE version = :version",
            parameters: ["version": migration.version, "checksum": migration.checksum])
    }

    /// Sets the database's version, in the transaction of the step that brings it.
    func setVersion(_ version: Int, in db: PostgresSession) async throws {
        try await db.execute(query: "UPDATE \(versionTable) SET version = :version", parameters: ["version": version])
    }

    /// A row of `strata_migrations`.
    private struct HistoryRow: Decodable {
        var version: Int
        var name: String
        var checksum: String?
        var appliedAt: Date?

        enum CodingKeys: String, CodingKey {
            case version, name, checksum
            case appliedAt = "applied_at"
        }
    }
}
