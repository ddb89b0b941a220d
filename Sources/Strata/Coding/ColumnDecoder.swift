/// Decodes one column as a single value: raw-value enums and custom single-value types.
///
/// A value that asks it for a keyed or unkeyed container is nested: the caller then decodes
/// it from the column's JSON or property list instead.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let reader: RowReader
    let index: Int32
    /// The key of the column in the row's container; nil for the only column of a one-column row.
    let key: (any CodingKey)?

    var codingPath: [any CodingKey] { key.map { reader.codingPath + [$0] } ?? reader.codingPath }

    var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw NestedValueSignal()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw NestedValueSignal()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { reader.statement.isNull(at: index) }

    func decode(_ type: Bool.Type) throws -> Bool { try read { try reader.statement.readBool(at: index) } }
    func decode(_ type: String.Type) throws -> String { try read { try reader.statement.readString(at: index) } }
    func decode(_ type: Double.Type) throws -> Double { try read { try reader.statement.readDouble(at: index) } }
    func decode(_ type: Float.Type) throws -> Float {
        try read { try Float(databaseValue: reader.statement.storedValue(at: index)) }
    }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try reader.decodeConvertible(convertible, as: T.self, at: index, key: key)
        }
        return try T(from: self)
    }

    private func read<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw reader.decodingError(error, type: T.self, at: index, key: key)
        }
    }

    private func integer<T: FixedWidthInteger>() throws -> T {
        try read { try reader.statement.readInteger(T.self, at: index) }
    }
}
