extension Database {
    /// The model of `type` whose primary key is `id`, or nil.
    ///
    /// ```swift
    /// let note = try db.find(Note.self, id: 1)
    /// let user = try db.find(User.self, id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
    /// ```
    public func find<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) throws -> T? {
        let decoding = try finder(for: T.self)
        return try runLeased(decoding.statement) { statement in
            try statement.bind(value: id, at: 1)
            guard try statement.advance() else { return nil }
            return try decoding.decodeRow(T.self)
        }
    }

    /// Every model of `type`, in primary key order.
    public func fetchAll<T: Model>(_ type: T.Type) throws -> [T] {
        try fetchAll(T.self, query: try tableSQL(for: T.self).fetchAll, decoder: T.rowDecoder)
    }

    /// The models of `type` matching an SQL condition written with interpolation, in primary key order: each
    /// interpolated value is bound, never spliced (see `SQL`).
    ///
    /// ```swift
    /// let mine = try db.fetchAll(Note.self, where: "author_id = \(authorID)")
    /// ```
    public func fetchAll<T: Model>(_ type: T.Type, where condition: SQL) throws -> [T] {
        try fetchAll(QueryRequest<T>.matching(condition))
    }

    /// The first model of `type` matching an SQL condition written with interpolation, in primary key order, or
    /// nil.
    public func fetchOne<T: Model>(_ type: T.Type, where condition: SQL) throws -> T? {
        try fetchOne(QueryRequest<T>.matching(condition))
    }

    /// The number of rows of `type` matching an SQL condition written with interpolation.
    public func count<T: Model>(_ type: T.Type, where condition: SQL) throws -> Int {
        try fetchCount(T.filter(condition))
    }

    /// The models of `type` matching an SQL condition, in primary key order.
    ///
    /// ```swift
    /// let recent = try db.fetchAll(Note.self, where: "created_at > :since", parameters: ["since": yesterday])
    /// ```
    ///
    /// Values go in `parameters`, never into the condition's text. A condition written as a literal, with or
    /// without interpolation, is `SQL` (the form above): this form takes a `String` only with
    /// `parameters`, or from a variable.
    @_disfavoredOverload
    public func fetchAll<T: Model>(
        _ type: T.Type, where condition: String, parameters: (any Encodable)? = nil
    ) throws -> [T] {
        try fetchAll(T.self, where: condition, QueryParameters(parameters))
    }

    /// The models of `type` matching an SQL condition, with parameters of any storable types.
    public func fetchAll<T: Model>(
        _ type: T.Type, where condition: String, parameters: [String: (any DatabaseValueConvertible)?]
    ) throws -> [T] {
        try fetchAll(T.self, where: condition, .values(parameters))
    }

    /// The first model of `type` matching an SQL condition, or nil.
    @_disfavoredOverload
    public func fetchOne<T: Model>(
        _ type: T.Type, where condition: String, parameters: (any Encodable)? = nil
    ) throws -> T? {
        try fetchOne(T.self, where: condition, QueryParameters(parameters))
    }

    /// The first model of `type` matching an SQL condition, with parameters of any storable types.
    public func fetchOne<T: Model>(
        _ type: T.Type, where condition: String, parameters: [String: (any DatabaseValueConvertible)?]
    ) throws -> T? {
        try fetchOne(T.self, where: condition, .values(parameters))
    }

    /// The number of rows of `type`, optionally matching an SQL condition.
    @_disfavoredOverload
    public func count<T: Model>(
        _ type: T.Type, where condition: String? = nil, parameters: (any Encodable)? = nil
    ) throws -> Int {
        try count(T.self, where: condition, QueryParameters(parameters))
    }

    /// The number of rows of `type` matching an SQL condition, with parameters of any storable types.
    public func count<T: Model>(
        _ type: T.Type, where condition: String, parameters: [String: (any DatabaseValueConvertible)?]
    ) throws -> Int {
        try count(T.self, where: condition, .values(parameters))
    }

    /// The models of `type` matching an SQL condition, in primary key order, with `SQLArguments`: the
    /// `DatabaseSession` form, as on PostgreSQL.
    public func fetchAll<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments) throws -> [T] {
        try fetchAll(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    /// The first model of `type` matching an SQL condition, or nil, with `SQLArguments`.
    public func fetchOne<T: Model>(_ type: T.Type, where condition: String, parameters: SQLArguments) throws -> T? {
        try fetchOne(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    /// The number of rows of `type`, matching an SQL condition when there is one, with `SQLArguments`.
    public func count<T: Model>(_ type: T.Type, where condition: String?, parameters: SQLArguments) throws -> Int {
        try fetchCount(QueryRequest<T>.matching(condition, parameters: parameters))
    }

    // MARK: Internal

    private func fetchAll<T: Model>(_ type: T.Type, where condition: String, _ parameters: QueryParameters) throws
        -> [T]
    {
        let table = try tableSQL(for: T.self)
        let sql = "SELECT * FROM \(table.table) WHERE \(condition) ORDER BY \(table.primaryKey)"
        return try collect(query: sql, parameters: parameters) {
            T.rowDecoder.makeDecoding(for: $0)
        } decode: {
            try $0.decodeRow(T.self)
        }
    }

    private func fetchOne<T: Model>(_ type: T.Type, where condition: String, _ parameters: QueryParameters) throws
        -> T?
    {
        let table = try tableSQL(for: T.self)
        let sql = "SELECT * FROM \(table.table) WHERE \(condition) ORDER BY \(table.primaryKey) LIMIT 1"
        return try first(query: sql, parameters: parameters) {
            try T.rowDecoder.makeDecoding(for: $0).decodeRow(T.self)
        }
    }

    private func count<T: Model>(_ type: T.Type, where condition: String?, _ parameters: QueryParameters) throws -> Int
    {
        var sql = "SELECT count(*) FROM \(try tableSQL(for: T.self).table)"
        if let condition { sql += " WHERE \(condition)" }
        return try first(query: sql, parameters: parameters) { try $0.scalar(Int.self) } ?? 0
    }
}
