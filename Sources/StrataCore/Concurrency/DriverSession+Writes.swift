extension DriverSession {
    /// Deletes the rows of `request`.
    ///
    /// ```swift
    /// let deleted = try await db.deleteAll(Note.filter(Column("id") > 100))
    /// ```
    ///
    /// A request with joins, an order or a limit deletes the rows it selects (`key IN (SELECT ...)`).
    ///
    /// - Returns: The number of rows deleted.
    @discardableResult
    public func deleteAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> Int {
        let handle = try await rowHandle(of: request)
        return try await execute(
            try rendered(request.renderDelete(returning: false, rowHandle: handle, dialect: dialect)))
    }

    /// Deletes the rows of `request` and returns them as they were (`DELETE ... RETURNING *`).
    ///
    /// ```swift
    /// let expired = try await db.deleteAndFetchAll(Note.filter(Column("mood") == "sad"))
    /// ```
    ///
    /// The rows come back in no set order: the request's order chooses the rows under a limit. A row that does not
    /// decode throws and fails the `write` it runs in, which rolls the delete back even when the body catches the
    /// error; outside a write, the delete runs in a transaction of its own and is rolled back.
    public func deleteAndFetchAll<Record: Model>(_ request: QueryRequest<Record>) async throws -> [Record] {
        let handle = try await rowHandle(of: request)
        let delete = try rendered(request.renderDelete(returning: true, rowHandle: handle, dialect: dialect))
        return try await fetchAll(Record.self, delete, decoder: RowDecoder())
    }

    /// Sets `assignments` on the rows of `request`.
    ///
    /// ```swift
    /// let updated = try await db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "happy"))
    /// ```
    ///
    /// - Returns: The number of rows changed.
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    @discardableResult
    public func updateAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...)
        async throws -> Int
    {
        let handle = try await rowHandle(of: request)
        return try await execute(
            try rendered(request.renderUpdate(assignments, returning: false, rowHandle: handle, dialect: dialect)))
    }

    /// Sets `assignments` on the rows of `request` and returns them as they are after the update
    /// (`UPDATE ... RETURNING *`).
    ///
    /// ```swift
    /// let calmed = try await db.updateAndFetchAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "calm"))
    /// ```
    ///
    /// The rows come back in no set order, as in ``deleteAndFetchAll(_:)``, and a row that does not decode rolls the
    /// update back as it rolls a delete back there.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    public func updateAndFetchAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...)
        async throws -> [Record]
    {
        let handle = try await rowHandle(of: request)
        let update = try rendered(
            request.renderUpdate(assignments, returning: true, rowHandle: handle, dialect: dialect))
        return try await fetchAll(Record.self, update, decoder: RowDecoder())
    }

    /// What names the rows of `request` for its `UPDATE` or `DELETE`: nothing for a request of filters alone, whose
    /// own `WHERE` chooses them.
    private func rowHandle<Record: Model>(of request: QueryRequest<Record>) async throws -> RowHandle? {
        request.isFilterOnly ? nil : try await rowHandle(of: Record.self)
    }

    /// The rendered statement of a request's write, or the failure of its rendering, naming its SQL.
    private func rendered(_ write: (sql: String, rendered: RenderedSQL, failure: DatabaseError?)) throws
        -> RenderedSQL
    {
        if let failure = write.failure { throw failure.withSQL(write.sql) }
        return write.rendered
    }
}
