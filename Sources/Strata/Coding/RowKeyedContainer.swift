/// The keyed container of a row: each key reads the column it maps to.
struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: RowReader

    var codingPath: [any CodingKey] { reader.codingPath }

    var allKeys: [Key] {
        reader.statement.columnNames.compactMap { column in
            Key(stringValue: column) ?? Key(stringValue: Self.camelCased(column))
        }
    }

    func contains(_ key: Key) -> Bool {
        reader.columnIndex(for: key) >= 0
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        reader.statement.isNull(at: try index(of: key))
    }

    // MARK: Scalars

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader.bool(at: column(key), key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try reader.string(at: column(key), key: key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try reader.double(at: column(key), key: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try reader.float(at: column(key), key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try reader.value(T.self, at: column(key), key: key)
    }

    // MARK: Optionals: a missing column or NULL is nil

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try reader.boolIfPresent(at: column(key), key: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try reader.stringIfPresent(at: column(key), key: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try reader.doubleIfPresent(at: column(key), key: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try reader.floatIfPresent(at: column(key), key: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try reader.valueIfPresent(T.self, at: column(key), key: key)
    }

    // MARK: Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw unsupportedNesting(key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw unsupportedNesting(key)
    }

    /// A superclass decodes from the same row.
    func superDecoder() throws -> any Decoder { RowDecoding(reader: reader) }

    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoding(reader: reader) }

    // MARK: Helpers

    /// The column of `key`, -1 when the row has none.
    @inline(__always)
    private func column(_ key: Key) -> Int32 { reader.columnIndex(for: key) }

    private func index(of key: Key) throws -> Int32 {
        let index = reader.columnIndex(for: key)
        guard index >= 0 else { throw reader.keyNotFound(key) }
        return index
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try reader.integer(T.self, at: column(key), key: key)
    }

    @inline(__always)
    private func integerIfPresent<T: FixedWidthInteger>(_ key: Key) throws -> T? {
        try reader.integerIfPresent(T.self, at: column(key), key: key)
    }

    private func unsupportedNesting(_ key: Key) -> DecodingError {
        DecodingError.typeMismatch(
            [String: Any].self,
            DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription:
                    "a row column cannot be read as a nested container; declare the property as a Codable type "
                    + "and it is read from JSON"))
    }

    private static func camelCased(_ column: String) -> String {
        let parts = column.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = parts.first else { return column }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
