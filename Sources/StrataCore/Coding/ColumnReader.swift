/// The read side of the driver seam: how a backend reads the columns of the row being decoded.
///
/// StrataCore holds the one row decoder of every backend: the `Decoder` a value's `init(from:)` sees, its keyed
/// and single-value containers, which key reads which column, what a missing column or NULL means for an optional,
/// nested values, and the errors that name the column. A backend supplies only how a column is read, by conforming
/// one class to this protocol: an object that stands for the current row of a result and reads its columns by index.
///
/// Every read of a column throws a ``DatabaseError`` whose message names the expected type and what the column holds
/// (`could not decode Int8 from INTEGER (out of range)`); the decoder adds the column's name, index and coding path.
/// A read never traps: a NULL asked for as a non-optional value is ``DatabaseError/Code/unexpectedNull``, a value
/// of another type ``DatabaseError/Code/typeMismatch``.
///
/// ```swift
/// final class ArrayRow: ColumnReader {
///     let columnNames = ["id", "name"]
///     var columnCount: Int { columnNames.count }
///     var values: [DatabaseValue] = [.integer(1), .text("Ada")]
///
///     func beginRow() {}
///     func columnIndex(forKey key: String) -> Int? { columnNames.firstIndex(of: key) }
///     func isNull(at index: Int) -> Bool { values[index] == .null }
///     func decodeBool(at index: Int) throws -> Bool { try Bool(databaseValue: values[index]) }
///     func decodeString(at index: Int) throws -> String { try String(databaseValue: values[index]) }
///     func decodeDouble(at index: Int) throws -> Double { try Double(databaseValue: values[index]) }
///     func decodeFloat(at index: Int) throws -> Float { try Float(databaseValue: values[index]) }
///     func storedInteger(at index: Int) -> Int64? {
///         if case .integer(let value) = values[index] { value } else { nil }
///     }
///     func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I {
///         guard let value = storedInteger(at: index), let exact = I(exactly: value) else {
///             throw DatabaseError(code: .typeMismatch, message: "could not decode \(I.self)")
///         }
///         return exact
///     }
///     func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, otherwise: (Int) throws -> T) throws -> T {
///         guard let convertible = T.self as? any DatabaseValueConvertible.Type,
///             let value = try convertible.init(databaseValue: values[index]) as? T
///         else { return try otherwise(index) }
///         return value
///     }
///     func decodeNested<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
///         try JSONDecoder().decode(T.self, from: Data(String(databaseValue: values[index]).utf8))
///     }
/// }
/// ```
///
/// Indexes are those of the columns of the whole row, from 0; the decoder only passes indexes that
/// ``columnIndex(forKey:)`` returned, or 0 for a one-column row.
public protocol ColumnReader: AnyObject {
    /// The names of the row's columns, in order: for errors, and for a keyed container's `allKeys`.
    var columnNames: [String] { get }

    /// The number of the row's columns (read for every row: a one-column row may decode as a single value).
    var columnCount: Int { get }

    /// Called once before each row is decoded, before any other call for that row.
    func beginRow()

    /// The index of the column that the coding key `key` reads, nil when the row has none.
    ///
    /// The key is the coding key's `stringValue`; the backend applies the decoder's key strategy. Swift's synthesized
    /// `init(from:)` asks for keys in the same order for every row of a result, so a backend may answer the n-th
    /// lookup of a row from the n-th lookup of the row before it when the key is the same.
    func columnIndex(forKey key: String) -> Int?

    /// Whether the value of the column at `index` is NULL.
    func isNull(at index: Int) -> Bool

    /// The value of the column at `index` as a `Bool`.
    func decodeBool(at index: Int) throws -> Bool

    /// The value of the column at `index` as a `String`.
    func decodeString(at index: Int) throws -> String

    /// The value of the column at `index` as a `Double`.
    func decodeDouble(at index: Int) throws -> Double

    /// The value of the column at `index` as a `Float`.
    func decodeFloat(at index: Int) throws -> Float

    /// The integer stored in the column at `index` when the column holds one the backend reads directly, nil
    /// otherwise (NULL, another type): the decoder then calls ``decodeInteger(_:at:)``, which gives the value or
    /// the error. It is the fast path of every integer width, narrowed by the decoder with `init(exactly:)`.
    func storedInteger(at index: Int) -> Int64?

    /// The value of the column at `index` as an integer of type `I`: an error when it does not fit, never truncated.
    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I

    /// The value of the column at `index` as a `T`: read by the backend itself when `T` is a type it reads (`Data`,
    /// `Date`, `UUID`, a ``DatabaseValueConvertible`` type...), `otherwise(index)` for any other type: StrataCore's
    /// decoding of `T` from the column as a single value (raw-value enums, wrappers), or through
    /// ``decodeNested(_:at:)`` when `T` asks for a keyed or unkeyed container.
    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, otherwise: (Int) throws -> T) throws -> T

    /// A nested value (a struct, an array, a dictionary) stored in the column at `index`, as JSON or the backend's
    /// own format for nested values.
    func decodeNested<T: Decodable>(_ type: T.Type, at index: Int) throws -> T
}
