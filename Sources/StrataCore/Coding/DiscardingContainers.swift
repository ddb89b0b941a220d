/// Swallows the elements of a list that cannot be bound; the encoder already recorded the failure.
package struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer {
    package let codingPath: [any CodingKey]
    package var count = 0

    package init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    package mutating func encodeNil() throws { count += 1 }
    package mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath))
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }

    package mutating func superEncoder() -> any Encoder {
        ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: [:])
    }
}

/// Swallows a nested keyed value whose column is encoded as a whole elsewhere.
package struct DiscardingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let codingPath: [any CodingKey]

    package init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    package mutating func encodeNil(forKey key: Key) throws {}
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    package mutating func superEncoder() -> any Encoder {
        ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: [:])
    }

    package mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}
