internal import PostgresNIO
public import StrataCore

extension PostgresSession {
    /// Inserts `model`. When its primary key is nil, the insert leaves the key to the column's default (a
    /// `serial`, `identity` or `DEFAULT gen_random_uuid()` column) and `model` is read back whole from the
    /// inserted row (`INSERT ... RETURNING *`), with the key and what defaults and triggers stored.
    ///
    /// ```swift
    /// var note = Note(id: nil, createdAt: Date(), content: "Hello")
    /// try await db.insert(&note)      // note.id is the key PostgreSQL assigned
    /// ```
    ///
    /// The SQL is Strata's record SQL in PostgreSQL's dialect: the same columns, from the model's coding keys
    /// through its key strategy, as on SQLite.
    ///
    /// - Throws: ``DatabaseError`` for a constraint violation (`model` is then unchanged);
    ///   ``DatabaseError/Code/recordNotInserted`` when no row was inserted (a rule or trigger skipped it).
    public func insert<T: Model>(_ model: inout T) async throws {
        let (record, values) = try recordStatements(for: model)
        if values[record.primaryKeyIndex] == .null {
            try await writeReadingBack(&model, record.insertDefaultingKeyReturning, values)
        } else {
            guard try await collect(record.insert.statement(values)).changes > 0 else {
                throw notInserted(T.self, sql: record.insert.original)
            }
        }
    }

    /// Updates the row whose primary key is `model`'s with every column of `model`.
    ///
    /// - Throws: ``DatabaseError/Code/recordNotFound`` when no row has that key.
    public func update<T: Model>(_ model: T) async throws {
        let (record, values) = try recordStatements(for: model)
        guard try await collect(record.update.statement(values)).changes > 0 else {
            throw DatabaseError(
                code: .recordNotFound,
                message: "could not update \(T.self): no row of \(T.tableName) has its \(T.primaryKey)",
                sql: record.update.original)
        }
    }

    /// Inserts `model`, or updates the row with its primary key when there is one
    /// (`INSERT ... ON CONFLICT (key) DO UPDATE SET col = EXCLUDED.col`). A nil primary key is assigned and read
    /// back as in ``insert(_:)``.
    public func upsert<T: Model>(_ model: inout T) async throws {
        let (record, values) = try recordStatements(for: model)
        if values[record.primaryKeyIndex] == .null {
            try await writeReadingBack(&model, record.upsertDefaultingKeyReturning, values)
        } else {
            try await collect(record.upsert.statement(values))
        }
    }

    /// Deletes the row with `model`'s primary key.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ model: T) async throws -> Bool {
        let (record, values) = try recordStatements(for: model)
        return try await collect(record.delete.statement(values)).changes > 0
    }

    /// Deletes the row of `type` whose primary key is `id`.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let sql = try PostgresStatementCache.table(for: T.self).deleteByID
        let statement = PostgresStatement(
            sql: sql, values: [try PostgresValue.make(convertible: id)], isRecordSQL: true)
        return try await collect(statement).changes > 0
    }

    /// The row of `type` whose primary key is `id`, or nil.
    ///
    /// ```swift
    /// let note = try await db.find(Note.self, id: 1)
    /// ```
    public func find<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) async throws -> T? {
        let sql = try PostgresStatementCache.table(for: T.self).find
        let statement = PostgresStatement(
            sql: sql, values: [try PostgresValue.make(convertible: id)], isRecordSQL: true)
        // One row at most, by its primary key: collected whole, in one wait for the server.
        guard let row = try await collect(statement).rows.first else { return nil }
        return try PostgresRowDecoder(RowDecoder(), for: T.self).decode(
            T.self, from: row, columns: PostgresColumns(row: row))
    }

    /// Every row of `type`'s table, in primary key order.
    public func fetchAll<T: Model>(_ type: T.Type) async throws -> [T] {
        let sql = try PostgresStatementCache.table(for: T.self).fetchAll
        return try await decodeAll(
            T.self, PostgresStatement(sql: sql, values: [], isRecordSQL: true), decoder: RowDecoder())
    }

    // MARK: Internal

    /// The statements of `model`'s type for the keys `model` encodes, cached per type, and its values in the order
    /// of those keys.
    private func recordStatements<T: Model>(for model: T) throws -> (PostgresRecordStatements, [PostgresValue]) {
        if let (keys, values) = PostgresRecordParameters.encode(model) ?? PostgresParameterEncoder.encodeRecord(model) {
            return (try PostgresStatementCache.record(for: T.self, keys: keys), values)
        }
        // A model the one-pass encoder cannot handle: the two passes below throw what is wrong with it.
        let (record, named) = try recordSQL(for: model)
        let values = try record.keys.map { key in
            guard let value = named[key] else {
                throw DatabaseError(
                    code: .unknownParameter, message: "no value for the parameter :\(key)", sql: record.insert)
            }
            return value
        }
        return (try PostgresStatementCache.record(for: T.self, keys: record.keys), values)
    }

    /// The record SQL of `model`'s type for the keys `model` encodes, and its values named by coding key.
    private func recordSQL<T: Model>(for model: T) throws -> (RecordSQL, [String: PostgresValue]) {
        let record = try RecordSQL(for: model, dialect: PostgresDialect())
        // Record SQL names each parameter after its coding key, not its column.
        return (record, try PostgresParameterEncoder().encode(model))
    }

    /// Runs an insert or upsert with `RETURNING *` and reads the row it wrote into `model`; a row that does not decode
    /// as `T` leaves nothing written (see `undoingWrite`).
    private func writeReadingBack<T: Model>(
        _ model: inout T, _ text: PostgresRecordStatements.Text, _ values: [PostgresValue]
    ) async throws {
        model = try await undoingWrite(if: true) { session in
            guard let row = try await session.collect(text.statement(values)).rows.first else {
                throw session.notInserted(T.self, sql: text.original)
            }
            return try PostgresRowDecoder(RowDecoder(), for: T.self).decode(
                T.self, from: row, columns: PostgresColumns(row: row))
        }
    }

    /// The error of an insert that inserted no row.
    private func notInserted<T: Model>(_ type: T.Type, sql: String) -> DatabaseError {
        DatabaseError(
            code: .recordNotInserted,
            message: "could not insert \(T.self): PostgreSQL inserted no row into \(T.tableName)",
            sql: sql)
    }
}

extension PostgresSession: DriverSession {}
