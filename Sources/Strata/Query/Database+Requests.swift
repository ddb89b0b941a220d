internal import CSQLite
import Foundation

extension Database {
    /// Every row of `request`, decoded as its model.
    ///
    /// ```swift
    /// let notes = try db.fetchAll(Note.filter(Column("mood") == "happy").order(Column("id")))
    /// ```
    ///
    /// The SQL is prepared once per connection and kept in its statement cache. Inlinable, as
    /// `fetchAll(_:query:parameters:decoder:)` is, so that the array of results is built by specialized code.
    @inlinable
    public func fetchAll<Record: Model>(_ request: QueryRequest<Record>) throws -> [Record] {
        try collect(statement: try preparedSelect(request)) {
            Record.rowDecoder.rowDecoder(Record.self, for: $0)
        } decode: {
            try $0()
        }
    }

    /// The first row of `request` decoded as its model, or nil.
    public func fetchOne<Record: Model>(_ request: QueryRequest<Record>) throws -> Record? {
        try fetchOne(Record.self, request, decoder: Record.rowDecoder)
    }

    /// The number of rows `request` returns.
    ///
    /// ```swift
    /// let happy = try db.fetchCount(Note.filter(Column("mood") == "happy"))
    /// ```
    public func fetchCount<Record: Model>(_ request: QueryRequest<Record>) throws -> Int {
        let count = request.renderCount(dialect: SQLiteDialect())
        let statement = try preparedRequest(count.rendered, failure: count.failure)
        return try runLeased(statement) { statement in
            guard try statement.next() != nil else { return 0 }
            return try statement.scalar(Int.self)
        }
    }

    /// A lazy cursor over the rows of `request`, decoding one model per ``FetchCursor/next()``.
    ///
    /// - Complexity: O(1) memory in the number of rows.
    public func fetchCursor<Record: Model>(_ request: QueryRequest<Record>) throws -> FetchCursor<Record> {
        let select = request.renderSelect(dialect: SQLiteDialect())
        if let failure = select.failure { throw failure.withSQL(select.sql) }
        // A cursor keeps its statement across calls: it gets one of its own.
        let statement = try prepare(query: select.sql)
        try statement.bind(select.rendered)
        let decoding = Record.rowDecoder.makeDecoding(for: statement)
        return FetchCursor(statement: statement) { _ in try decoding.decodeRow(Record.self) }
    }

    /// Deletes the rows of `request`.
    ///
    /// ```swift
    /// let deleted = try db.deleteAll(Note.filter(Column("id") > 100))
    /// ```
    ///
    /// - Returns: The number of rows deleted.
    @discardableResult
    public func deleteAll<Record: Model>(_ request: QueryRequest<Record>) throws -> Int {
        let renderer = request.renderDelete(
            returning: false, rowHandle: try rowHandle(for: request), dialect: SQLiteDialect())
        try preparedRequest(renderer.rendered, failure: renderer.failure).perform()
        return try changes
    }

    /// Deletes the rows of `request` and returns them as they were (`DELETE ... RETURNING *`).
    ///
    /// ```swift
    /// let expired = try db.deleteAndFetchAll(Session.filter(Column("expiresAt") < Date()))
    /// ```
    ///
    /// The rows come back in no set order: the request's order chooses the rows under a limit, but SQLite returns
    /// the rows of `RETURNING` in the order it deletes them.
    ///
    /// - **A row that does not decode rolls the delete or update back**: the error is thrown and no row is deleted.
    ///
    /// See https://www.sqlite.org/lang_returning.html
    public func deleteAndFetchAll<Record: Model>(_ request: QueryRequest<Record>) throws -> [Record] {
        try fetchWritten(
            request.renderDelete(returning: true, rowHandle: try rowHandle(for: request), dialect: SQLiteDialect()))
    }

    /// Sets `assignments` on the rows of `request`.
    ///
    /// ```swift
    /// let updated = try db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "happy"))
    /// ```
    ///
    /// - Returns: The number of rows changed.
    /// - Throws: `DatabaseError.Code.invalidArgument` without assignments.
    @discardableResult
    public func updateAll<Record: Model>(_ request: QueryRequest<Record>, _ assignments: ColumnAssignment...) throws
        -> Int
    {
        try checkDecimalAssignments(assignments, of: Record.self)
        let renderer = try request.renderUpdate(
            assignments, returning: false, rowHandle: try rowHandle(for: request), dialect: SQLiteDialect())
        try preparedRequest(renderer.rendered, failure: renderer.failure).perform()
        return try changes
    }

