/// A Codable type stored as one row of one table.
///
/// ```swift
/// struct Note: Model {
///     static let tableName = "note"
///     var id: Int64?
///     var createdAt: Date
///     var content: String
/// }
///
/// var note = Note(id: nil, createdAt: Date(), content: "Hello")
/// try db.insert(&note)            // note.id is now the new rowid
/// note.content = "Hello, world"
/// try db.update(note)
/// let same = try db.find(Note.self, id: note.id)
/// ```
///
/// Columns come from the model's coding keys, through ``keyEncodingStrategy``. The primary
/// key is the column `id` unless ``primaryKey`` names another; it can hold any storable value
/// (Int64, UUID, String...). A nil integer primary key is filled from the new rowid on insert.
public protocol Model: Codable {
    /// The table the model is stored in.
    static var tableName: String { get }
    /// The coding key of the primary key (its property name): `"id"` by default.
    ///
    /// Like every other key, it names its column through ``keyEncodingStrategy``: with
    /// `.convertToSnakeCase`, `primaryKey = "postId"` is the column `post_id`, for every record
    /// operation (`insert`, `update`, `upsert`, `delete`, `find`, `fetchAll`). A column name that the
    /// strategy leaves as it is (`"post_id"` under `.convertToSnakeCase`) names the same column.
    static var primaryKey: String { get }
    /// How coding keys become column names. `.useDefaultKeys` by default; `.convertToSnakeCase`
    /// maps `createdAt` to `created_at` for both writing and reading.
    static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy { get }
}

extension Model {
    public static var primaryKey: String { "id" }
    public static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy { .useDefaultKeys }

    /// The column of the primary key: ``primaryKey`` through the key strategy.
    @inlinable
    package static var primaryKeyColumn: String {
        keyEncodingStrategy.mapping.name(for: primaryKey)
    }

    /// The decoder that reads this model's rows: the key strategy mirrored for reading.
    @inlinable
    package static var rowDecoder: RowDecoder {
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy =
            switch keyEncodingStrategy {
            case .useDefaultKeys: .useDefaultKeys
            case .convertToSnakeCase: .convertFromSnakeCase
            case .custom(let transform): .custom(transform)
            }
        return decoder
    }
}
