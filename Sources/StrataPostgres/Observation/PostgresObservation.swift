public import StrataCore

/// What lets a ``PostgresPool`` observe a table (`observe`): a trigger that tells the pool, through PostgreSQL's
/// `LISTEN`/`NOTIFY`, of every commit that changed the table, by any client. Install it on each table you observe, in a
/// migration:
///
/// ```swift
/// var migrator = Migrator()
/// try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/postgresql"))
/// try migrator.registerObservationTriggers(version: migrator.latestVersion + 1, tables: ["note"])
/// ```
///
/// or put ``triggerSQL(for:)`` in a migration file. For each table it installs a statement-level trigger,
/// `strata_observation`, that calls `pg_notify('strata_commits', '<schema>.<table>')` after an `INSERT`, `UPDATE`,
/// `DELETE` or `TRUNCATE`. PostgreSQL sends the notification when the transaction commits, never for one that rolls
/// back, and once per table however many statements wrote it.
///
/// An observation refuses to follow a table without the trigger: after each read it asks PostgreSQL which tables the
/// read scanned (`pg_stat_xact_user_tables`) and throws ``DatabaseError/Code/invalidArgument``, naming them, when one
/// has no trigger, rather than never see its changes. A partitioned table needs the trigger on each partition its
/// reads scan.
public enum PostgresObservation {
    /// The channel the triggers notify and the pool listens on.
    public static let channel = "strata_commits"

    /// The name of the trigger installed on each observed table.
    public static let triggerName = "strata_observation"

    /// The SQL that installs the notify trigger on each of `tables`, named as the requests name them (resolved through
    /// the `search_path`): the function `strata_notify_commit()` (created or replaced), then for each table its
    /// trigger (dropped first if it exists). Running it again changes nothing.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for no table, or a name with a NUL character.
    public static func triggerSQL(for tables: [String]) throws -> String {
        try triggerStatements(for: tables).map { $0 + ";\n" }.joined()
    }

    /// The statements of ``triggerSQL(for:)``, one by one.
    static func triggerStatements(for tables: [String]) throws -> [String] {
        guard !tables.isEmpty else {
            throw DatabaseError(code: .invalidArgument, message: "name at least one table to install the trigger on")
        }
        let dialect = PostgresDialect()
        let function = """
            CREATE OR REPLACE FUNCTION strata_notify_commit() RETURNS trigger LANGUAGE plpgsql AS $strata$
            BEGIN
                PERFORM pg_notify('\(channel)', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME);
                RETURN NULL;
            END
            $strata$
            """
        return try [function]
            + tables.flatMap { table in
                let quoted = try dialect.quote(table)
                return [
                    "DROP TRIGGER IF EXISTS \(triggerName) ON \(quoted)",
                    "CREATE TRIGGER \(triggerName) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(quoted)\n"
                        + "    FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_commit()",
                ]
            }
    }

    /// The tables this connection has scanned and not yet reported to the statistics (`pg_stat_xact_user_tables`:
    /// the current transaction's scans, and those of transactions that ended less than a second or so ago): by
    /// number, with their name, their count of scans and whether they have the notify trigger. One row with nil
    /// fields when PostgreSQL does not count scans (`track_counts` is off), so that the tables read cannot be known.
    static let tablesScanned = SQL(
        sql: """
            SELECT s.relid::bigint AS relid, s.relid::regclass::text AS name,
                s.seq_scan + coalesce(s.idx_scan, 0) AS scans,
                EXISTS (
                    SELECT 1 FROM pg_trigger t
                    WHERE t.tgrelid = s.relid AND t.tgname = '\(triggerName)' AND t.tgenabled <> 'D') AS observable
            FROM pg_stat_xact_user_tables s
            WHERE s.seq_scan + coalesce(s.idx_scan, 0) > 0 AND current_setting('track_counts')::boolean
            UNION ALL SELECT NULL, NULL, NULL, NULL WHERE NOT current_setting('track_counts')::boolean
            """)

    /// A row of ``tablesScanned``.
    struct TableScans: Decodable {
        var relid: Int64?
        var name: String?
        var scans: Int64?
        var observable: Bool?
    }

    /// Reads `fetch` in `session`'s transaction, and throws when it scanned a table without the notify trigger (or
    /// the tables it scanned cannot be known): the scans counted before and after tell which tables it read.
    ///
    /// - Throws: What `fetch` throws; ``DatabaseError/Code/invalidArgument`` naming the tables without a trigger.
    static func readRefusingUntriggeredTables<Output>(
        in session: PostgresSession, _ fetch: (PostgresSession) async throws -> Output
    ) async throws -> Output {
        let before = try await session.fetchAll(TableScans.self, tablesScanned)
        let result = try await fetch(session)
        let after = try await session.fetchAll(TableScans.self, tablesScanned)
        guard after.allSatisfy({ $0.relid != nil }) else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "cannot observe on this server: track_counts is off, so the tables a read scans are unknown")
        }
        var scansBefore: [Int64: Int64] = [:]
        for table in before {
            if let relid = table.relid { scansBefore[relid] = table.scans }
        }
        let untriggered = after.filter { table in
            table.observable != true && (table.scans ?? 0) > table.relid.flatMap { scansBefore[$0] } ?? 0
        }
        guard untriggered.isEmpty else {
            let names = untriggered.compactMap(\.name).joined(separator: ", ")
            throw DatabaseError(
                code: .invalidArgument,
                message: "cannot observe \(names): no \(triggerName) trigger tells the pool of its commits; install it "
                    + "with Migrator.registerObservationTriggers(version:tables:) (see PostgresObservation)")
        }
        return result
    }
}

extension Migrator {
    /// Registers the migration to `version` that installs the notify trigger on each of `tables`
    /// (``PostgresObservation/triggerSQL(for:)``), so that a ``PostgresPool`` can observe them.
    ///
    /// ```swift
    /// try migrator.registerObservationTriggers(version: 4, tables: ["note", "tag"])
    /// ```
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for no table, or a name with a NUL character.
    public mutating func registerObservationTriggers(version: Int, tables: [String]) throws {
        try register(
            version: version, name: "observe " + tables.joined(separator: ", "),
            sql: PostgresObservation.triggerSQL(for: tables))
    }
}

extension PostgresSession {
    /// Installs the notify trigger on each of `tables` (``PostgresObservation/triggerSQL(for:)``), so that a
    /// ``PostgresPool`` can observe them: for a schema made outside migrations. Run it in a `write`, so that it
    /// installs on every table or none.
    ///
    /// ```swift
    /// try await pool.write { db in try await db.installObservationTriggers(on: ["note"]) }
    /// ```
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` for no table, or a name with a NUL character; the server's
    ///   error for a table that does not exist.
    public func installObservationTriggers(on tables: [String]) async throws {
        for statement in try PostgresObservation.triggerStatements(for: tables) {
            try await execute(SQL(sql: statement))
        }
    }
}
