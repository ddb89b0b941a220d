import Foundation

/// The keyed container of a row of any ``ColumnReader``: each key reads the column the backend's reader finds for
/// it. What each requirement does is written once, in the keyed reads of ``RowContext``, which a container calls,
/// one line each.
///
/// A backend whose decoding is a hot path declares its own container with the same one-line requirements for its
/// reader (SQLite's `StatementRowContainer`): its calls are then to those reads specialized for that reader. This
/// container's conformance is generic over the reader, so every call passes generic witness tables.
package struct RowKeyedContainer<Key: CodingKey, Reader: ColumnReader>: KeyedDecodingContainerProtocol {
    package let row: RowContext<Reader>

    package init(row: RowContext<Reader>) { self.row = row }

    package var codingPath: [any CodingKey] { row.codingPath }
    package var allKeys: [Key] { row.allKeys(Key.self) }
    package func contains(_ key: Key) -> Bool { row.contains(named: key.stringValue) }
    package func decodeNil(forKey key: Key) throws -> Bool { try row.decodeNil(named: key.stringValue, key: key) }
    package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try row.decode(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try row.decode(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try row.decode(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try row.decode(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try row.decode(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    package func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw row.unsupportedNesting(key)
    }
    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw row.unsupportedNesting(key)
    }
    package func superDecoder() throws -> any Decoder { RowDecoding(row: row) }
    package func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoding(row: row) }
}

extension RowContext {
    // MARK: Keyed reads: what a row's keyed container does, for every backend

    /// The keys of the row's columns: a column's name, or its camelCase form (`created_at` as `createdAt`).
    @inlinable
    package func allKeys<Key: CodingKey>(_ type: Key.Type) -> [Key] {
        reader.columnNames.compactMap { column in
            Key(stringValue: column) ?? Key(stringValue: KeyMapping.camelCased(column))
        }
    }

    @inlinable
    package func contains(named name: String) -> Bool { reader.columnIndex(forKey: name) != nil }

    /// True for NULL; a missing column is `keyNotFound`, as a missing key is in `JSONDecoder` (`decodeIfPresent` is
    /// what reads a missing column as nil).
    @inlinable
    package func decodeNil(named name: String, key: @autoclosure () -> any CodingKey) throws -> Bool {
        try reader.isNull(at: requiredColumn(name, key: key()))
    }

    // The reads below are written out, not passed to `read(at:key:_:)` as a closure: specialized for SQLite's
    // reader, that closure stayed a call of its own per column (a fifth more instructions for a String or Double
    // column in the `strata-codable` benchmark).

    @inlinable @inline(__always)
    package func decode(_ type: Bool.Type, named name: String, key: @autoclosure () -> any CodingKey) throws -> Bool {
        let index = try requiredColumn(name, key: key())
        do {
            return try reader.decodeBool(at: index)
        } catch {
            throw decodingError(error, type: Bool.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decode(_ type: String.Type, named name: String, key: @autoclosure () -> any CodingKey) throws -> String
    {
        let index = try requiredColumn(name, key: key())
        do {
            return try reader.decodeString(at: index)
        } catch {
            throw decodingError(error, type: String.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decode(_ type: Double.Type, named name: String, key: @autoclosure () -> any CodingKey) throws -> Double
    {
        let index = try requiredColumn(name, key: key())
        do {
            return try reader.decodeDouble(at: index)
        } catch {
            throw decodingError(error, type: Double.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decode(_ type: Float.Type, named name: String, key: @autoclosure () -> any CodingKey) throws -> Float {
        let index = try requiredColumn(name, key: key())
        do {
            return try reader.decodeFloat(at: index)
        } catch {
            throw decodingError(error, type: Float.self, at: index, key: key())
        }
    }
    /// An integer of width `I`: the stored integer when it fits, the reader's general read otherwise.
    @inlinable @inline(__always)
    package func decodeInteger<I: FixedWidthInteger>(
        _ type: I.Type, named name: String, key: @autoclosure () -> any CodingKey
    ) throws -> I {
        try integer(I.self, at: requiredColumn(name, key: key()), key: key())
    }
    @inlinable
    package func decode<T: Decodable>(_ type: T.Type, named name: String, key: @autoclosure () -> any CodingKey) throws
        -> T
    {
        try value(T.self, at: requiredColumn(name, key: key()), key: key())
    }

    // Optionals: a missing column or NULL is nil

    @inlinable @inline(__always)
    package func decodeIfPresent(_ type: Bool.Type, named name: String, key: @autoclosure () -> any CodingKey) throws
        -> Bool?
    {
        guard let index = presentColumn(name) else { return nil }
        do {
            return try reader.decodeBool(at: index)
        } catch {
            throw decodingError(error, type: Bool.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decodeIfPresent(_ type: String.Type, named name: String, key: @autoclosure () -> any CodingKey) throws
        -> String?
    {
        guard let index = presentColumn(name) else { return nil }
        do {
            return try reader.decodeString(at: index)
        } catch {
            throw decodingError(error, type: String.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decodeIfPresent(_ type: Double.Type, named name: String, key: @autoclosure () -> any CodingKey) throws
        -> Double?
    {
        guard let index = presentColumn(name) else { return nil }
        do {
            return try reader.decodeDouble(at: index)
        } catch {
            throw decodingError(error, type: Double.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decodeIfPresent(_ type: Float.Type, named name: String, key: @autoclosure () -> any CodingKey) throws
        -> Float?
    {
        guard let index = presentColumn(name) else { return nil }
        do {
            return try reader.decodeFloat(at: index)
        } catch {
            throw decodingError(error, type: Float.self, at: index, key: key())
        }
    }
    @inlinable @inline(__always)
    package func decodeIntegerIfPresent<I: FixedWidthInteger>(
        _ type: I.Type, named name: String, key: @autoclosure () -> any CodingKey
    ) throws -> I? {
        guard let index = presentColumn(name) else { return nil }
        return try integer(I.self, at: index, key: key())
    }
    @inlinable
    package func decodeIfPresent<T: Decodable>(
        _ type: T.Type, named name: String, key: @autoclosure () -> any CodingKey
    ) throws -> T? {
        guard let index = presentColumn(name) else { return nil }
        return try value(T.self, at: index, key: key())
    }

    /// The column of the key named `name`, or the error of a missing one.
    @inlinable @inline(__always)
    package func requiredColumn(_ name: String, key: @autoclosure () -> any CodingKey) throws -> Int {
        guard let index = reader.columnIndex(forKey: name) else { throw keyNotFound(key()) }
        return index
    }

    /// The column of the key named `name`, nil when the row has none or its value is NULL.
    @inlinable @inline(__always)
    package func presentColumn(_ name: String) -> Int? {
        guard let index = reader.columnIndex(forKey: name), !reader.isNull(at: index) else { return nil }
        return index
    }

    /// The error of a nested container asked of a column.
    @usableFromInline
    package func unsupportedNesting(_ key: some CodingKey) -> DecodingError {
        DecodingError.typeMismatch(
            [String: Any].self,
            DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription:
                    "a row column cannot be read as a nested container; declare the property as a Codable type "
                    + "and it is read from JSON"))
    }
}

/// Decodes one column as a single value: raw-value enums and custom single-value types.
///
/// A value that asks it for a keyed or unkeyed container is nested: the caller then decodes it from the column's
/// nested value instead.
@usableFromInline
struct ColumnDecoding<Reader: ColumnReader>: Decoder, SingleValueDecodingContainer {
    let row: RowContext<Reader>
    let index: Int
    /// The key of the column in the row's container; nil for the only column of a one-column row.
    let key: (any CodingKey)?

    @usableFromInline
    init(row: RowContext<Reader>, index: Int, key: (any CodingKey)?) {
        self.row = row
        self.index = index
        self.key = key
    }

    @usableFromInline var codingPath: [any CodingKey] { key.map { row.codingPath + [$0] } ?? row.codingPath }

    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { row.userInfo }

    @usableFromInline func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw NestedValueSignal()
    }

    @usableFromInline func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw NestedValueSignal()
    }

    @usableFromInline func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: SingleValueDecodingContainer

    @usableFromInline func decodeNil() -> Bool { row.reader.isNull(at: index) }

    @usableFromInline func decode(_ type: Bool.Type) throws -> Bool {
        try row.read(at: index, key: key) { try row.reader.decodeBool(at: $0) }
    }
    @usableFromInline func decode(_ type: String.Type) throws -> String {
        try row.read(at: index, key: key) { try row.reader.decodeString(at: $0) }
    }
    @usableFromInline func decode(_ type: Double.Type) throws -> Double {
        try row.read(at: index, key: key) { try row.reader.decodeDouble(at: $0) }
    }
    @usableFromInline func decode(_ type: Float.Type) throws -> Float {
        try row.read(at: index, key: key) { try row.reader.decodeFloat(at: $0) }
    }
    @usableFromInline func decode(_ type: Int.Type) throws -> Int { try row.integer(Int.self, at: index, key: key) }
    @usableFromInline func decode(_ type: Int8.Type) throws -> Int8 { try row.integer(Int8.self, at: index, key: key) }
    @usableFromInline func decode(_ type: Int16.Type) throws -> Int16 {
        try row.integer(Int16.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: Int32.Type) throws -> Int32 {
        try row.integer(Int32.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: Int64.Type) throws -> Int64 {
        try row.integer(Int64.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: UInt.Type) throws -> UInt { try row.integer(UInt.self, at: index, key: key) }
    @usableFromInline func decode(_ type: UInt8.Type) throws -> UInt8 {
        try row.integer(UInt8.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: UInt16.Type) throws -> UInt16 {
        try row.integer(UInt16.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: UInt32.Type) throws -> UInt32 {
        try row.integer(UInt32.self, at: index, key: key)
    }
    @usableFromInline func decode(_ type: UInt64.Type) throws -> UInt64 {
        try row.integer(UInt64.self, at: index, key: key)
    }

    @usableFromInline func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try row.value(T.self, at: index, key: key)
    }
}
