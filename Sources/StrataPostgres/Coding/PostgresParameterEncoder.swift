import Foundation
internal import StrataCore

/// Encodes an `Encodable` value into named parameters, as Strata's `StatementEncoder` binds them on SQLite: each
/// coding key names the parameter of the same name (through `mapping`), `nil` is NULL, and a nested value is
/// one `jsonb` parameter.
struct PostgresParameterEncoder {
    /// How coding keys become parameter names.
    var mapping: KeyMapping = .useDefaultKeys

    /// The parameters of `value`, by name.
    ///
    /// - Throws: ``DatabaseError`` (`invalidArgument`) when `value` is not keyed or nests a container, or the error
    ///   of a value that cannot be sent.
    func encode<T: Encodable>(_ value: T) throws -> [String: PostgresValue] {
        let collector = try collect(value)
        return Dictionary(zip(collector.names, collector.values), uniquingKeysWith: { _, last in last })
    }

    /// The top-level coding keys of `model`, in order, once each, with their values: what ``PostgresSession``'s
    /// record methods bind, matched to cached statements by the keys. Nil for a model this cannot encode, whose
    /// caller then takes the path that says why.
    static func encodeRecord<T: Encodable>(_ model: T) -> (keys: [String], values: [PostgresValue])? {
        guard let collector = try? PostgresParameterEncoder().collect(model) else { return nil }
        return (collector.names, collector.values)
    }

    private func collect<T: Encodable>(_ value: T) throws -> ParameterCollector {
        let collector = ParameterCollector(mapping: mapping)
        try value.encode(to: collector)
        if let failure = collector.failure { throw failure }
        return collector
    }
}

/// The `Encoder` of ``PostgresParameterEncoder``: the names of the keys encoded, in the order they were first
/// encoded, with the last value of each.
private final class ParameterCollector: Encoder {
    let mapping: KeyMapping
    private(set) var names: [String] = []
    private(set) var values: [PostgresValue] = []
    private var positions: [String: Int] = [:]
    var failure: (any Error)?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(mapping: KeyMapping) {
        self.mapping = mapping
    }

    /// Sets the parameter `name` to `value`: a key encoded twice keeps its place and takes the last value.
    func set(_ name: String, _ value: PostgresValue) {
        if let position = positions[name] {
            values[position] = value
        } else {
            positions[name] = names.count
            names.append(name)
            values.append(value)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ParameterContainer<Key>(collector: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail("parameters are named: encode a keyed type (a struct or a dictionary), not a list")
        return DiscardingContainer<AnyKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fail("parameters are named: encode a keyed type (a struct or a dictionary), not a single value")
        return DiscardingContainer<AnyKey>()
    }

    func fail(_ message: String) {
        if failure == nil { failure = DatabaseError(code: .invalidArgument, message: message) }
    }
}

private struct ParameterContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let collector: ParameterCollector
    var codingPath: [any CodingKey] { [] }

    private func name(_ key: Key) -> String { collector.mapping.name(for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { collector.set(name(key), .null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        collector.set(name(key), try PostgresValue.make(value))
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
        collector.fail("parameter \(key.stringValue): encode a nested value as an Encodable type (sent as jsonb)")
        return KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        collector.fail("parameter \(key.stringValue): encode a nested value as an Encodable type (sent as jsonb)")
        return DiscardingContainer<Key>()
    }

    mutating func superEncoder() -> any Encoder { collector }
    mutating func superEncoder(forKey key: Key) -> any Encoder { collector }
}

/// A container that keeps nothing, returned where the encoder has already recorded a failure.
private struct DiscardingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer,
    SingleValueEncodingContainer
{
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    /// A container that keeps nothing.
    init() {}

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws {}
    mutating func encode(_ value: Float) throws {}
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { PostgresColumnEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { PostgresColumnEncoder() }
}

/// A key for `DiscardingContainer` where none is needed.
private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
