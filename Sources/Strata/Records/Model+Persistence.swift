extension Database {
    /// Inserts `model`. When its primary key is nil, the key SQLite assigns (the new rowid of an
    /// `INTEGER PRIMARY KEY`) is written back into `model`, with any column defaults.
    ///
    /// Repeated inserts of one type reuse one cached prepared statement.
    ///
    /// - Throws: ``DatabaseError`` for a constraint violation (`model` is then unchanged).
    public func insert<T: Model>(_ model: inout T) throws {
        let (statement, encoding, record) = try encodeRecord(model, statement: .insert, watchPrimaryKey: true)
        try statement.perform()
        if encoding.watchedWasNull {
            model = try reloadInserted(T.self, record: record)
        }
    }

    /// Inserts `model`, leaving a nil primary key for SQLite to assign. Use ``insert(_:)`` with
    /// `inout` to read the assigned key back.
    public func insert<T: Model>(_ model: T) throws {
        var copy = model
        try insert(&copy)
    }

    /// Updates the row whose primary key is `model`'s with every column of `model`.
    ///
    /// - Throws: ``DatabaseError/Code/recordNotFound`` when no row has that key.
    public func update<T: Model>(_ model: T) throws {
        let (statement, _, _) = try encodeRecord(model, statement: .update)
        try statement.perform()
        guard changes > 0 else {
            throw DatabaseError(
                code: .recordNotFound,
                message: "could not update \(T.self): no row of \(T.tableName) has its \(T.primaryKey)",
                sql: statement.sql)
        }
    }

    /// Inserts `model`, or updates the row with its primary key when there is one
    /// (`INSERT ... ON CONFLICT DO UPDATE`). A nil primary key is assigned as in ``insert(_:)``.
    public func upsert<T: Model>(_ model: inout T) throws {
        let (statement, encoding, record) = try encodeRecord(model, statement: .upsert, watchPrimaryKey: true)
        try statement.perform()
        if encoding.watchedWasNull {
            model = try reloadInserted(T.self, record: record)
        }
    }

    /// Deletes the row with `model`'s primary key.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ model: T) throws -> Bool {
        let (statement, _, _) = try encodeRecord(model, statement: .delete, allKeys: false)
        try statement.perform()
        return changes > 0
    }

    /// Deletes the row of `type` whose primary key is `id`.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) throws -> Bool {
        let statement = try cachedStatement(for: try tableSQL(for: T.self).deleteByID)
        try statement.bind(value: id, at: 1)
        try statement.perform()
        return changes > 0
    }

    /// The row just inserted, read back by its rowid.
    private func reloadInserted<T: Model>(_ type: T.Type, record: RecordSQL) throws -> T {
        let statement = try record.statement(.selectByRowID, in: self)
        defer { statement.reset() }
        try statement.bind(value: lastInsertedId, at: 1)
        guard let row = try statement.next() else {
            throw DatabaseError(
                code: .recordNotFound, message: "the inserted \(T.tableName) row could not be read back",
                sql: statement.sql)
        }
        return try T.rowDecoder.decode(T.self, from: row)
    }
}
