/// The keyed container of a statement: each key binds the parameter it maps to, if any.
struct StatementKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: ParameterWriter

    var codingPath: [any CodingKey] { writer.codingPath }

    mutating func encodeNil(forKey key: Key) throws {
        guard let target = writer.target(for: key) else { return }
        try writer.bindNull(target, key: key)
    }

    // MARK: Scalars

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try integer(value ? 1 : 0, key)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        guard let target = writer.target(for: key) else { return }
        try writer.bindText(value, target, key: key)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard let target = writer.target(for: key) else { return }
        try writer.bindReal(value, target, key: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try encode(Double(value), forKey: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(Int64(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeValue(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeValue(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encodeValue(value, key) }

    // MARK: Optionals: nil binds NULL

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try integerIfPresent(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    // MARK: Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        writer.fail(unsupportedNesting(key))
        return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writer.fail(unsupportedNesting(key))
        return DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    /// A superclass encodes into the same statement.
    mutating func superEncoder() -> any Encoder { StatementEncoding(writer: writer) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { StatementEncoding(writer: writer) }

    // MARK: Helpers

    private func encodeValue<T: Encodable>(_ value: T, _ key: Key) throws {
        guard let target = writer.target(for: key) else { return }
        try writer.bindValue(value, target, key: key)
    }

    @inline(__always)
    private func integer(_ value: Int64, _ key: Key) throws {
        guard let target = writer.target(for: key) else { return }
        try writer.bindInteger(value, target, key: key)
    }

    @inline(__always)
    private mutating func integerIfPresent<T: FixedWidthInteger>(_ value: T?, _ key: Key) throws {
        if let value {
            // Every width passed here fits in Int64.
            try integer(Int64(truncatingIfNeeded: value), key)
        } else {
            try encodeNil(forKey: key)
        }
    }

    private func unsupportedNesting(_ key: Key) -> EncodingError {
        ParameterErrors.nestedContainer(forKey: key, codingPath: codingPath)
    }
}
