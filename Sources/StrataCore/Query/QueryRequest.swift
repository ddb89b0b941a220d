/// A query on one model's table, built step by step and run by a `Database` method: nothing runs until then.
///
/// ```swift
/// let request = Note
///     .filter(Column("mood") == "happy" && Column("archivedAt") == nil)
///     .filter(Column("content").like("%swift%"))
///     .order(Column("createdAt").desc, Column("id"))
///     .limit(10, offset: 20)
/// let notes = try db.fetchAll(request)
/// print(request.sql)       // SELECT "note".* FROM "note" WHERE ... ORDER BY ... LIMIT ? OFFSET ?
/// ```
///
/// A request is a `Sendable` value: build it once and run it on any connection, in any task. Columns without a
/// table are the model's own and are qualified with its table name, so a join never makes them ambiguous.
/// Values are always bound parameters; identifiers are quoted with embedded `"` doubled.
public struct QueryRequest<Record: Model>: Sendable {
    var selection: [SQLSelection] = []
    var filters: [SQLExpression.Node] = []
    var groupings: [SQLExpression.Node] = []
    var havings: [SQLExpression.Node] = []
    var orderings: [SQLOrdering] = []
    var limit: Int?
    var offset: Int?
    var joins: [JoinClause] = []

    init() {}

