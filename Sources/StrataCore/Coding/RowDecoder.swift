import Foundation

/// Decodes `Decodable` values from rows: each coding key reads the column of the same name.
///
/// ```swift
/// struct Foo: Codable { let a: Int64?; let b: String; let c: Double; let d: Int; let e: Data }
///
/// let decoder = RowDecoder()
/// for row in try db.prepare(query: "SELECT a, b, c, d, e FROM foo") {
///     let foo = try decoder.decode(Foo.self, from: row)
/// }
/// ```
///
/// - Optionals read NULL as `nil`; a missing column also reads as `nil` for an optional, as a
///   missing key does in `JSONDecoder`.
/// - `Date`, `UUID`, `URL`, `Decimal`, `Data` and every ``DatabaseValueConvertible`` type read
///   through their conversions; raw-value enums read their raw value.
/// - Nested structs, arrays, dictionaries and sets read one column of JSON (or a binary
///   property list).
/// - A type that is ``DatabaseValueConvertible`` or single-valued decodes from the only column
///   of a one-column row: `try decoder.decode(String.self, from: row)`.
///
/// Errors are `DecodingError`s with the coding path, whose description names the column, its
/// stored type and the expected type: `could not decode String from NULL - column "name" (index 0)`.
///
/// - Complexity: O(1) per key: the statement remembers which column each key read for the previous row.
public struct RowDecoder: Sendable {
    /// How coding keys find their columns. `.useDefaultKeys` by default; **a ``Model`` read with a decoder whose
    /// strategy was never set uses the model's own** (``Model/keyEncodingStrategy``), so that
    /// `db.fetchAll(Note.self, query: "SELECT * FROM note")` reads a snake_case table as `find` does.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys {
        didSet { keyDecodingStrategyIsSet = true }
    }
    /// Whether ``keyDecodingStrategy`` was set, which a model's own strategy then does not override.
    @usableFromInline var keyDecodingStrategyIsSet = false
    /// The SQLite backend's overrides of its statement's storage strategies (`dateStrategy`, `arrayStrategy`,
    /// `uuidStrategy`, which that backend declares).
    @usableFromInline package var storageOverrides = StorageOverrides()
    /// Contextual information for custom `init(from:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Whether a ``GeneratedRecord`` is read by its generated code: false only in tests that compare it with the
    /// type's `Codable` conformance, through the generic calls (the overloads for `GeneratedRecord` types, such as
    /// `fetchAll(_:query:)` on a concrete type, always use it).
    @usableFromInline package var usesGeneratedCode = true

    @inlinable
    public init() {}

    /// This decoder for rows of `T`: with the key strategy of `T` when `T` is a ``Model`` and no strategy was set
    /// here.
    @inlinable
    package func forRows<T>(of type: T.Type) -> RowDecoder {
        guard !keyDecodingStrategyIsSet, let model = T.self as? any Model.Type else { return self }
        var decoder = self
        decoder.keyDecodingStrategy = model.rowDecoder.keyDecodingStrategy
        return decoder
    }
}

extension RowDecoder {
    /// Decodes a `T` from the current row of `reader`, a backend's ``ColumnReader``: StrataCore's one row decoder,
    /// which every backend uses, with this decoder's key strategy (the model's own for a ``Model`` when none was set
    /// here, see ``keyDecodingStrategy(for:)``) and `userInfo`.
    ///
    /// ```swift
    /// let note = try RowDecoder().decode(Note.self, from: reader)
    /// ```
    ///
    /// - Throws: `DecodingError` naming the column, with the reader's ``DatabaseError`` as its underlying error.
    public func decode<T: Decodable>(_ type: T.Type, from reader: some ColumnReader) throws -> T {
        let decoder = forRows(of: T.self)
        let decoding = RowDecoding(
            reader: reader, mapping: decoder.keyDecodingStrategy.mapping, userInfo: decoder.userInfo)
        decoding.beginRow()
        return try decoding.decode(T.self)
    }

    /// The key strategy rows of `T` are decoded with: ``keyDecodingStrategy`` when it was set, the model's own when
    /// `T` is a ``Model``, `.useDefaultKeys` otherwise. A ``ColumnReader`` maps keys to column names with it.
    public func keyDecodingStrategy<T>(for type: T.Type) -> KeyDecodingStrategy {
        forRows(of: T.self).keyDecodingStrategy
    }
}
