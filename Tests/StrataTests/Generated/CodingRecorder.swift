import Foundation

/// A decoder and an encoder that write down every call a type's `init(from:)` or `encode(to:)` makes on its keyed
/// container: which method (a concrete `decode(Int.self, …)`, the generic one, or an `IfPresent` one), the type, the
/// key and, for an encoder, the value's JSON. Two types whose conformances leave the same record code exactly
/// alike, whatever the coder.
///
/// Values come from, and go to, JSON one key at a time (`JSONDecoder`, `JSONEncoder` with sorted keys).
enum CodingRecorder {
    /// The calls `T(from:)` makes reading `json` (a JSON object), and the outcome: the value's JSON, or the error.
    static func decode<T: Codable>(_ type: T.Type, from json: String) -> (calls: [String], outcome: String) {
        let log = Log()
        do {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
            let decoder = RecordingDecoder(log: log, object: object)
            let value = try T(from: decoder)
            return (log.calls, try Self.json(value))
        } catch {
            return (log.calls, "error: \(ErrorShape(error))")
        }
    }

    /// The calls `value.encode(to:)` makes, each with the value's JSON.
    static func encode<T: Encodable>(_ value: T) -> [String] {
        let log = Log()
        do {
            try value.encode(to: RecordingEncoder(log: log))
        } catch {
            log.calls.append("error: \(ErrorShape(error))")
        }
        return log.calls
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    final class Log {
        var calls: [String] = []
    }
}

private struct RecordingDecoder: Decoder {
    let log: CodingRecorder.Log
    let object: [String: Any]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        log.calls.append("container(keyedBy:)")
        return KeyedDecodingContainer(RecordingKeyedDecoder<Key>(log: log, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: [], debugDescription: "the recorder decodes keyed values only"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: [], debugDescription: "the recorder decodes keyed values only"))
    }
}

private struct RecordingKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let log: CodingRecorder.Log
    let object: [String: Any]
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        log.calls.append("contains \(key.stringValue)")
        return object[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        log.calls.append("decodeNil \(key.stringValue)")
        return object[key.stringValue] is NSNull
    }

    private func value<T: Decodable>(_ call: String, _ type: T.Type, _ key: Key) throws -> T {
        log.calls.append("\(call)(\(T.self)) \(key.stringValue)")
        guard let found = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "no \(key.stringValue)"))
        }
        let data = try JSONSerialization.data(withJSONObject: found, options: [.fragmentsAllowed])
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            // The error of the value, at this key.
            switch error {
            case .typeMismatch(let type, _):
                throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "\(T.self)"))
            case .valueNotFound(let type, _):
                throw DecodingError.valueNotFound(type, .init(codingPath: [key], debugDescription: "\(T.self)"))
            default:
                throw DecodingError.dataCorrupted(.init(codingPath: [key], debugDescription: "\(T.self)"))
            }
        }
    }

    private func valueIfPresent<T: Decodable>(_ call: String, _ type: T.Type, _ key: Key) throws -> T? {
        guard let found = object[key.stringValue], !(found is NSNull) else {
            log.calls.append("\(call)(\(T.self)) \(key.stringValue) -> nil")
            return nil
        }
        return try value(call, type, key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value("decode", type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value("decode", type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value("decode", type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value("decode", type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value("decode", type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value("decode", type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value("decode", type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value("decode", type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value("decode", type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value("decode", type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value("decode", type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value("decode", type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value("decode", type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value("decode", type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value("decode<T>", type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try valueIfPresent("decodeIfPresent", type, key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try valueIfPresent("decodeIfPresent<T>", type, key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        log.calls.append("nestedContainer \(key.stringValue)")
        throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "not recorded"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        log.calls.append("nestedUnkeyedContainer \(key.stringValue)")
        throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "not recorded"))
    }

    func superDecoder() throws -> any Decoder {
        log.calls.append("superDecoder")
        return RecordingDecoder(log: log, object: [:])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        log.calls.append("superDecoder \(key.stringValue)")
        return RecordingDecoder(log: log, object: [:])
    }
}

private struct RecordingEncoder: Encoder {
    let log: CodingRecorder.Log
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        log.calls.append("container(keyedBy:)")
        return KeyedEncodingContainer(RecordingKeyedEncoder<Key>(log: log))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        log.calls.append("unkeyedContainer")
        return JSONEncoderBox().unkeyed
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        log.calls.append("singleValueContainer")
        return JSONEncoderBox().single
    }
}

/// Containers that go nowhere, for calls the recorder only notes.
private struct JSONEncoderBox {
    private final class Sink: Encoder, UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var count: Int { 0 }
        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(RecordingKeyedEncoder<Key>(log: CodingRecorder.Log()))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func singleValueContainer() -> any SingleValueEncodingContainer { self }
        func encodeNil() throws {}
        func encode<T: Encodable>(_ value: T) throws {}
        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            container(keyedBy: keyType)
        }
        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        func superEncoder() -> any Encoder { self }
    }

    var unkeyed: any UnkeyedEncodingContainer { Sink() }
    var single: any SingleValueEncodingContainer { Sink() }
}

private struct RecordingKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let log: CodingRecorder.Log
    var codingPath: [any CodingKey] { [] }

    private func record<T: Encodable>(_ call: String, _ value: T, _ key: Key) throws {
        log.calls.append("\(call)(\(T.self)) \(key.stringValue) = \(try CodingRecorder.json(value))")
    }

    private func recordIfPresent<T: Encodable>(_ call: String, _ value: T?, _ key: Key) throws {
        guard let value else {
            log.calls.append("\(call)(\(T.self)) \(key.stringValue) = nil")
            return
        }
        try record(call, value, key)
    }

    mutating func encodeNil(forKey key: Key) throws { log.calls.append("encodeNil \(key.stringValue)") }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try record("encode", value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try record("encode<T>", value, key) }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent", value, key)
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try recordIfPresent("encodeIfPresent<T>", value, key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        log.calls.append("nestedContainer \(key.stringValue)")
        return KeyedEncodingContainer(RecordingKeyedEncoder<NestedKey>(log: log))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        log.calls.append("nestedUnkeyedContainer \(key.stringValue)")
        return JSONEncoderBox().unkeyed
    }

    mutating func superEncoder() -> any Encoder {
        log.calls.append("superEncoder")
        return RecordingEncoder(log: log)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        log.calls.append("superEncoder \(key.stringValue)")
        return RecordingEncoder(log: log)
    }
}