    /// The request with `predicate` added: chained filters are joined by `AND`.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        var copy = self
        copy.filters.append(predicate.sqlExpression.node)
        return copy
    }

    /// The request with a raw SQL condition added; its values are bound, by `:name` or positional `?`.
    ///
    /// ```swift
    /// Note.all().filter(sql: "length(content) > :n", parameters: ["n": 3])
    /// ```
    public func filter(sql: String, parameters: SQLArguments = [:]) -> Self {
        filter(SQLExpression(sql: sql, parameters: parameters))
    }

    /// The request with a raw SQL condition added, written with interpolation: each interpolated value is bound,
    /// never spliced (see ``SQL``).
    ///
    /// ```swift
    /// let minimum = 3
    /// Note.all().filter("length(content) > \(minimum)")
    /// ```
    public func filter(_ sql: SQL) -> Self {
        filter(SQLExpression(sql))
    }

    /// The request sorted by `orderings`, replacing any earlier order.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        var copy = self
        copy.orderings = orderings.map(\.orderingExpression)
        return copy
    }

    /// At most `count` rows, after skipping `offset`.
    ///
    /// A negative count or offset throws ``DatabaseError/Code/invalidArgument`` when the request runs.
    public func limit(_ count: Int, offset: Int? = nil) -> Self {
        var copy = self
        copy.limit = count
        copy.offset = offset
        return copy
    }

    /// The request selecting `selection` instead of the model's columns: decode it with
    /// `db.fetchAll(T.self, request)` into the type that reads those keys.
    ///
    /// ```swift
    /// let newest = try db.fetchOne(Int64.self, Note.select(max(Column("id"))))
    /// ```
    public func select(_ selection: any SQLSelectable...) -> Self {
        var copy = self
        copy.selection = selection.map(\.selection)
        return copy
    }

    /// `GROUP BY expressions`.
    public func group(_ expressions: any SQLSpecificExpressible...) -> Self {
        var copy = self
        copy.groupings = expressions.map(\.sqlExpression.node)
        return copy
    }

    /// `HAVING predicate`, the filter of groups; chained `having` calls are joined by `AND`.
    public func having(_ predicate: some SQLSpecificExpressible) -> Self {
        var copy = self
        copy.havings.append(predicate.sqlExpression.node)
        return copy
    }

    /// The SQL the request runs on the backend that speaks `dialect`: the text that backend sends, placeholders
    /// and all, for logs and tests. The values are bound apart from it and never appear in it.
    ///
    /// ```swift
    /// let request = Note.filter(Column("mood") == "happy").order(Column("createdAt").desc).limit(10)
    /// print(request.sql(for: PostgresDialect()))
    /// // SELECT "note".* FROM "note" WHERE "note"."mood" = $1 ORDER BY "note"."createdAt" DESC NULLS LAST LIMIT $2
    /// ```
    ///
    /// A request that cannot run (a negative limit, an identifier with a NUL character) still shows its text; it
    /// throws when it runs.
    public func sql(for dialect: some SQLDialect) -> String {
        Self.statementText(renderSelect(dialect: dialect), dialect: dialect)
    }

    /// The request's `SELECT` in `dialect`, as the backend that speaks it prepares it, and the values it binds: what
    /// a backend runs to fetch the request's rows.
    ///
    /// ```swift
    /// let select = try Note.filter(Column("mood") == "happy").limit(10).rendered(for: SQLiteDialect())
    /// select.sql      // SELECT "note".* FROM "note" WHERE "note"."mood" = ? LIMIT ?
    /// select.values   // ["happy", 10]
    /// ```
    ///
    /// - Throws: ``DatabaseError`` naming what cannot run, with the SQL: a negative limit, an identifier with a NUL
    ///   character, a raw fragment's `?` without a value.
    public func rendered(for dialect: some SQLDialect) throws -> RenderedSQL {
        let (sql, rendered, failure) = renderSelect(dialect: dialect)
        if let failure { throw failure.withSQL(sql) }
        return rendered
    }

    /// How many rows the request selects, in `dialect`: `SELECT count(*) FROM (...) AS strata_count` around its
    /// `SELECT` (PostgreSQL needs the subquery's alias; SQLite takes it).
    package func renderCount(dialect: any SQLDialect) -> (sql: String, rendered: RenderedSQL, failure: DatabaseError?) {
        var (sql, rendered, failure) = renderSelect(dialect: dialect)
        sql = "SELECT count(*) FROM (\(sql)) AS strata_count"
        rendered.sql = sql
        return (sql, rendered, failure)
    }

    /// The text of the request's join `SELECT` (``renderJoinSelect(separator:dialect:)``) that `dialect`'s backend
    /// sends.
    package func joinSQL(for dialect: some SQLDialect) -> String {
        Self.statementText(renderJoinSelect(dialect: dialect), dialect: dialect)
    }

    /// What `dialect`'s backend sends for a rendered statement; the rendered text when it cannot send it (running
    /// it throws then).
    package static func statementText(
        _ statement: (sql: String, rendered: RenderedSQL, failure: DatabaseError?), dialect: some SQLDialect
    ) -> String {
        (try? dialect.statementText(statement.sql, positionalValues: statement.rendered.positional.count))
            ?? statement.sql
    }

    // MARK: Rendering

    /// The quoted table name that qualifies the model's own columns.
    package var ownTable: String {
        // Quoting is the same in every dialect. A NUL character shows as `\0` here, and fails the request where the
        // renderer quotes the table name.
        quotedIdentifier(Record.tableName.replacingOccurrences(of: "\u{0}", with: "\\0"))
    }

    package func makeRenderer(dialect: any SQLDialect) -> SQLRenderer {
        var renderer = SQLRenderer(dialect: dialect, ownTable: ownTable)
        // Each table of the request needs a name of its own, or SQLite and PostgreSQL find its columns ambiguous.
        var names: Set<String> = [Record.tableName.lowercased()]
        for join in joins {
            let name = join.table.alias ?? join.table.name
            if !names.insert(name.lowercased()).inserted {
                renderer.fail(
                    join.table.alias == nil
                        ? "the request joins the table \(name) a second time: name the joined table with an alias, "
                            + "as in \(name == Record.tableName ? "\(Record.self)" : "Model").aliased(\"other\")"
                        : "the request names two tables \(name): give each alias its own name")
            }
            if join.table.alias == nil {
                renderer.aliases[join.table.type] = renderer.quoted(join.table.name)
            }
        }
        return renderer
    }

    /// `SELECT ... FROM ...` in `dialect`, and the failure to throw instead of running it.
    package func renderSelect(
        selectionOverride: [SQLSelection]? = nil, dialect: any SQLDialect
    ) -> (sql: String, rendered: RenderedSQL, failure: DatabaseError?) {
        var renderer = makeRenderer(dialect: dialect)
        renderer.append("SELECT ")
        var selection = selectionOverride ?? selection
        if selection.isEmpty {
            selection = [SQLSelection(.allColumns(nil))] + joins.map { SQLSelection(.allColumns($0.table)) }
        }
        for (offset, item) in selection.enumerated() {
            if offset > 0 { renderer.append(", ") }
            renderer.appendSelection(item)
        }
        renderer.append(" FROM ")
        renderer.appendIdentifier(Record.tableName)
        appendBody(to: &renderer)
        return (renderer.sql, renderer.rendered, renderer.failure)
    }

    /// The name of the column a join's `SELECT` puts between two tables' columns.
    package static var joinSeparator: String { "strata_join_separator" }

    /// The columns of each of `tables` tables in a row of ``renderJoinSelect(separator:dialect:)``, whose columns are
    /// `names`: from after one separator column (or the start) to the next (or the end). The one splitting rule of
    /// every backend.
    ///
    /// - Throws: ``DatabaseError/Code/unknownColumn`` when the row does not have `tables - 1` separators.
    package static func joinedColumns(names: [String], tables: Int, sql: String?) throws -> [Range<Int>] {
        let separators = names.indices.filter { names[$0] == joinSeparator }
        guard separators.count == tables - 1 else {
            throw DatabaseError(
                code: .unknownColumn,
                message: "the joined row has \(separators.count) \(joinSeparator) columns, not \(tables - 1)",
                sql: sql)
        }
        return zip([-1] + separators, separators + [names.count]).map { ($0 + 1)..<$1 }
    }

    /// The `SELECT` of a join in `dialect`: every column of each table, with the column `NULL AS "separator"`
    /// between the columns of two tables, so that each row splits between the models there, on every backend
    /// (postgres-nio does not tell which table a result column comes from, and SQLite names a view's base table).
    package func renderJoinSelect(separator: String = Self.joinSeparator, dialect: any SQLDialect) -> (
        sql: String, rendered: RenderedSQL, failure: DatabaseError?
    ) {
        var selection = [SQLSelection(.allColumns(nil))]
        for join in joins {
            selection.append(SQLSelection(.aliased(.raw("NULL"), separator)))
            selection.append(SQLSelection(.allColumns(join.table)))
        }
        return renderSelect(selectionOverride: selection, dialect: dialect)
    }

    /// Everything after `FROM table`: joins, `WHERE`, `GROUP BY`, `HAVING`, `ORDER BY`, `LIMIT`.
    package func appendBody(to renderer: inout SQLRenderer) {
        for join in joins {
            renderer.append(join.isLeft ? " LEFT JOIN " : " JOIN ")
            renderer.appendIdentifier(join.table.name)
            if let alias = join.table.alias {
                renderer.append(" AS ")
                renderer.appendIdentifier(alias)
            }
            renderer.append(" ON ")
            renderer.append(join.condition)
        }
        appendWhere(to: &renderer)
        if !groupings.isEmpty {
            renderer.append(" GROUP BY ")
            renderer.appendList(groupings)
        }
        if !havings.isEmpty {
            renderer.append(" HAVING ")
            renderer.appendConjunction(havings)
        }
        if !orderings.isEmpty {
            renderer.append(" ORDER BY ")
            for (offset, ordering) in orderings.enumerated() {
                if offset > 0 { renderer.append(", ") }
                renderer.appendOrdering(ordering, neverNull: isOwnPrimaryKey(ordering.expression.node))
            }
        }
        if let limit {
            if limit < 0 { renderer.fail("limit(\(limit)) is negative: a request takes 0 rows or more") }
            renderer.append(" LIMIT ")
            renderer.appendValue(SQLValue(limit))
            if let offset {
                if offset < 0 { renderer.fail("limit(_:offset: \(offset)): the offset is negative") }
                renderer.append(" OFFSET ")
                renderer.appendValue(SQLValue(offset))
            }
        }
    }

    /// Whether `node` is the model's primary key column in its own table, which is never NULL: a primary key is
    /// `NOT NULL` in PostgreSQL, and the request's own rows are never the NULL side of a join. Ordering by it needs
    /// no `NULLS` clause, which would keep PostgreSQL from reading the key's index.
    func isOwnPrimaryKey(_ node: SQLExpression.Node) -> Bool {
        guard case .column(let name, let table) = node, name == Record.primaryKeyColumn else { return false }
        guard let table else { return true }
        return table.type == ObjectIdentifier(Record.self) && table.alias == nil
    }

    package func appendWhere(to renderer: inout SQLRenderer) {
        if !filters.isEmpty {
            renderer.append(" WHERE ")
            renderer.appendConjunction(filters)
        }
    }

    /// Whether the request is only filters on its own table, so that `DELETE` and `UPDATE` can take its `WHERE`.
    package var isFilterOnly: Bool {
        joins.isEmpty && groupings.isEmpty && havings.isEmpty && orderings.isEmpty && limit == nil
    }
}

