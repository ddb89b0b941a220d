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
/// `strata_tables_read()`, and for each table a statement-level trigger, `strata_observation`, that calls
/// `pg_notify('strata_commits', '<table OID>')` after an `INSERT`, `UPDATE`, `DELETE` or `TRUNCATE`. PostgreSQL
/// sends the notification when the transaction commits, never for one that rolls back, and once per table however
/// many statements wrote it.
///
/// An observation reads again only after a commit to a table its last read scanned, which PostgreSQL counts
/// (`strata_tables_read()`, from `pg_stat_xact_user_tables`, before and after each read); a partition counts with the
/// tables it is a partition of, whose trigger fires for the rows written through them. It refuses to follow a table
/// without the trigger, throwing ``DatabaseError/Code/invalidArgument`` naming it, rather than never see its changes:
/// a partitioned table needs the trigger on each partition its reads scan, as well as on itself.
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
                PERFORM pg_notify('\(channel)', TG_RELID::text);
                RETURN NULL;
            END
            $strata$
            """
        return try [function, "DROP FUNCTION IF EXISTS strata_tables_scanned()", readFunction]
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
    /// second or so ago): for each, its OID, name, count of scans, whether it and every table it is a partition of have
    /// the notify trigger, and the OIDs of the tables whose commits may change what was read in it (its own, and those
    /// of the tables it is a partition of, the notifications' payloads, separated by commas). One row of nulls when PostgreSQL does not count scans (`track_counts` is
    /// off), so that the tables read cannot be known. A PL/pgSQL function, so that its query is planned once per
    /// connection rather than at each read.
    static let readFunction = """
        CREATE OR REPLACE FUNCTION strata_tables_read()
            RETURNS TABLE (relid bigint, name text, scans bigint, observable boolean, changed_by text)
            LANGUAGE plpgsql STABLE AS $strata$
        #variable_conflict use_column
        BEGIN
            IF NOT current_setting('track_counts')::boolean THEN
                RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::bigint, NULL::boolean, NULL::text;
                RETURN;
            END IF;
            RETURN QUERY
            SELECT s.relid::bigint, s.relid::regclass::text, s.seq_scan + coalesce(s.idx_scan, 0),
                NOT EXISTS (
                    SELECT 1 FROM unnest(r.tables) AS c(relid)
                    WHERE NOT EXISTS (
                        SELECT 1 FROM pg_trigger t
                        WHERE t.tgrelid = c.relid AND t.tgname = '\(triggerName)' AND t.tgenabled <> 'D')),
                array_to_string(r.tables, ',')
            FROM pg_stat_xact_user_tables s,
                LATERAL (SELECT ARRAY[s.relid] || ARRAY(SELECT a.relid::oid FROM pg_partition_ancestors(s.relid) a))
                    AS r(tables)
            WHERE s.seq_scan + coalesce(s.idx_scan, 0) > 0;
        END
        $strata$
        """

    /// The rows of ``readFunction``.
    static let tablesRead = SQL(sql: "SELECT relid, name, scans, observable, changed_by FROM strata_tables_read()")

    /// A row of ``tablesRead``.
    struct TableScans: Decodable {
        var relid: Int64?
        var name: String?
        var scans: Int64?
        var observable: Bool?
        var changedBy: String?

        enum CodingKeys: String, CodingKey {
            case relid, name, scans, observable
            case changedBy = "changed_by"
        }
    }

    /// The tables `session`'s connection scanned (``tablesRead``).
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the function is missing: no trigger was installed, or
    ///   one of an earlier Strata, whose notifications do not name the tables.
    private static func scans(in session: PostgresSession) async throws -> [TableScans] {
        do {
            return try await session.fetchAll(TableScans.self, tablesRead)
        } catch let error as DatabaseError where error.sqlState == "42883" {
            throw DatabaseError(
                code: .invalidArgument,
                message: "cannot observe: no strata_tables_read() function in this schema, so no commit would be "
                    + "seen; install the \(triggerName) trigger on the tables you observe with "
                    + "Migrator.registerObservationTriggers(version:tables:) (see PostgresObservation), again if an "
                    + "earlier version of Strata installed it")
        }
    }

    /// Reads `fetch` in `session`'s transaction, and returns what it returns with the tables whose commits may change
    /// it; throws when it scanned a table without the notify trigger (or the tables it scanned cannot be known). The
    /// scans counted before and after tell which tables it read.
    ///
    /// - Throws: What `fetch` throws; ``DatabaseError/Code/invalidArgument`` naming the tables without a trigger.
    static func readFollowingTables<Output>(
        in session: PostgresSession, _ fetch: (PostgresSession) async throws -> Output
    ) async throws -> (Output, TableScope) {
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
        let scanned = after.filter { table in (table.scans ?? 0) > table.relid.flatMap { scansBefore[$0] } ?? 0 }
        let untriggered = scanned.filter { $0.observable != true }
        guard untriggered.isEmpty else {
            let names = untriggered.compactMap(\.name).joined(separator: ", ")
            throw DatabaseError(
                code: .invalidArgument,
                message:
                    "cannot observe \(names): no \(triggerName) trigger tells the pool of its commits (a partition "
                    + "needs it, and so does each table it is a partition of); install it with "
                    + "Migrator.registerObservationTriggers(version:tables:) (see PostgresObservation)")
        }
        let changedBy = scanned.flatMap { $0.changedBy?.split(separator: ",").map(String.init) ?? [] }
        return (result, .tables(Set(changedBy)))
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
