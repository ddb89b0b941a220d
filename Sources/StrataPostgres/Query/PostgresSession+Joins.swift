internal import PostgresNIO
public import StrataCore

extension PostgresSession {
    /// Every row of a join request, as pairs of models, each reading its own table's columns even when both have a
    /// column of the same name (`id`).
    ///
    /// ```swift
    /// let withTags = try await db.fetchAll(
    ///     Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    ///
    /// The SELECT puts the column `NULL AS "strata_join_separator"` between two tables' columns and each row is
    /// split there, as on SQLite.
    public func fetchAll<First: Model, Second: Model>(_ request: JoinRequest<First, Second>) async throws
        -> [(First, Second)]
    {
        try await joinedRows(request.base, tables: 2) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self))
        }
    }

    /// Every row of a left join request: the second model is nil where no row matched (every one of its columns is
    /// NULL), as on SQLite.
    ///
    /// ```swift
    /// let maybe = try await db.fetchAll(Note.leftJoining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    public func fetchAll<First: Model, Second: Model>(_ request: LeftJoinRequest<First, Second>) async throws
        -> [(First, Second?)]
    {
        try await joinedRows(request.base, tables: 2) { parts in
            (try parts[0].decode(First.self), parts[1].isAllNull ? nil : try parts[1].decode(Second.self))
        }
    }

    /// Every row of a three-table join request, as triples of models, each reading its own table's columns.
    ///
    /// ```swift
    /// let rows = try await db.fetchAll(
    ///     Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id"))
    ///         .joining(Author.self, on: Column("id", table: Author.self) == Column("authorId")))
    /// ```
    public func fetchAll<First: Model, Second: Model, Third: Model>(_ request: JoinRequest3<First, Second, Third>)
        async throws -> [(First, Second, Third)]
    {
        try await joinedRows(request.base, tables: 3) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self), try parts[2].decode(Third.self))
        }
    }

    /// Every row of a join written as SQL, decoded into two models, each reading its own table's columns even when
    /// both tables have a column of the same name (`id`), as on SQLite.
    ///
    /// ```swift
    /// let pairs: [(Note, Tag)] = try await db.fetchAll(
    ///     Note.self, Tag.self, "SELECT note.*, tag.* FROM note JOIN tag ON tag.note_id = note.id WHERE mood = \(mood)")
    /// ```
    ///
    /// PostgreSQL tells which table each result column is read from; the row splits between the models by that
    /// rule of every backend: a run of columns of one table is one model's, and a column name that repeats within a
    /// run starts the next, so that a self-join (`SELECT a.*, b.* FROM note a JOIN note b ...`) splits between its
    /// two aliases. A model on a view reads the view's columns. The models' tables are looked up as their SQL names
    /// them (on the `search_path`), once per call that returns rows.
    ///
    /// - Throws: ``DatabaseError/Code/unknownColumn`` when the row has no columns of a model's table.
    public func fetchAll<First: Model, Second: Model>(_ first: First.Type, _ second: Second.Type, _ sql: SQL)
        async throws -> [(First, Second)]
    {
        try await joinedPairs(try statement(sql))
    }

    /// Every row of a join written as SQL, with `:name` parameters, decoded into two models (see
    /// ``fetchAll(_:_:_:)``).
    public func fetchAll<First: Model, Second: Model>(
        _ first: First.Type, _ second: Second.Type, query: String, parameters: (any Encodable)? = nil
    ) async throws -> [(First, Second)] {
        try await joinedPairs(try statement(query, PostgresParameters(parameters)))
    }

    /// Every row of a join written as SQL, decoded into three models, each reading its own table's columns.
    public func fetchAll<First: Model, Second: Model, Third: Model>(
        _ first: First.Type, _ second: Second.Type, _ third: Third.Type, _ sql: SQL
    ) async throws -> [(First, Second, Third)] {
        try await joinedTriples(try statement(sql))
    }

    /// Every row of a join written as SQL, with `:name` parameters, decoded into three models.
    public func fetchAll<First: Model, Second: Model, Third: Model>(
        _ first: First.Type, _ second: Second.Type, _ third: Third.Type, query: String,
        parameters: (any Encodable)? = nil
    ) async throws -> [(First, Second, Third)] {
        try await joinedTriples(try statement(query, PostgresParameters(parameters)))
    }

    // MARK: Internal

    private func joinedPairs<First: Model, Second: Model>(_ statement: PostgresStatement) async throws
        -> [(First, Second)]
    {
        try await joinedRows(statement, tables: [First.tableName, Second.tableName]) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self))
        }
    }

    private func joinedTriples<First: Model, Second: Model, Third: Model>(_ statement: PostgresStatement)
        async throws -> [(First, Second, Third)]
    {
        try await joinedRows(statement, tables: [First.tableName, Second.tableName, Third.tableName]) { parts in
            (try parts[0].decode(First.self), try parts[1].decode(Second.self), try parts[2].decode(Third.self))
        }
    }

    /// Runs the join SELECT of `request` and makes a value of each row's parts, one per table, split at the
    /// separator columns.
    private func joinedRows<Record: Model, Value>(
        _ request: QueryRequest<Record>, tables: Int, _ make: ([JoinedPart]) throws -> Value
    ) async throws -> [Value] {
        let statement = try statement(request.renderJoinSelect(dialect: PostgresDialect()))
        return try await joinedRows(
            statement,
            split: { names, _ in
                try QueryRequest<Record>.joinedColumns(names: names, tables: tables, sql: statement.sql)
            }, make: make)
    }

    /// Runs a join written as SQL and makes a value of each row's parts, one per model table of `tables`, split by
    /// the table each column is read from (see `JoinedColumnSplit`).
    private func joinedRows<Value>(
        _ statement: PostgresStatement, tables: [String], _ make: ([JoinedPart]) throws -> Value
    ) async throws -> [Value] {
        try await joinedRows(
            statement,
            split: { names, columns in
                // PostgreSQL's object id of each model's table, as its SQL names it; 0 when there is none.
                let quoted = tables.map(quotedIdentifier)
                let ids = try await fetchAll(
                    Int64.self,
                    """
                    SELECT coalesce(to_regclass(name)::oid::bigint, 0)
                        FROM jsonb_array_elements_text(CAST(\(quoted) AS jsonb)) WITH ORDINALITY AS model (name, n)
                        ORDER BY n
                    """)
                let split = JoinedColumnSplit(
                    names: names,
                    origins: columns.map { $0.tableOID == 0 ? nil : Int64(UInt32(bitPattern: $0.tableOID)) })
                return try split.columns(of: ids.map { $0 == 0 ? nil : $0 }, tableNames: tables, sql: statement.sql)
            }, make: make)
    }

    /// Runs `statement` and makes a value of each row's parts, split by `split` (given the column names and their
    /// descriptions) when the first row arrived.
    private func joinedRows<Value>(
        _ statement: PostgresStatement,
        split: ([String], PostgresNIO.PostgresColumns) async throws -> [Range<Int>],
        make: ([JoinedPart]) throws -> Value
    ) async throws -> [Value] {
        try await collectDescribed(statement) { rows, described in
            guard !rows.isEmpty else { return [] }
            let names = described.map(\.name)
            let bounds = try await split(names, described)
            let columns = bounds.map { PostgresColumns(Array(names[$0])) }
            return try rows.map { row in
                let cells = Array(row)
                return try make(zip(bounds, columns).map { JoinedPart(cells: cells, part: $0, columns: $1) })
            }
        }
    }
}

/// The columns of one table in a joined row.
private struct JoinedPart {
    /// The row's cells.
    let cells: [PostgresCell]
    /// The indexes of the table's cells.
    let part: Range<Int>
    /// Their names.
    let columns: PostgresColumns

    /// Whether every column is NULL: a left join that matched no row.
    var isAllNull: Bool { cells[part].allSatisfy { $0.bytes == nil } }

    /// The part decoded as a model, with the model's key strategy.
    func decode<T: Model>(_ type: T.Type) throws -> T {
        try PostgresRowDecoder(RowDecoder(), for: T.self).decode(T.self, cells: cells, columns: columns, part: part)
    }
}
