import Foundation
internal import StrataCore

/// Encodes a model's top-level coding keys, in order, with their values, in one pass: what
/// ``PostgresSession``'s record methods bind, matched to cached statements by the keys.
///
/// Values are made as ``PostgresParameterEncoder`` makes them (`nil` is NULL, a nested value is `jsonb`). It reports
/// nothing it cannot encode: ``encode(_:)`` returns nil for a model it cannot handle, whose caller then takes the
/// path that says why.
final class PostgresRecordEncoder: Encoder {
    /// The coding keys encoded so far, in order, once each.
    private(set) var keys: [String] = []
    /// The value of each key of `keys`; a key encoded twice keeps its last value.
    private(set) var values: [PostgresValue] = []
    /// Whether the model asked for something a record cannot hold (a list, a single value, a nested container).
    private(set) var failed = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The keys and values `model` encodes, or nil when it cannot be encoded this way.
    static func encode<T: Encodable>(_ model: T) -> (keys: [String], values: [PostgresValue])? {
        let encoder = PostgresRecordEncoder()
        do {
            try model.encode(to: encoder)
        } catch {
            return nil
        }
        guard !encoder.failed else { return nil }
        return (encoder.keys, encoder.values)
    }

    /// Sets `key` to `value`.
    func set(_ key: String, _ value: PostgresValue) {
        if let index = keys.firstIndex(of: key) {
            values[index] = value
        } else {
            keys.append(key)
            values.append(value)
        }
    }

    func fail() { failed = true }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail()
        return PostgresColumnEncoder().unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fail()
        return PostgresColumnEncoder()
    }
}

/// The keyed container of a record: each key sets the value of the parameter it names.
private struct RecordContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PostgresRecordEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key.stringValue, .null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.set(key.stringValue, try PostgresValue.make(value))
    }

    // Every overload: the standard library's defaults for the concrete ones skip nil, and a nil optional is NULL.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }

    /// `value`, or NULL for nil.
    private mutating func put<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.fail()
        return PostgresColumnEncoder().container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.fail()
        return PostgresColumnEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}
