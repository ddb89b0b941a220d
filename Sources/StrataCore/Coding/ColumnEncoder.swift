/// Encodes one value into one column: raw-value enums and custom single-value types.
///
/// A value that asks for a keyed or unkeyed container is nested: the caller then stores it
/// as JSON or a property list instead (`isNested`).
package final class ColumnEncoder: Encoder, SingleValueEncodingContainer {
    package let strategies: ValueStrategies
    package let codingPath: [any CodingKey]
    package let userInfo: [CodingUserInfoKey: Any]

    /// The value encoded, nil until one is.
    package private(set) var result: DatabaseValue?
    /// Whether the value asked for a container: it is stored whole as JSON or a property list.
    package private(set) var isNested = false
    /// A failure inside a method that cannot throw.
    package private(set) var failure: (any Error)?

    package init(strategies: ValueStrategies, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.strategies = strategies
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        isNested = true
        return KeyedEncodingContainer(DiscardingKeyedContainer<Key>(codingPath: codingPath))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        isNested = true
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    package func encodeNil() throws { result = .null }
    package func encode(_ value: Bool) throws { result = value.databaseValue }
    package func encode(_ value: String) throws { result = .text(value) }
    package func encode(_ value: Double) throws { result = .real(value) }
    package func encode(_ value: Float) throws { result = .real(Double(value)) }
    package func encode(_ value: Int) throws { result = value.databaseValue }
    package func encode(_ value: Int8) throws { result = value.databaseValue }
    package func encode(_ value: Int16) throws { result = value.databaseValue }
    package func encode(_ value: Int32) throws { result = value.databaseValue }
    package func encode(_ value: Int64) throws { result = .integer(value) }
    package func encode(_ value: UInt) throws { result = try value.databaseValue(using: strategies) }
    package func encode(_ value: UInt8) throws { result = value.databaseValue }
    package func encode(_ value: UInt16) throws { result = value.databaseValue }
    package func encode(_ value: UInt32) throws { result = value.databaseValue }
    package func encode(_ value: UInt64) throws { result = try value.databaseValue(using: strategies) }

    package func encode<T: Encodable>(_ value: T) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            result = try convertible.storedValue(using: strategies)
        } else {
            try value.encode(to: self)
        }
    }
}
