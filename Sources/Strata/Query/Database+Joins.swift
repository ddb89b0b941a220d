internal import CSQLite

extension Database {
    /// Every row of a join decoded into two models, each reading its own table's columns, even when both tables
    /// have a column of the same name (`id`).
    ///
    /// ```swift
    /// let pairs: [(Note, Tag)] = try db.fetchAll(Note.self, Tag.self, query: """
    ///     SELECT note.*, tag.* FROM note JOIN tag ON tag.noteId = note.id
    ///     """)
    /// ```
    ///
    /// SQLite tells which table each result column comes from (its column metadata); a run of columns of one
    /// table is one model's, and a column name that repeats within a run starts the next model's, so a self-join
    /// (`SELECT a.*, b.* FROM note a JOIN note b ...`) splits between its two aliases.
    ///
    /// - Throws: `DatabaseError.Code.unknownColumn` when the row has no columns of a model's table.
    public func fetchAll<First: Model, Second: Model>(
        _ first: First.Type, _ second: Second.Type, query: String, parameters: (any Encodable)? = nil
    ) throws -> [(First, Second)] {
        try joinedPairs(try prepared(query: query, parameters: QueryParameters(parameters)))
    }

    /// Every row of a join decoded into three models, each reading its own table's columns.
    public func fetchAll<First: Model, Second: Model, Third: Model>(
        _ first: First.Type, _ second: Second.Type, _ third: Third.Type, query: String,
        parameters: (any Encodable)? = nil
    ) throws -> [(First, Second, Third)] {
        try joinedTriples(try prepared(query: query, parameters: QueryParameters(parameters)))
    }

    /// Every row of a join written as SQL with interpolation, its values bound, decoded into two models (see
    /// ``fetchAll(_:_:query:parameters:)``).
    ///
    /// ```swift
    /// let pairs: [(Note, Tag)] = try db.fetchAll(
    ///     Note.self, Tag.self, "SELECT note.*, tag.* FROM note JOIN tag ON tag.noteId = note.id WHERE mood = \(mood)")
    /// ```
    public func fetchAll<First: Model, Second: Model>(_ first: First.Type, _ second: Second.Type, _ sql: SQL) throws
        -> [(First, Second)]
    {
        try joinedPairs(try prepared(sql))
    }

    /// Every row of a join written as SQL with interpolation, decoded into three models.
    public func fetchAll<First: Model, Second: Model, Third: Model>(
        _ first: First.Type, _ second: Second.Type, _ third: Third.Type, _ sql: SQL
    ) throws -> [(First, Second, Third)] {
        try joinedTriples(try prepared(sql))
    }

    /// Every row of a join request, as pairs of models.
    ///
    /// ```swift
    /// let withTags = try db.fetchAll(Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    public func fetchAll<First: Model, Second: Model>(_ request: JoinRequest<First, Second>) throws
        -> [(First, Second)]
    {
        let shape = JoinShape(First.self, Second.self)
        return try joinedRows(request.base, shape) {
            (try $0.decode(First.self, at: 0), try $0.decode(Second.self, at: 1))
        }
    }

    /// Every row of a left join request: the second model is nil where no row matched.
    ///
    /// ```swift
    /// let maybe: [(Note, Tag?)] = try db.fetchAll(Note.leftJoining(Tag.self, on: ...))
    /// ```
    public func fetchAll<First: Model, Second: Model>(_ request: LeftJoinRequest<First, Second>) throws
        -> [(First, Second?)]
    {
        let shape = JoinShape(First.self, Second.self, optional: [false, true])
        return try joinedRows(request.base, shape) {
            (try $0.decode(First.self, at: 0), try $0.decodeIfPresent(Second.self, at: 1))
        }
    }

    /// Every row of a three-table join request.
    public func fetchAll<First: Model, Second: Model, Third: Model>(_ request: JoinRequest3<First, Second, Third>)
        throws -> [(First, Second, Third)]
    {
        let shape = JoinShape(First.self, Second.self, Third.self)
        return try joinedRows(request.base, shape) {
            (try $0.decode(First.self, at: 0), try $0.decode(Second.self, at: 1), try $0.decode(Third.self, at: 2))
        }
    }

    // MARK: Internal

    /// The rows of a join request, split at the separator columns its SELECT puts between two tables' columns, as
    /// on every backend: a table joined under an alias, or a model backed by a view, splits as any other.
    private func joinedRows<Output>(
        _ request: QueryRequest<some Model>, _ shape: JoinShape, decode: (JoinedRow) throws -> Output
    ) throws -> [Output] {
        let select = request.renderJoinSelect(dialect: SQLiteDialect())
        let statement = try preparedRequest(select.rendered, failure: select.failure)
        return try joinedRows(statement: statement, shape, decode: decode) {
            try JoinedRow(statement: $0, shape: shape, request: type(of: request))
        }
    }

