// The hot reads of a generated record in code specialized for it: the model's generated `init(row:)` is called
// directly, row after row. The generic paths (`fetchOne`, `fetchCursor`, `RowDecoder.decode`, joins...) read the
// same columns through the same generated code, found once per call.

extension Database {
    /// Every row of `query` read as `T` by its generated reader (see `GeneratedRecord`).
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
        let decoding = try finder(for: T.self)
        return try runLeased(decoding.statement) { statement in
            try statement.bindKey(id)
            guard try statement.advance() else { return nil }
            return try T(row: decoding.recordRow(T.self))
        }
    }
}

// The writes of a generated record, whose generated writer is called here, in code specialized for it, on the
// value where it is: generic code would copy it first. A model with a key takes a lean pass (`writeGenerated`); a
// nil key, whose row is read back through `RETURNING`, takes the path of every model.

extension Database {
    /// Inserts `model` through its generated writer, as `insert(_:)` of any model does.
    @inlinable
    public func insert<T: GeneratedRecord>(_ model: inout T) throws {
        if try !insertGenerated(model, bind: { try $0.encode(to: $1) }) {
            try insert(&model, bind: { try $0.encode(to: $1) })
        }
    }

    /// Inserts `model` through its generated writer, leaving a nil primary key for SQLite to assign.
    @inlinable
    public func insert<T: GeneratedRecord>(_ model: T) throws {
        if try !insertGenerated(model, bind: { try $0.encode(to: $1) }) {
            var copy = model
            try insert(&copy, bind: { try $0.encode(to: $1) })
        }
    }

    /// Updates the row of `model` through its generated writer.
    @inlinable
    public func update<T: GeneratedRecord>(_ model: T) throws {
        if try !updateGenerated(model, bind: { try $0.encode(to: $1) }) {
            try update(model, bind: { try $0.encode(to: $1) })
        }
    }

    /// Inserts or updates `model` through its generated writer.
    @inlinable
    public func upsert<T: GeneratedRecord>(_ model: inout T) throws {
        if try !upsertGenerated(model, bind: { try $0.encode(to: $1) }) {
            try upsert(&model, bind: { try $0.encode(to: $1) })
        }
    }

    /// Inserts or updates `model` through its generated writer, when the row as written is not needed.
    @inlinable
    public func upsert<T: GeneratedRecord>(_ model: T) throws {
        var written = model
        try upsert(&written)
    }
}

extension Database {
    /// Inserts every model of `models` in one transaction through its generated writer, and writes the primary key
    /// SQLite assigns into each model whose key was nil, as `insert(contentsOf: &models)` of any model does.
    @inlinable
    public func insert<T: GeneratedRecord>(contentsOf models: inout [T]) throws {
        try insert(contentsOf: &models) { model, decoding in
            try self.insertGeneratedRow(model, decoding: &decoding) { try $0.encode(to: $1) }
        }
    }

    /// Inserts every model of `models` in one transaction through its generated writer, leaving nil primary keys
    /// for SQLite to assign.
    @inlinable
    public func insert<T: GeneratedRecord>(contentsOf models: some Sequence<T>) throws {
        try insert(contentsOf: models) { model, decoding in
            try self.insertGeneratedRow(model, decoding: &decoding) { try $0.encode(to: $1) }
        }
    }
}

extension Database {
    /// The insert of one row of a batch, inside its transaction: the lean pass of a model with a key, otherwise
    /// `insertRow(_:bind:decoding:)`.
    ///
    /// - Returns: The row read back when the key was nil.
    @usableFromInline
    func insertGeneratedRow<T: GeneratedRecord>(
        _ model: T, decoding: inout StatementDecoding?, bind: @escaping GeneratedBinding<T>
    ) throws -> T? {
        if try insertGenerated(model, bind: bind) { return nil }
        return try insertRow(model, bind: bind, decoding: &decoding)
    }

    /// The lean `insert` of a model with a key; false, with nothing written, when `insert(_:bind:)` must run instead.
    @usableFromInline
    func insertGenerated<T: GeneratedRecord>(_ model: T, bind: GeneratedBinding<T>) throws -> Bool {
        guard let statement = try writeGenerated(model, .insert, bind: bind) else { return false }
        try checkInserted(T.self, by: statement)
        return true
    }

    /// The lean `update`; false, with nothing written, when `update(_:bind:)` must run instead.
    @usableFromInline
    func updateGenerated<T: GeneratedRecord>(_ model: T, bind: GeneratedBinding<T>) throws -> Bool {
        guard let statement = try writeGenerated(model, .update, bind: bind) else { return false }
        try checkUpdated(T.self, by: statement)
        return true
    }

    /// The lean `upsert` of a model with a key; false, with nothing written, when `upsert(_:bind:)` must run instead.
    @usableFromInline
    func upsertGenerated<T: GeneratedRecord>(_ model: T, bind: GeneratedBinding<T>) throws -> Bool {
        try writeGenerated(model, .upsert, bind: bind) != nil
    }

    /// Binds `model` into its type's `kind` statement through its generated writer and runs it: the pass of
    /// `encodeRecord` without its set-up, on the statement, encoding and parameter slots the type's `RecordSQL` keeps.
    ///
    /// - Returns: The statement that ran; nil, with nothing run, when the write must take the path of every model:
    ///   a nil primary key (this one's, or the last write's of the type, so that a batch of new models binds once
    ///   each), or a key the statement has no parameter for.
    func writeGenerated<T: GeneratedRecord>(
        _ model: T, _ kind: RecordStatements.Kind, bind: GeneratedBinding<T>
    ) throws -> Statement? {
        let record = try recordSQL(for: T.self)
        let watched = kind == .update ? 0 : record.insertPrimaryKeyParameter
        if watched != 0, record.lastKeyWasNil { return nil }
        let encoding = try record.generatedEncoding(kind, in: self)
        let pass = encoding.pass
        let binder = pass.binder
        let statement = binder.statement
        // A value whose conversion writes a model of this type gets a statement of its own.
        statement.isLeased = true
        defer { statement.isLeased = false }
        statement.prepareForBinding(clearing: false)
        pass.begin(forRecord: true)
        binder.begin(watching: watched, forRecord: true)
        try pass.encodeKeyed(model) { try bind($0, pass.recordParameters(for: T.self)) }
        guard pass.boundExactly else { return nil }
        if !binder.preciseDecimalParameters.isEmpty {
            try checkDecimalColumns(binder.preciseDecimalParameters, of: statement, record, T.self)
        }
        if binder.watchedWasNull {
            record.lastKeyWasNil = true
            return nil
        }
        try statement.perform()
        return statement
    }
}
