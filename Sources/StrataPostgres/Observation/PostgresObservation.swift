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
/// or put ``triggerSQL(for:)`` in a migration file. It creates two functions, `strata_notify_commit()` and
/// `strata_tables_scanned()`, and for each table a statement-level trigger, `strata_observation`, that calls
/// `pg_notify('strata_commits', '<schema>.<table>')` after an `INSERT`, `UPDATE`, `DELETE` or `TRUNCATE`. PostgreSQL
/// sends the notification when the transaction commits, never for one that rolls back, and once per table however
/// many statements wrote it.
///
/// An observation refuses to follow a table without the trigger: it asks PostgreSQL which tables each read scanned
/// (`strata_tables_scanned()`, from `pg_stat_xact_user_tables`) and throws ``DatabaseError/Code/invalidArgument``,
/// naming them, when one has no trigger, rather than never see its changes. A partitioned table needs the trigger on
/// each partition its reads scan.
public enum PostgresObservation {
    /// The channel the triggers notify and the pool listens on.
    public static let channel = "strata_commits"

    /// The name of the trigger installed on each observed table.
    public static let triggerName = "strata_observation"

    /// The SQL that installs the notify trigger on each of `tables`, named as the requests name them (resolved through
    /// the `search_path`): the functions `strata_notify_commit()` and `strata_tables_scanned()` (created or replaced),
    /// then for each table its trigger (dropped first if it exists). Running it again changes nothing.
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
        return try [function, scannedFunction]
            + tables.flatMap { table in
                let quoted = try dialect.quote(table)
                return [
                    "DROP TRIGGER IF EXISTS \(triggerName) ON \(quoted)",
                    "CREATE TRIGGER \(triggerName) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(quoted)\n"
                        + "    FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_commit()",
                ]
            }
    }

    /// The function that lists the tables this connection has scanned and not yet reported to the statistics
    /// (`pg_stat_xact_user_tables`: the current transaction's scans, and those of transactions that ended less than a
    /// second or so ago), with their number, name, count of scans and whether they have the notify trigger; one row
    /// of nulls when PostgreSQL does not count scans (`track_counts` is off), so that the tables read cannot be known.
    /// A PL/pgSQL function, so that its query is planned once per connection rather than at each read.
    static let scannedFunction = """
        CREATE OR REPLACE FUNCTION strata_tables_scanned()
            RETURNS TABLE (relid bigint, name text, scans bigint, observable boolean)
            LANGUAGE plpgsql STABLE AS $strata$
        #variable_conflict use_column
        BEGIN
            IF NOT current_setting('track_counts')::boolean THEN
                RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::bigint, NULL::boolean;
                RETURN;
            END IF;
            RETURN QUERY
            SELECT s.relid::bigint, s.relid::regclass::text, s.seq_scan + coalesce(s.idx_scan, 0),
                EXISTS (
                    SELECT 1 FROM pg_trigger t
                    WHERE t.tgrelid = s.relid AND t.tgname = '\(triggerName)' AND t.tgenabled <> 'D')
            FROM pg_stat_xact_user_tables s
            WHERE s.seq_scan + coalesce(s.idx_scan, 0) > 0;
        END
        $strata$
        """

    /// The rows of ``scannedFunction``.
    static let tablesScanned = SQL(sql: "SELECT relid, name, scans, observable FROM strata_tables_scanned()")

    /// A row of ``tablesScanned``.
    struct TableScans: Decodable {
        var relid: Int64?
        var name: String?
        var scans: Int64?
        var observable: Bool?
    }

    /// The tables `session`'s connection scanned (``tablesScanned``).
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the function is missing: no trigger was installed.
    private static func scans(in session: PostgresSession) async throws -> [TableScans] {
        do {
            return try await session.fetchAll(TableScans.self, tablesScanned)
        } catch let error as DatabaseError where error.sqlState == "42883" {
            throw DatabaseError(
                code: .invalidArgument,
                message: "cannot observe: no \(triggerName) trigger is installed in this schema, so no commit would be "
                    + "seen; install it on the tables you observe with "
                    + "Migrator.registerObservationTriggers(version:tables:) (see PostgresObservation)")
        }
    }

    /// Reads `fetch` in `session`'s transaction, and throws when it scanned a table without the notify trigger (or
    /// the tables it scanned cannot be known): the scans counted before and after tell which tables it read.
    ///
    /// - Throws: What `fetch` throws; ``DatabaseError/Code/invalidArgument`` naming the tables without a trigger.
    static func readRefusingUntriggeredTables<Output>(
        in session: PostgresSession, _ fetch: (PostgresSession) async throws -> Output
    ) async throws -> Output {
        let before = try await scans(in: session)
        let result = try await fetch(session)
        let after = try await scans(in: session)
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
