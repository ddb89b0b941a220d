import Foundation
internal import StrataCore

/// PostgreSQL's `RecordRow`: the current row, each record key looked up through the reader's key plan (the
/// columns the first row's keys found, reused row after row), read by StrataCore's reads for PostgreSQL's reader.
struct PostgresRecordRow: RecordRow {
    let context: RowContext<PostgresRowReader>
    /// The record's keys, ``GeneratedRecord/recordKeys``, taken once per result.
    let keys: [String]

    func column(ofRecordKey key: Int) -> Int? {
        keys.indices.contains(key) ? context.reader.columnIndex(forKey: keys[key]) : nil
    }

    func recordKey(_ key: Int) -> String { keys.indices.contains(key) ? keys[key] : "key \(key)" }

    // The witnesses of `RecordRow`: what the keyed container reads for the key (`RowContext`'s reads), by the
    // column found for it. Written out in this concrete type so that they are specialized for its reader.
    func decode(_ type: Bool.Type, _ key: Int) throws -> Bool {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeBool(at: $0) }
    }
    func decode(_ type: String.Type, _ key: Int) throws -> String {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeString(at: $0) }
    }
    func decode(_ type: Double.Type, _ key: Int) throws -> Double {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
    }
    func decode(_ type: Float.Type, _ key: Int) throws -> Float {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
    }
    func decode(_ type: Int.Type, _ key: Int) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, _ key: Int) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, _ key: Int) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, _ key: Int) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, _ key: Int) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, _ key: Int) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, _ key: Int) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, _ key: Int) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, _ key: Int) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, _ key: Int) throws -> UInt64 { try integer(key) }
    func decode(_ type: Data.Type, _ key: Int) throws -> Data { try value(key) }
    func decode(_ type: Date.Type, _ key: Int) throws -> Date { try value(key) }
    func decode<T: Decodable>(_ type: T.Type, _ key: Int) throws -> T { try value(key) }

    func decode(_ type: Bool?.Type, _ key: Int) throws -> Bool? {
        try present(key).map { try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeBool(at: $0) } }
    }
    func decode(_ type: String?.Type, _ key: Int) throws -> String? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeString(at: $0) }
        }
    }
    func decode(_ type: Double?.Type, _ key: Int) throws -> Double? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
        }
    }
    func decode(_ type: Float?.Type, _ key: Int) throws -> Float? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
        }
    }
    func decode(_ type: Int?.Type, _ key: Int) throws -> Int? { try integerIfPresent(key) }
    func decode(_ type: Int8?.Type, _ key: Int) throws -> Int8? { try integerIfPresent(key) }
    func decode(_ type: Int16?.Type, _ key: Int) throws -> Int16? { try integerIfPresent(key) }
    func decode(_ type: Int32?.Type, _ key: Int) throws -> Int32? { try integerIfPresent(key) }
    func decode(_ type: Int64?.Type, _ key: Int) throws -> Int64? { try integerIfPresent(key) }
    func decode(_ type: UInt?.Type, _ key: Int) throws -> UInt? { try integerIfPresent(key) }
    func decode(_ type: UInt8?.Type, _ key: Int) throws -> UInt8? { try integerIfPresent(key) }
    func decode(_ type: UInt16?.Type, _ key: Int) throws -> UInt16? { try integerIfPresent(key) }
    func decode(_ type: UInt32?.Type, _ key: Int) throws -> UInt32? { try integerIfPresent(key) }
    func decode(_ type: UInt64?.Type, _ key: Int) throws -> UInt64? { try integerIfPresent(key) }
    func decode(_ type: Data?.Type, _ key: Int) throws -> Data? { try valueIfPresent(key) }
    func decode(_ type: Date?.Type, _ key: Int) throws -> Date? { try valueIfPresent(key) }
    func decode<T: Decodable>(_ type: T?.Type, _ key: Int) throws -> T? { try valueIfPresent(key) }

    private func codingKey(_ key: Int) -> any CodingKey { RecordKey(recordKey(key)) }

    @inline(__always)
    private func column(_ key: Int) throws -> Int {
        try context.recordColumn(column(ofRecordKey: key), key: codingKey(key))
    }

    @inline(__always)
    private func present(_ key: Int) -> Int? { context.presentRecordColumn(column(ofRecordKey: key)) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ key: Int) throws -> I {
        try context.integer(I.self, at: column(key), key: codingKey(key))
    }

    @inline(__always)
    private func integerIfPresent<I: FixedWidthInteger>(_ key: Int) throws -> I? {
        try present(key).map { try context.integer(I.self, at: $0, key: codingKey(key)) }
    }

    @inline(__always)
    private func value<T: Decodable>(_ key: Int) throws -> T {
        try context.value(T.self, at: column(key), key: codingKey(key))
    }

    @inline(__always)
    private func valueIfPresent<T: Decodable>(_ key: Int) throws -> T? {
        try present(key).map { try context.value(T.self, at: $0, key: codingKey(key)) }
    }
}

/// PostgreSQL's `RecordParameters`: a generated record's values by key, each made as `PostgresParameterEncoder`'s
/// keyed container makes it (`PostgresValue.make`), for the statements of the keys the record encodes.
final class PostgresRecordParameters: ValueRecordParameters {
    private let keys: [String]
    private var values: [PostgresValue?]

    private init(keys: [String]) {
        self.keys = keys
        values = Array(repeating: nil, count: keys.count)
    }

    /// The keys and values of `model` through its generated writer, nil when it has none or it throws (the parameter
    /// encoder then runs and throws what is wrong).
    static func encode<T: Encodable>(_ model: T) -> (keys: [String], values: [PostgresValue])? {
        guard let record = model as? any GeneratedRecord else { return nil }
        return encode(record)
    }

    private static func encode<R: GeneratedRecord>(_ record: R) -> (keys: [String], values: [PostgresValue])? {
        let parameters = PostgresRecordParameters(keys: R.recordKeys)
        do {
            try record.encode(to: parameters)
        } catch {
            return nil
        }
        // Every key is written by the generated writer; a key it left out takes the parameter encoder's path.
        var values: [PostgresValue] = []
        values.reserveCapacity(parameters.values.count)
        for value in parameters.values {
            guard let value else { return nil }
            values.append(value)
        }
        return (parameters.keys, values)
    }

    func encodeValue<T: Encodable>(_ value: T, _ key: Int) throws {
        guard values.indices.contains(key) else { return }
        values[key] = try PostgresValue.make(value)
    }

    func encodeNil(_ key: Int) throws {
        guard values.indices.contains(key) else { return }
        values[key] = .null
    }
}
