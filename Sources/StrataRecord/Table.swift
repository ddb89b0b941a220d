@_exported public import Strata

/// Makes a struct a ``Model`` whose rows are read and whose parameters are bound by generated code, column by
/// index, with exactly the semantics of its `Codable` conformance.
///
/// ```swift
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
///   parameter writer that binds by index, which `fetchAll`, `find`, `insert` and the rest use automatically.
///
/// The struct keeps its `Codable` conformance: the generated code gives the same columns, values and errors.
@attached(
    extension, conformances: Model, GeneratedRecord,
    names: named(tableName), named(recordKeys), named(init(row:)), named(encode(to:)), named(Columns), named(columns)
)
public macro Table(_ name: String? = nil) = #externalMacro(module: "StrataRecordMacros", type: "TableMacro")