    /// The rows of a join written as SQL, split by the table each column is read from.
    private func joinedPairs<First: Model, Second: Model>(_ statement: Statement) throws -> [(First, Second)] {
        let shape = JoinShape(First.self, Second.self)
        return try joinedRows(statement: statement, shape) {
            (try $0.decode(First.self, at: 0), try $0.decode(Second.self, at: 1))
        } split: {
            try JoinedRow(statement: $0, shape: shape, in: self)
        }
    }

    private func joinedTriples<First: Model, Second: Model, Third: Model>(_ statement: Statement) throws
        -> [(First, Second, Third)]
    {
        let shape = JoinShape(First.self, Second.self, Third.self)
        return try joinedRows(statement: statement, shape) {
            (try $0.decode(First.self, at: 0), try $0.decode(Second.self, at: 1), try $0.decode(Third.self, at: 2))
        } split: {
            try JoinedRow(statement: $0, shape: shape, in: self)
        }
    }

    private func joinedRows<Output>(
        statement: Statement, _ shape: JoinShape, decode: (JoinedRow) throws -> Output,
        split: (Statement) throws -> JoinedRow
    ) throws -> [Output] {
        try runLeased(statement) { statement in
            var row: JoinedRow?
            var results: [Output] = []
            while try statement.next() != nil {
                // The columns are split at the first row: only then are they final (see `Statement.step`).
                if row == nil { row = try split(statement) }
                if let row { results.append(try decode(row)) }
            }
            return results
        }
    }
}

/// The models of a join: their tables, decoders, and which may be missing (the right side of a left join).
struct JoinShape {
    let tables: [String]
    let decoders: [RowDecoder]
    let optional: [Bool]

    init<First: Model, Second: Model>(_ first: First.Type, _ second: Second.Type, optional: [Bool] = [false, false]) {
        tables = [First.tableName, Second.tableName]
        decoders = [First.rowDecoder, Second.rowDecoder]
        self.optional = optional
    }

    init<First: Model, Second: Model, Third: Model>(_ first: First.Type, _ second: Second.Type, _ third: Third.Type) {
        tables = [First.tableName, Second.tableName, Third.tableName]
        decoders = [First.rowDecoder, Second.rowDecoder, Third.rowDecoder]
        optional = [false, false, false]
    }
}

/// One statement's rows seen as several models, each over its own columns.
struct JoinedRow {
    let statement: Statement
    let columns: [Range<Int32>]
    let decodings: [StatementDecoding]

    /// The row of hand-written SQL, split by the table each column comes from (see `split`).
    init(statement: Statement, shape: JoinShape, in database: Database) throws {
        try self.init(
            statement: statement, shape: shape, columns: try Self.split(statement, shape: shape, in: database))
    }

    /// The row of a join request, split at its separator columns (see `QueryRequest.joinedColumns`).
    init<Record: Model>(statement: Statement, shape: JoinShape, request: QueryRequest<Record>.Type) throws {
        let columns = try request.joinedColumns(
            names: statement.columnNames, tables: shape.tables.count, sql: statement.sql)
        try self.init(
            statement: statement, shape: shape, columns: columns.map { Int32($0.lowerBound)..<Int32($0.upperBound) })
    }

    private init(statement: Statement, shape: JoinShape, columns: [Range<Int32>]) throws {
        self.statement = statement
        self.columns = columns
        decodings = zip(shape.decoders, columns).map { $0.makeDecoding(for: statement, columns: $1) }
    }

    func decode<T: Model>(_ type: T.Type, at position: Int) throws -> T {
        try decodings[position].decodeRow(T.self)
    }

    /// The model at `position`, or nil when every one of its columns is NULL (a left join that matched no row).
    func decodeIfPresent<T: Model>(_ type: T.Type, at position: Int) throws -> T? {
        guard columns[position].contains(where: { !statement.isNull(at: $0) }) else { return nil }
        return try decode(T.self, at: position)
    }

    /// The columns of each table, by the table each column is read from (see `JoinedColumnSplit`). A model on a
    /// view, whose columns SQLite reports as its base table's, takes the first run no model took whose names are the
    /// view's columns.
    static func split(_ statement: Statement, shape: JoinShape, in database: Database) throws -> [Range<Int32>] {
        let split = JoinedColumnSplit(
            names: statement.columnNames,
            origins: (0..<Int32(statement.columnCount)).map { statement.originTable(at: $0)?.lowercased() })
        let columns = try split.columns(
            of: shape.tables.map { $0.lowercased() }, tableNames: shape.tables, sql: statement.sql
        ) { position in
            try database.fetchAll(
                String.self, query: "SELECT lower(name) FROM pragma_table_info(:table)",
                parameters: ["table": shape.tables[position]])
        }
        return columns.map { Int32($0.lowerBound)..<Int32($0.upperBound) }
    }
}

extension Statement {
    /// The table the result column at `index` is read from, nil for an expression.
    ///
    /// See https://www.sqlite.org/c3ref/column_database_name.html
    func originTable(at index: Int32) -> String? {
        sqlite3_column_table_name(handle, index).map { String(cString: $0) }
    }
}