    /// Sets `assignments` on the rows of `request` and returns them as they are after the update
    /// (`UPDATE ... RETURNING *`).
    ///
    /// ```swift
    /// let claimed = try db.updateAndFetchAll(Job.filter(Column("claimedBy") == nil).limit(10),
    ///                                        Column("claimedBy").set(to: worker))
    /// ```
    ///
    /// The rows come back in no set order, as in ``deleteAndFetchAll(_:)``.
    ///
    /// - **A row that does not decode rolls the delete or update back**: the error is thrown and no row is changed.
    ///
    /// - Throws: `DatabaseError.Code.invalidArgument` without assignments.
    ///
    /// See https://www.sqlite.org/lang_returning.html
    public func updateAndFetchAll<Record: Model>(
        _ request: QueryRequest<Record>, _ assignments: ColumnAssignment...
    ) throws -> [Record] {
        try checkDecimalAssignments(assignments, of: Record.self)
        return try fetchWritten(
            request.renderUpdate(
                assignments, returning: true, rowHandle: try rowHandle(for: request), dialect: SQLiteDialect()))
    }

    /// The rows a rendered write returns, read as its model, atomically (see `collect`).
    private func fetchWritten<Record: Model>(
        _ renderer: (sql: String, rendered: RenderedSQL, failure: DatabaseError?)
    ) throws -> [Record] {
        try collect(statement: try preparedRequest(renderer.rendered, failure: renderer.failure)) {
            Record.rowDecoder.rowDecoder(Record.self, for: $0)
        } decode: {
            try $0()
        }
    }

    // MARK: Redirection

    /// Every row of `request` decoded as `T`, which reads the request's selection by its keys
    /// (name a selected expression with `forKey(_:)`).
    ///
    /// ```swift
    /// struct Stats: Decodable { var newest: Int64; var total: Int }
    /// let stats = try db.fetchAll(Stats.self, Note.select(max(Column("id")).forKey("newest"),
    ///                                                     count(Column("id")).forKey("total")))
    /// ```
    @_disfavoredOverload
    public func fetchAll<T: Decodable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) throws -> [T] {
        let statement = try preparedSelect(request)
        return try runLeased(statement) { statement in
            let decoding = decoder.forRows(of: T.self).makeDecoding(for: statement)
            var results: [T] = []
            while try statement.next() != nil {
                results.append(try decoding.decodeRow(T.self))
            }
            return results
        }
    }

    /// The first row of `request` decoded as `T`, or nil.
    @_disfavoredOverload
    public func fetchOne<T: Decodable>(
        _ type: T.Type, _ request: QueryRequest<some Model>, decoder: RowDecoder = RowDecoder()
    ) throws -> T? {
        let statement = try preparedSelect(request)
        return try runLeased(statement) { statement in
            guard try statement.next() != nil else { return nil }
            return try decoder.forRows(of: T.self).makeDecoding(for: statement).decodeRow(T.self)
        }
    }

    /// Every row of a one-column `request` as `T`.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchAll<T: DatabaseValueConvertible>(_ type: T.Type, _ request: QueryRequest<some Model>) throws
        -> [T]
    {
        try scalars(T.self, request)
    }

    /// The first row of a one-column `request` as `T`, or nil when there is no row, or when its value is NULL and
    /// `T` cannot hold NULL (the `max` of an empty table).
    ///
    /// ```swift
    /// let newest = try db.fetchOne(Int64.self, Note.select(max(Column("id"))))    // nil when there is no note
    /// ```
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchOne<T: DatabaseValueConvertible>(_ type: T.Type, _ request: QueryRequest<some Model>) throws
        -> T?
    {
        try scalar(T.self, request)
    }

    // MARK: Internal

    private func scalars<T: DatabaseValueConvertible>(_ type: T.Type, _ request: QueryRequest<some Model>) throws
        -> [T]
    {
        let statement = try preparedSelect(request)
        return try runLeased(statement) { statement in
            var results: [T] = []
            while try statement.next() != nil {
                results.append(try statement.scalar(T.self))
            }
            return results
        }
    }

    private func scalar<T: DatabaseValueConvertible>(_ type: T.Type, _ request: QueryRequest<some Model>) throws
        -> T?
    {
        let statement = try preparedSelect(request)
        return try runLeased(statement) { statement in
            guard try statement.next() != nil else { return nil }
            return try statement.firstScalar(T.self)
        }
    }

    /// What names each row of the request's table, for an `UPDATE` or `DELETE` that its own `WHERE` cannot choose
    /// the rows of (joins, an order, a limit): the rowid, under a name no column shadows, or the primary key of a
    /// `WITHOUT ROWID` table; nil when the table has neither (a view). Read from the schema each time, so that it
    /// cannot go stale; a request of filters alone reads nothing.
    ///
    /// See https://www.sqlite.org/rowidtable.html
    func rowHandle<Record: Model>(for request: QueryRequest<Record>) throws -> RowHandle? {
        guard !request.isFilterOnly else { return nil }
        let table = Record.tableName
        let columns = try fetchAll(
            TableColumn.self, query: "SELECT name, pk FROM pragma_table_xinfo(:table)", parameters: ["table": table])
        let names = Set(columns.map { $0.name.lowercased() })
        if let alias = ["rowid", "_rowid_", "oid"].first(where: { !names.contains($0) }),
            let handle = connection.handle,
            sqlite3_table_column_metadata(handle, nil, table, alias, nil, nil, nil, nil, nil) == SQLITE_OK
        {
            return .rowid(alias)
        }
        let key = columns.filter { $0.pk > 0 }.sorted { $0.pk < $1.pk }.map(\.name)
        return key.isEmpty ? nil : .key(key)
    }

    /// Throws when an assignment sets a Decimal with more significant digits than a REAL keeps into a column with
    /// INTEGER, REAL or NUMERIC affinity, which would keep 15 of them (see `checkDecimalColumns`).
    func checkDecimalAssignments<Record: Model>(_ assignments: [ColumnAssignment], of type: Record.Type) throws {
        for assignment in assignments {
            guard let decimal = assignment.value.boundValue as? Decimal, decimal.hasMoreDigitsThanAREAL else {
                continue
            }
            try checkDecimalColumn(assignment.column, of: Record.tableName, sql: nil)
        }
    }

    /// The request's SELECT, prepared (from the connection's cache) and bound.
    @usableFromInline
    func preparedSelect(_ request: QueryRequest<some Model>) throws -> Statement {
        let select = request.renderSelect(dialect: SQLiteDialect())
        return try preparedRequest(select.rendered, failure: select.failure)
    }

    /// The cached statement of `rendered`, bound; `failure` is thrown first, naming the SQL.
    func preparedRequest(_ rendered: RenderedSQL, failure: DatabaseError?) throws -> Statement {
        if let failure { throw failure.withSQL(rendered.sql) }
        let statement = try cachedStatement(for: rendered.sql)
        try statement.bind(rendered)
        return statement
    }

    /// Runs `body` with `statement` marked in use (a nested fetch of the same SQL prepares its own), then resets it.
    ///
    /// Inlinable and always inlined: the fetches that run rows through it are specialized for their row type.
    @inlinable @inline(__always)
    func runLeased<Result>(_ statement: Statement, _ body: (Statement) throws -> Result) throws -> Result {
        statement.isLeased = true
        defer {
            statement.isLeased = false
            statement.reset()
        }
        return try body(statement)
    }
}