/// One `JOIN table ON condition` of a request.
struct JoinClause: Sendable {
    let table: TableReference
    let condition: SQLExpression.Node
    let isLeft: Bool
}

extension Model {
    /// Every row of the model's table.
    public static func all() -> QueryRequest<Self> { QueryRequest() }

    /// The rows matching `predicate`.
    ///
    /// ```swift
    /// let happy = try db.fetchAll(Note.filter(Column("mood") == "happy"))
    /// ```
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryRequest<Self> {
        all().filter(predicate)
    }

    /// The rows matching a raw SQL condition, its values bound.
    public static func filter(sql: String, parameters: SQLArguments = [:]) -> QueryRequest<Self> {
        all().filter(sql: sql, parameters: parameters)
    }

    /// The rows matching a raw SQL condition written with interpolation, its values bound (see ``SQL``).
    public static func filter(_ sql: SQL) -> QueryRequest<Self> {
        all().filter(sql)
    }

    /// Every row, sorted by `orderings`.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryRequest<Self> {
        var request = all()
        request.orderings = orderings.map(\.orderingExpression)
        return request
    }

    /// At most `count` rows, after skipping `offset`.
    public static func limit(_ count: Int, offset: Int? = nil) -> QueryRequest<Self> {
        all().limit(count, offset: offset)
    }

    /// Every row, selecting `selection` instead of the model's columns.
    public static func select(_ selection: any SQLSelectable...) -> QueryRequest<Self> {
        var request = all()
        request.selection = selection.map(\.selection)
        return request
    }
}
