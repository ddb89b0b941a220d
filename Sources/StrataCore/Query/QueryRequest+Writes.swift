/// What names each row of a table, so that an `UPDATE` or `DELETE` changes exactly the rows a request with joins,
/// an order or a limit selects (`WHERE key IN (SELECT key ...)`): a backend reads it from its catalog (see
/// ``DriverSession/rowHandle(of:)``).
public enum RowHandle: Sendable, Equatable {
    /// SQLite's rowid, under the name given (`rowid`, `_rowid_` or `oid`: one that no column shadows).
    case rowid(String)
    /// The columns of a unique key whose columns are never NULL: the table's primary key.
    case key([String])
}

extension QueryRequest {
    /// `DELETE FROM` the request's table in `dialect`, for its rows, with `RETURNING *` when `returning` is set.
    ///
    /// `rowHandle` names each row when the request's own `WHERE` cannot choose them (``isFilterOnly`` is false);
    /// nil there fails the request, naming what is missing.
    package func renderDelete(returning: Bool, rowHandle: RowHandle?, dialect: any SQLDialect) -> (
        sql: String, rendered: RenderedSQL, failure: DatabaseError?
    ) {
        var renderer = makeRenderer(dialect: dialect)
        renderer.append("DELETE FROM ")
        renderer.appendIdentifier(Record.tableName)
        appendRowSelection(to: &renderer, rowHandle: rowHandle)
        if returning { renderer.append(renderer.dialect.returningAllColumns) }
        return (renderer.sql, renderer.rendered, renderer.failure)
    }

    /// `UPDATE` the request's table in `dialect` with `assignments`, for its rows, with `RETURNING *` when
    /// `returning` is set.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` without assignments.
    package func renderUpdate(
        _ assignments: [ColumnAssignment], returning: Bool, rowHandle: RowHandle?, dialect: any SQLDialect
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
        appendRowSelection(to: &renderer, rowHandle: rowHandle)
        if returning { renderer.append(renderer.dialect.returningAllColumns) }
        return (renderer.sql, renderer.rendered, renderer.failure)
    }

    /// The `WHERE` of a `DELETE` or `UPDATE` of the request's rows: its own filters when that is all it has,
    /// otherwise `handle IN (the handles of the request's rows)`, so that joins, order and limit choose exactly the
    /// rows a fetch would. The model's primary key alone is not enough: it may be one column of a longer key.
    func appendRowSelection(to renderer: inout SQLRenderer, rowHandle: RowHandle?) {
        if isFilterOnly {
            appendWhere(to: &renderer)
            return
        }
        let columns: [String]
        switch rowHandle {
        case .rowid(let name):
            columns = [name]
        case .key(let key) where !key.isEmpty:
            columns = key.map { renderer.quoted($0) }
        case .key, nil:
            renderer.fail(
                "cannot change the rows of a request with joins, an order or a limit on \(Record.tableName): it has "
                    + "no primary key (and no rowid) to name them by")
            columns = [renderer.quoted(Record.primaryKeyColumn)]
        }
        let own = ownTable
        let selected = columns.map { "\(own).\($0)" }.joined(separator: ", ")
        let target = columns.count == 1 ? columns[0] : "(" + columns.joined(separator: ", ") + ")"
        renderer.append(" WHERE \(target) IN (SELECT \(selected) FROM ")
        renderer.appendIdentifier(Record.tableName)
        appendBody(to: &renderer)
        renderer.append(")")
    }
}