/// A column of `pragma_table_xinfo`: its name, and its position in the primary key (0 outside it).
private struct TableColumn: Decodable {
    var name: String
    var pk: Int
}

extension Statement {
    /// Binds a rendered request: `?` placeholders in order, named parameters of raw fragments by name; every
    /// parameter gets a value or this throws, so none keeps one from the statement's last use.
    func bind(_ rendered: RenderedSQL) throws {
        prepareForBinding(clearing: false)
        var positional = rendered.positional.makeIterator()
        let count = Int32(parameterCount)
        guard count > 0 else { return }
        for index in 1...count {
            let name = sqlite3_bind_parameter_name(handle, index).map { String(cString: $0) }
            let value: SQLValue?
            if let name, let first = name.unicodeScalars.first, first != "?" {
                value = rendered.named[String(name.unicodeScalars.dropFirst())]
            } else {
                value = positional.next()
            }
            guard let value else { throw DatabaseError.noValue(forParameter: index, of: handle, sql: sql) }
            try bind(value: value.value, at: Int(index))
        }
    }
}

extension DatabaseError {
    /// The refusal of parameter `index` (from 1) of the prepared `statement`, which has no value: named as the SQL
    /// writes it (`:mood`, `?2`), or by its index.
    static func noValue(forParameter index: Int32, of statement: OpaquePointer, sql: String?) -> DatabaseError {
        let name = sqlite3_bind_parameter_name(statement, index).map { String(cString: $0) }
        return DatabaseError(
            code: .unknownParameter, message: "no value for the parameter \(name ?? "at index \(index)")", sql: sql)
    }
}
