extension QueryRequest {
    /// `DELETE FROM` the request's table in `dialect`, for its rows, with `RETURNING *` when `returning` is set.
    package func renderDelete(returning: Bool, dialect: any SQLDialect = SQLiteDialect()) -> (
        sql: String, rendered: RenderedSQL, failure: DatabaseError?
    ) {
        var renderer = makeRenderer(dialect: dialect)
        renderer.append("DELETE FROM ")
        renderer.appendIdentifier(Record.tableName)
        appendRowSelection(to: &renderer)
        if returning { renderer.append(renderer.dialect.returningAllColumns) }
        return (renderer.sql, renderer.rendered, renderer.failure)
    }

    /// `UPDATE` the request's table in `dialect` with `assignments`, for its rows, with `RETURNING *` when
    /// `returning` is set.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    package func renderUpdate(
        _ assignments: [ColumnAssignment], returning: Bool, dialect: any SQLDialect = SQLiteDialect()
    ) throws -> (sql: String, rendered: RenderedSQL, failure: DatabaseError?) {
        guard !assignments.isEmpty else {
            let name = returning ? "updateAndFetchAll" : "updateAll"
            throw DatabaseError(code: .invalidArgument, message: "\(name) needs at least one column to set")
        }
        var renderer = makeRenderer(dialect: dialect)
        renderer.append("UPDATE ")
        renderer.appendIdentifier(Record.tableName)
        renderer.append(" SET ")
        for (offset, assignment) in assignments.enumerated() {
            if offset > 0 { renderer.append(", ") }
            renderer.appendIdentifier(assignment.column)
            renderer.append(" = ")
            renderer.append(assignment.value.node)
        }
        appendRowSelection(to: &renderer)
        if returning { renderer.append(renderer.dialect.returningAllColumns) }
        return (renderer.sql, renderer.rendered, renderer.failure)
    }

    /// The `WHERE` of a `DELETE` or `UPDATE` of the request's rows: its own filters when that is all it has,
    /// otherwise `primary key IN (the request's rows)`, so that joins, order and limit choose the rows as they do
    /// in a fetch. The primary key, not SQLite's `rowid`, so that it works on `WITHOUT ROWID` tables and in any
    /// dialect.
    func appendRowSelection(to renderer: inout SQLRenderer) {
        if isFilterOnly {
            appendWhere(to: &renderer)
            return
        }
        let key = renderer.quoted(Record.primaryKeyColumn)
        renderer.append(" WHERE \(key) IN (SELECT \(ownTable).\(key) FROM ")
        renderer.appendIdentifier(Record.tableName)
        appendBody(to: &renderer)
        renderer.append(")")
    }
}
