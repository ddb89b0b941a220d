public import Foundation

/// A `Model` whose rows and parameters are read and written by code that the `@Table` macro generated
/// (`import StrataRecord`), column by index, instead of through `Codable`'s keyed containers.
///
/// You do not conform to it by hand: `@Table("note")` on a struct writes the conformance. On every backend,
/// `RowDecoder`, `StatementEncoder`, `fetchAll`/`fetchOne`/`fetchCursor`/`stream`, `find`,
/// `insert`/`update`/`upsert`/`delete` and requests use the generated code whenever a type has it, decided once per
/// call, and the result is exactly what the type's `Codable` conformance gives: the same columns, values and errors.
///
/// The generated code is written against the two protocols below, ``RecordRow`` and ``RecordParameters``, which each
/// backend implements for its own rows and statements: the same `@Table` struct runs on SQLite and PostgreSQL.
public protocol GeneratedRecord: Model {
    /// The coding keys of the stored properties that are read or written, in the order `Codable` codes them (the
    /// cases of `CodingKeys`, or the declarations): the position of a key here is the number the generated code passes
    /// to ``RecordRow`` and ``RecordParameters``.
    static var recordKeys: [String] { get }

    /// Reads the current row: one `decode(_:_:)` of ``RecordRow`` per decoded property, in the order of
    /// ``recordKeys``.
    init(row: some RecordRow) throws

    /// Binds the statement's parameters: one `encode(_:_:)` of ``RecordParameters`` per encoded property, in the
    /// order of ``recordKeys``.
    func encode(to parameters: some RecordParameters) throws
}

/// The row a generated record reads, column by the position of its key in ``GeneratedRecord/recordKeys``.
///
/// A backend looks the columns up by name once per statement, through the decoder's key strategy; each read is
/// what the keyed container of `RowDecoder` does for the same key and type: a missing column is an error, or nil for
/// an optional; NULL is nil for an optional; errors name the column, the stored type and the expected type.
///
/// Only code that `@Table` generates calls it; the backends of this package implement it.
public protocol RecordRow {
    func decode(_ type: Bool.Type, _ key: Int) throws -> Bool
    func decode(_ type: String.Type, _ key: Int) throws -> String
    func decode(_ type: Double.Type, _ key: Int) throws -> Double
    func decode(_ type: Float.Type, _ key: Int) throws -> Float
    func decode(_ type: Int.Type, _ key: Int) throws -> Int
    func decode(_ type: Int8.Type, _ key: Int) throws -> Int8
    func decode(_ type: Int16.Type, _ key: Int) throws -> Int16
    func decode(_ type: Int32.Type, _ key: Int) throws -> Int32
    func decode(_ type: Int64.Type, _ key: Int) throws -> Int64
    func decode(_ type: UInt.Type, _ key: Int) throws -> UInt
    func decode(_ type: UInt8.Type, _ key: Int) throws -> UInt8
    func decode(_ type: UInt16.Type, _ key: Int) throws -> UInt16
    func decode(_ type: UInt32.Type, _ key: Int) throws -> UInt32
    func decode(_ type: UInt64.Type, _ key: Int) throws -> UInt64
    func decode(_ type: Data.Type, _ key: Int) throws -> Data
    func decode(_ type: Date.Type, _ key: Int) throws -> Date
    func decode<T: Decodable>(_ type: T.Type, _ key: Int) throws -> T

    func decode(_ type: Bool?.Type, _ key: Int) throws -> Bool?
    func decode(_ type: String?.Type, _ key: Int) throws -> String?
    func decode(_ type: Double?.Type, _ key: Int) throws -> Double?
    func decode(_ type: Float?.Type, _ key: Int) throws -> Float?
    func decode(_ type: Int?.Type, _ key: Int) throws -> Int?
    func decode(_ type: Int8?.Type, _ key: Int) throws -> Int8?
    func decode(_ type: Int16?.Type, _ key: Int) throws -> Int16?
    func decode(_ type: Int32?.Type, _ key: Int) throws -> Int32?
    func decode(_ type: Int64?.Type, _ key: Int) throws -> Int64?
    func decode(_ type: UInt?.Type, _ key: Int) throws -> UInt?
    func decode(_ type: UInt8?.Type, _ key: Int) throws -> UInt8?
    func decode(_ type: UInt16?.Type, _ key: Int) throws -> UInt16?
    func decode(_ type: UInt32?.Type, _ key: Int) throws -> UInt32?
    func decode(_ type: UInt64?.Type, _ key: Int) throws -> UInt64?
    func decode(_ type: Data?.Type, _ key: Int) throws -> Data?
    func decode(_ type: Date?.Type, _ key: Int) throws -> Date?
    func decode<T: Decodable>(_ type: T?.Type, _ key: Int) throws -> T?
}

/// The parameters a generated record binds, by the position of its key in ``GeneratedRecord/recordKeys``.
///
/// A backend looks the parameters up by name once per statement; each bind is what the keyed container of
/// `StatementEncoder` does for the same key and value: a key the statement has no parameter for is skipped, nil
/// binds NULL, nested values bind JSON, errors name the parameter.
///
/// Only code that `@Table` generates calls it; the backends of this package implement it.
public protocol RecordParameters {
    func encode(_ value: Bool, _ key: Int) throws
    func encode(_ value: String, _ key: Int) throws
    func encode(_ value: Double, _ key: Int) throws
    func encode(_ value: Float, _ key: Int) throws
    func encode(_ value: Int, _ key: Int) throws
    func encode(_ value: Int8, _ key: Int) throws
    func encode(_ value: Int16, _ key: Int) throws
    func encode(_ value: Int32, _ key: Int) throws
    func encode(_ value: Int64, _ key: Int) throws
    func encode(_ value: UInt, _ key: Int) throws
    func encode(_ value: UInt8, _ key: Int) throws
    func encode(_ value: UInt16, _ key: Int) throws
    func encode(_ value: UInt32, _ key: Int) throws
    func encode(_ value: UInt64, _ key: Int) throws
    func encode(_ value: Data, _ key: Int) throws
    func encode(_ value: Date, _ key: Int) throws
    func encode<T: Encodable>(_ value: T, _ key: Int) throws

    func encode(_ value: Bool?, _ key: Int) throws
    func encode(_ value: String?, _ key: Int) throws
    func encode(_ value: Double?, _ key: Int) throws
    func encode(_ value: Float?, _ key: Int) throws
    func encode(_ value: Int?, _ key: Int) throws
    func encode(_ value: Int8?, _ key: Int) throws
    func encode(_ value: Int16?, _ key: Int) throws
    func encode(_ value: Int32?, _ key: Int) throws
    func encode(_ value: Int64?, _ key: Int) throws
    func encode(_ value: UInt?, _ key: Int) throws
    func encode(_ value: UInt8?, _ key: Int) throws
    func encode(_ value: UInt16?, _ key: Int) throws
    func encode(_ value: UInt32?, _ key: Int) throws
    func encode(_ value: UInt64?, _ key: Int) throws
    func encode(_ value: Data?, _ key: Int) throws
    func encode(_ value: Date?, _ key: Int) throws
    func encode<T: Encodable>(_ value: T?, _ key: Int) throws
}

/// The coding key of a generated record's property, for error messages and coding paths.
package struct RecordKey: CodingKey {
    package let stringValue: String
    package var intValue: Int? { nil }

    package init(_ stringValue: String) { self.stringValue = stringValue }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}
