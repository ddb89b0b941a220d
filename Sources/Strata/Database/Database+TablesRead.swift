internal import CSQLite

extension Database {
    /// Runs `body`, and returns what it returns with the tables its statements read: what an observation's read
    /// depends on (see `DatabasePool.observationRead(_:)`). Run it inside a read transaction, so that the schema the
    /// tables are looked up in is the one the statements ran against.
    ///
    /// The tables of each statement come from the program SQLite compiles it to (`EXPLAIN`): the b-trees it opens,
    /// found by their root page in `sqlite_schema`, an index counting as its table. This sees every table a statement
    /// reads, through views, subqueries, joins and `count(*)`, which SQLite's authorizer does not always name.
    /// A statement that opens anything else reads ``TableScope/everything``: a virtual table (`json_each`, a
    /// `pragma_...` function, full-text search), a table of an attached or temporary database, the schema cookie
    /// (`PRAGMA user_version`).
    func tablesRead<Output>(during body: () async throws -> Output) async throws -> (Output, TableScope) {
        let (output, statements) = try await connection.noteStatements(during: body)
        return (output, try tablesRead(by: statements))
    }

    /// The tables `statements` read, with the tables of each statement kept until the schema changes.
    private func tablesRead(by statements: Set<String>) throws -> TableScope {
        guard !statements.isEmpty else { return .tables([]) }
        let handle = try openHandle()
        let schemaVersion = try Self.fetchInt64(handle, "PRAGMA schema_version")
        if readTablesCache?.schemaVersion != schemaVersion {
            readTablesCache = ReadTablesCache(schemaVersion: schemaVersion, rootPages: try Self.rootPages(handle))
        }
        guard let cache = readTablesCache else { return .everything }
        var tables: Set<String> = []
        for sql in statements {
            let read = cache.tables[sql] ?? cache.remember(Self.tablesRead(by: sql, handle, cache.rootPages), of: sql)
            guard case .tables(let statementTables) = read else { return .everything }
            tables.formUnion(statementTables)
        }
        return .tables(tables)
    }

    /// The tables `sql` reads, from the b-trees its program opens: `rootPages` names them.
    private static func tablesRead(by sql: String, _ handle: OpaquePointer, _ rootPages: [Int64: String]) -> TableScope
    {
        var statement: OpaquePointer?
        // SQL SQLite cannot explain (EXPLAIN of an EXPLAIN) reads what cannot be known.
        guard sqlite3_prepare_v2(handle, "EXPLAIN " + sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            return .everything
        }
        defer { sqlite3_finalize(statement) }
        // The columns of EXPLAIN: addr, opcode, p1, p2, p3, p4, p5, comment.
        var tables: Set<String> = []
        while true {
            let stepped = sqlite3_step(statement)
            guard stepped == SQLITE_ROW else { return stepped == SQLITE_DONE ? .tables(tables) : .everything }
            guard let opcode = sqlite3_column_text(statement, 1) else { continue }
            switch String(cString: opcode) {
            case "OpenRead", "OpenWrite", "ReopenIdx":
                // P3 is the database (0 is main), P2 the root page unless P5 says it is in a register.
                let rootPage = sqlite3_column_int64(statement, 3)
                let database = sqlite3_column_int64(statement, 4)
                let p5 = sqlite3_column_int64(statement, 6)
                guard database == 0, p5 & opfP2IsRegister == 0, let table = rootPages[rootPage] else {
                    return .everything
                }
                tables.insert(table)
            case "VOpen", "ReadCookie":
                return .everything
            default:
                continue
            }
        }
    }

    /// `OPFLAG_P2ISREG`: the flag of an `OpenWrite`'s P5 that puts its root page in a register.
    private static let opfP2IsRegister: Int64 = 0x10

    /// The table of each b-tree of the main database, lowercased, by root page: an index's is its table's.
    private static func rootPages(_ handle: OpaquePointer) throws -> [Int64: String] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(
            handle, "SELECT tbl_name, rootpage FROM main.sqlite_schema WHERE rootpage > 0", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw DatabaseError.sqlite(prepared, connection: handle) }
        var rootPages: [Int64: String] = [1: "sqlite_schema"]
        while true {
            let stepped = sqlite3_step(statement)
            guard stepped == SQLITE_ROW else {
                guard stepped == SQLITE_DONE else { throw DatabaseError.sqlite(stepped, connection: handle) }
                return rootPages
            }
            if let table = sqlite3_column_text(statement, 0) {
                rootPages[sqlite3_column_int64(statement, 1)] = String(cString: table).lowercased()
            }
        }
    }

    /// The one integer `sql` returns, read with SQLite's API alone: not a statement of the database's, which its
    /// observability would report.
    static func fetchInt64(_ handle: OpaquePointer, _ sql: String) throws -> Int64 {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw DatabaseError.sqlite(prepared, connection: handle) }
        let stepped = sqlite3_step(statement)
        guard stepped == SQLITE_ROW else { throw DatabaseError.sqlite(stepped, connection: handle) }
        return sqlite3_column_int64(statement, 0)
    }
}

/// The tables each statement an observation ran reads, for one version of the schema (see `Database.tablesRead`).
final class ReadTablesCache {
    let schemaVersion: Int64
    /// The table of each b-tree, by root page.
    let rootPages: [Int64: String]
    private(set) var tables: [String: TableScope] = [:]

    /// How many statements it keeps: reads that inline their values would add one each time.
    private static let capacity = 256

    init(schemaVersion: Int64, rootPages: [Int64: String]) {
        self.schemaVersion = schemaVersion
        self.rootPages = rootPages
    }

    /// Keeps `read`, the tables `sql` reads, and returns it.
    func remember(_ read: TableScope, of sql: String) -> TableScope {
        if tables.count >= Self.capacity { tables.removeAll(keepingCapacity: true) }
        tables[sql] = read
        return read
    }
}
