/// The keyed container of a statement: each key binds the parameter it maps to, if any.
struct StatementKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: StatementEncoding

    var codingPath: [any CodingKey] { encoding.codingPath }

    mutating func encodeNil(forKey key: Key) throws {
        let indexes = encoding.parameterIndexes(for: key)
        encoding.noteNull(at: indexes)
        try encoding.bind(at: indexes, key: key, value: DatabaseValue.null) { try encoding.statement.bindNull(at: $0) }
    }

    // MARK: Scalars

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try integer(value ? 1 : 0, key)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        let indexes = encoding.parameterIndexes(for: key)
        try encoding.bind(at: indexes, key: key, value: value) { try encoding.statement.bindText(value, at: $0) }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        let indexes = encoding.parameterIndexes(for: key)
        try encoding.bind(at: indexes, key: key, value: value) { try encoding.statement.bindReal(value, at: $0) }
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
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encoding.bindValue(value, key: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encoding.bindValue(value, key: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoding.bindValue(value, key: key)
    }

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
        encoding.fail(unsupportedNesting(key))
        return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoding.fail(unsupportedNesting(key))
        return DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    /// A superclass encodes into the same statement.
    mutating func superEncoder() -> any Encoder { encoding }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoding }

    // MARK: Helpers

    @inline(__always)
    private func integer(_ value: Int64, _ key: Key) throws {
        let indexes = encoding.parameterIndexes(for: key)
        try encoding.bind(at: indexes, key: key, value: value) { try encoding.statement.bindInteger(value, at: $0) }
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
        EncodingError.invalidValue(
            key.stringValue,
            EncodingError.Context(
                codingPath: codingPath + [key],
                debugDescription:
                    "a parameter cannot hold a nested container; declare the property as a Codable type "
                    + "and it is stored as JSON"))
    }
}

extension StatementEncoding {
    /// Binds any `Encodable` to the parameters of `key`.
    func bindValue<T: Encodable>(_ value: T, key: some CodingKey) throws {
        let indexes = parameterIndexes(for: key)
        guard !indexes.isEmpty else { return }
        try bindValue(value, at: indexes, key: key)
    }
}
