// The macro generates against StrataCore's reader and binder, so `import StrataRecord` works with either backend
// and links neither: import `Strata` or `StrataPostgres` beside it.
@_exported public import StrataCore

/// Makes a struct a ``Model`` whose rows are read and whose parameters are bound by generated code, column by
/// index, with exactly the semantics of its `Codable` conformance.
///
/// ```swift
/// import Strata            // or StrataPostgres: the same struct runs on both
/// import StrataRecord
///
/// @Table("note")
/// struct Note: Codable {
///     var id: Int64?
///     var createdAt: Date
///     var content: String
/// }
///
/// let notes = try db.fetchAll(Note.filter(Note.columns.content.like("%swift%")))
/// ```
///
/// From the struct's stored properties it generates:
/// - the ``Model`` conformance, with `tableName` when `name` is given (the struct may declare `primaryKey` and
///   `keyEncodingStrategy` as for any model);
/// - `Note.columns`: one ``TypedColumn`` per coded property (`Note.columns.createdAt`), named through custom
///   `CodingKeys` and the key strategy, usable wherever a ``Column`` is;
/// - ``GeneratedRecord``: a row reader that reads columns by index (names resolved once per statement) and a
///   parameter writer that binds by index, which `fetchAll`, `find`, `insert` and the rest use automatically;
/// - the struct's `Codable` conformance itself: `CodingKeys` (unless the struct declares them), `init(from:)` and
///   `encode(to:)`, exactly as Swift synthesizes them.
///
/// **The generated code gives exactly what `Codable` gives, or the struct does not compile, with a message that says
/// why.** The same columns, values and errors, never a silent difference. A macro sees only the struct's body, so:
/// - `CodingKeys` belong inside the struct. `CodingKeys`, `init(from:)` or `encode(to:)` declared in an extension,
///   which Swift would honour and the generated code could not see, is an "invalid redeclaration" of the one
///   `@Table` declares, whose doc comment says why; custom coding needs a model without `@Table`.
/// - A stored property, or a case of `CodingKeys`, inside `#if` is read and written under the same condition.
/// - A property wrapper or another attribute on a stored property, a `CodingKeys` that is not an enum (a typealias),
///   a case of `CodingKeys` without its property, and a property that neither has a case nor an initial value are
///   compile errors. Static, computed and `lazy` properties are not columns, as they are not coded.
@attached(
    extension, conformances: Model, GeneratedRecord,
    names: named(tableName), named(recordKeys), named(init(row:)), named(encode(to:)), named(Columns), named(columns),
    named(CodingKeys), named(init(from:))
)
public macro Table(_ name: String? = nil) = #externalMacro(module: "StrataRecordMacros", type: "TableMacro")
