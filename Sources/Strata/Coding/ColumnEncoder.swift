/// Encodes one value into one column: raw-value enums and custom single-value types.
///
/// A value that asks for a keyed or unkeyed container is nested: the caller then stores it
/// as JSON or a property list instead (`isNested`).
final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    let strategies: ValueStrategies
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    /// The value encoded, nil until one is.
    private(set) var result: DatabaseValue?
    /// Whether the value asked for a container: it is stored whole as JSON or a property list.
    private(set) var isNested = false
    /// A failure inside a method that cannot throw.
    private(set) var failure: (any Error)?

    init(strategies: ValueStrategies, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.strategies = strategies
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        isNested = true
        return KeyedEncodingContainer(DiscardingKeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        isNested = true
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    func encodeNil() throws { result = .null }
    func encode(_ value: Bool) throws { result = value.databaseValue }
    func encode(_ value: String) throws { result = .text(value) }
    func encode(_ value: Double) throws { result = .real(value) }
    func encode(_ value: Float) throws { result = .real(Double(value)) }
    func encode(_ value: Int) throws { result = value.databaseValue }
    func encode(_ value: Int8) throws { result = value.databaseValue }
    func encode(_ value: Int16) throws { result = value.databaseValue }
    func encode(_ value: Int32) throws { result = value.databaseValue }
    func encode(_ value: Int64) throws { result = .integer(value) }
    func encode(_ value: UInt) throws { result = try value.databaseValue(using: strategies) }
    func encode(_ value: UInt8) throws { result = value.databaseValue }
    func encode(_ value: UInt16) throws { result = value.databaseValue }
    func encode(_ value: UInt32) throws { result = value.databaseValue }
    func encode(_ value: UInt64) throws { result = try value.databaseValue(using: strategies) }

    func encode<T: Encodable>(_ value: T) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            result = try convertible.storedValue(using: strategies)
        } else {
            try value.encode(to: self)
        }
    }
}
