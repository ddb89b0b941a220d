// The hot reads of a generated record in code specialized for it: the model's generated `init(row:)` is called
// directly, row after row. The generic paths (`fetchOne`, `fetchCursor`, `RowDecoder.decode`, joins...) read the
// same columns through the same generated code, found once per call.

extension Database {
    /// Every row of `query` read as `T` by its generated reader (see ``GeneratedRecord``).
    @inlinable
    public func fetchAll<T: GeneratedRecord>(
        _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder = RowDecoder()
    ) throws -> [T] {
        try collect(query: query, parameters: QueryParameters(parameters)) {
            decoder.forRows(of: T.self).makeDecoding(for: $0)
        } decode: {
            try T(row: $0.recordRow(T.self))
        }
    }

    /// Every row of `request` read by its model's generated reader.
    @inlinable
    public func fetchAll<Record: GeneratedRecord>(_ request: QueryRequest<Record>) throws -> [Record] {
        try collect(statement: try preparedSelect(request)) {
            Record.rowDecoder.makeDecoding(for: $0)
        } decode: {
            try Record(row: $0.recordRow(Record.self))
        }
    }

    /// The model of `type` whose primary key is `id`, read by its generated reader, or nil.
    @inlinable
    public func find<T: GeneratedRecord>(_ type: T.Type, id: some DatabaseValueConvertible) throws -> T? {
        let (statement, decoding) = try tableSQL(for: T.self).finder(for: T.self, in: self)
        return try runLeased(statement) { statement in
            try statement.bind(value: id, at: 1)
            guard try statement.advance() else { return nil }
            return try T(row: decoding.recordRow(T.self))
        }
    }
}

// The writes of a generated record, whose generated writer is called here, in code specialized for it, on the
// value where it is: generic code would copy it first.

extension Database {
    /// Inserts `model` through its generated writer, as `insert(_:)` of any model does.
    @inlinable
    public func insert<T: GeneratedRecord>(_ model: inout T) throws {
        try insert(&model, bind: { try $0.encode(to: $1) })
    }

    /// Inserts `model` through its generated writer, leaving a nil primary key for SQLite to assign.
    @inlinable
    public func insert<T: GeneratedRecord>(_ model: T) throws {
        var copy = model
        try insert(&copy, bind: { try $0.encode(to: $1) })
    }

    /// Updates the row of `model` through its generated writer.
    @inlinable
    public func update<T: GeneratedRecord>(_ model: T) throws {
        try update(model, bind: { try $0.encode(to: $1) })
    }

    /// Inserts or updates `model` through its generated writer.
    @inlinable
    public func upsert<T: GeneratedRecord>(_ model: inout T) throws {
        try upsert(&model, bind: { try $0.encode(to: $1) })
    }
}
