/// A request on one model's table joined with another's: its rows decode into pairs of models.
///
/// ```swift
/// let request = Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id"))
///     .filter(Column("name", table: Tag.self) == "swift")
/// let pairs: [(Note, Tag)] = try db.fetchAll(request)
/// ```
///
/// Columns without a table are the first model's; name the other's with `Column(_:table:)`.
public struct JoinRequest<First: Model, Second: Model>: Sendable {
    package var base: QueryRequest<First>

    /// The request with `predicate` added.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self { Self(base: base.filter(predicate)) }
    /// The request with a raw SQL condition added, its values bound.
    public func filter(sql: String, parameters: SQLArguments = [:]) -> Self {
        Self(base: base.filter(sql: sql, parameters: parameters))
    }
    /// The request with a raw SQL condition added, written with interpolation, its values bound.
    public func filter(_ sql: SQL) -> Self { Self(base: base.filter(sql)) }
    /// The request sorted by `orderings`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        var copy = self
        copy.base.orderings = orderings.map(\.orderingExpression)
        return copy
    }
    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int? = nil) -> Self { Self(base: base.limit(count, offset: offset)) }

    /// The request joined with a third model's table.
    public func joining<Third: Model>(_ third: Third.Type, on condition: some SQLSpecificExpressible)
        -> JoinRequest3<First, Second, Third>
    {
        JoinRequest3(base: base.adding(TableReference(Third.self), on: condition, isLeft: false))
    }

    /// The request joined with a third model's table under an alias.
    public func joining<Third: Model>(_ third: TableAlias<Third>, on condition: some SQLSpecificExpressible)
        -> JoinRequest3<First, Second, Third>
    {
        JoinRequest3(base: base.adding(third.reference, on: condition, isLeft: false))
    }

    /// The SQL the request runs on the backend that speaks `dialect` (see ``QueryRequest/sql(for:)``): every
    /// column of each table, with a `NULL AS "strata_join_separator"` column between two tables' columns, where
    /// Strata splits each row between the models.
    public func sql(for dialect: some SQLDialect) -> String { base.joinSQL(for: dialect) }
}

/// A request on one model's table left-joined with another's: the second model is nil where no row matched.
public struct LeftJoinRequest<First: Model, Second: Model>: Sendable {
    package var base: QueryRequest<First>

    /// The request with `predicate` added.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self { Self(base: base.filter(predicate)) }
    /// The request with a raw SQL condition added, its values bound.
    public func filter(sql: String, parameters: SQLArguments = [:]) -> Self {
        Self(base: base.filter(sql: sql, parameters: parameters))
    }
    /// The request with a raw SQL condition added, written with interpolation, its values bound.
    public func filter(_ sql: SQL) -> Self { Self(base: base.filter(sql)) }
    /// The request sorted by `orderings`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        var copy = self
        copy.base.orderings = orderings.map(\.orderingExpression)
        return copy
    }
    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int? = nil) -> Self { Self(base: base.limit(count, offset: offset)) }

    /// The SQL the request runs on the backend that speaks `dialect` (see ``QueryRequest/sql(for:)``): every
    /// column of each table, with a `NULL AS "strata_join_separator"` column between two tables' columns, where
    /// Strata splits each row between the models.
    public func sql(for dialect: some SQLDialect) -> String { base.joinSQL(for: dialect) }
}

/// A request joining three models' tables: its rows decode into triples.
public struct JoinRequest3<First: Model, Second: Model, Third: Model>: Sendable {
    package var base: QueryRequest<First>

    /// The request with `predicate` added.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self { Self(base: base.filter(predicate)) }
    /// The request sorted by `orderings`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        var copy = self
        copy.base.orderings = orderings.map(\.orderingExpression)
        return copy
    }
    /// At most `count` rows, after skipping `offset`.
    public func limit(_ count: Int, offset: Int? = nil) -> Self { Self(base: base.limit(count, offset: offset)) }

    /// The SQL the request runs on the backend that speaks `dialect` (see ``QueryRequest/sql(for:)``): every
    /// column of each table, with a `NULL AS "strata_join_separator"` column between two tables' columns, where
    /// Strata splits each row between the models.
    public func sql(for dialect: some SQLDialect) -> String { base.joinSQL(for: dialect) }
}

extension QueryRequest {
    /// The request joined with `Other`'s table on `condition`: its rows decode into `(Record, Other)`.
    public func joining<Other: Model>(_ other: Other.Type, on condition: some SQLSpecificExpressible)
        -> JoinRequest<Record, Other>
    {
        JoinRequest(base: adding(TableReference(Other.self), on: condition, isLeft: false))
    }

    /// The request joined with `Other`'s table under an alias (see ``TableAlias``), as a table joined with itself.
    public func joining<Other: Model>(_ other: TableAlias<Other>, on condition: some SQLSpecificExpressible)
        -> JoinRequest<Record, Other>
    {
        JoinRequest(base: adding(other.reference, on: condition, isLeft: false))
    }

    /// The request left-joined with `Other`'s table on `condition`: its rows decode into `(Record, Other?)`.
    public func leftJoining<Other: Model>(_ other: Other.Type, on condition: some SQLSpecificExpressible)
        -> LeftJoinRequest<Record, Other>
    {
        LeftJoinRequest(base: adding(TableReference(Other.self), on: condition, isLeft: true))
    }

    /// The request left-joined with `Other`'s table under an alias (see ``TableAlias``).
    public func leftJoining<Other: Model>(_ other: TableAlias<Other>, on condition: some SQLSpecificExpressible)
        -> LeftJoinRequest<Record, Other>
    {
        LeftJoinRequest(base: adding(other.reference, on: condition, isLeft: true))
    }

    func adding(_ table: TableReference, on condition: some SQLSpecificExpressible, isLeft: Bool) -> Self {
        var copy = self
        copy.joins.append(JoinClause(table: table, condition: condition.sqlExpression.node, isLeft: isLeft))
        return copy
    }
}

extension Model {
    /// Every row joined with `Other`'s table on `condition`, as `(Self, Other)` pairs.
    ///
    /// ```swift
    /// let withTags = try db.fetchAll(Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id")))
    /// ```
    public static func joining<Other: Model>(_ other: Other.Type, on condition: some SQLSpecificExpressible)
        -> JoinRequest<Self, Other>
    {
        all().joining(Other.self, on: condition)
    }

    /// Every row left-joined with `Other`'s table on `condition`, as `(Self, Other?)` pairs.
    public static func leftJoining<Other: Model>(_ other: Other.Type, on condition: some SQLSpecificExpressible)
        -> LeftJoinRequest<Self, Other>
    {
        all().leftJoining(Other.self, on: condition)
    }

    /// Every row joined with `Other`'s table under an alias (see ``TableAlias``), as `(Self, Other)` pairs.
    ///
    /// ```swift
    /// let parent = Note.aliased("parent")
    /// let pairs = try db.fetchAll(Note.joining(parent, on: Column("id", table: parent) == Column("parentId")))
    /// ```
    public static func joining<Other: Model>(_ other: TableAlias<Other>, on condition: some SQLSpecificExpressible)
        -> JoinRequest<Self, Other>
    {
        all().joining(other, on: condition)
    }

    /// Every row left-joined with `Other`'s table under an alias, as `(Self, Other?)` pairs.
    public static func leftJoining<Other: Model>(
        _ other: TableAlias<Other>, on condition: some SQLSpecificExpressible
    ) -> LeftJoinRequest<Self, Other> {
        all().leftJoining(other, on: condition)
    }
}
