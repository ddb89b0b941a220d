internal import StrataCore

/// The keyed container of a PostgreSQL row: StrataCore's keyed reads (those of `RowContext`), declared here for
/// this backend's reader so that every call is to those reads specialized for it, as SQLite's
/// `StatementRowContainer` is (StrataCore's `RowKeyedContainer`, generic over the reader, made `fetchAll` about 20%
/// slower here).
struct PostgresRowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: RowContext<PostgresRowReader>

    var codingPath: [any CodingKey] { row.codingPath }
    var allKeys: [Key] { row.allKeys(Key.self) }
    func contains(_ key: Key) -> Bool { row.contains(named: key.stringValue) }
    func decodeNil(forKey key: Key) throws -> Bool { try row.decodeNil(named: key.stringValue, key: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try row.decode(type, named: key.stringValue, key: key)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try row.decode(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try row.decode(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try row.decode(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try row.decodeInteger(type, named: key.stringValue, key: key)
    }
    // The column looked up in code specialized for the reader; the value through StrataCore's generic read.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try row.value(type, at: row.requiredColumn(key.stringValue, key: key), key: key)
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try row.decodeIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try row.decodeIntegerIfPresent(type, named: key.stringValue, key: key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try row.presentColumn(key.stringValue).map { try row.value(type, at: $0, key: key) }
    }
    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw row.unsupportedNesting(key)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw row.unsupportedNesting(key)
    }
    func superDecoder() throws -> any Decoder { RowDecoding(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoding(row: row) }
}

/// The `Decoder` a value's `init(from:)` sees for a PostgreSQL row: StrataCore's row decoding, with this backend's
/// keyed container. One serves the rows of a result one after another, keeping the container the first row made.
final class PostgresRowDecoding: Decoder {
    let row: RowContext<PostgresRowReader>
    @exclusivity(unchecked) private var containers = ContainerCache()
    /// The last type decoded, and its generated reader's keys when it has one: decided once per type, not per row.
    @exclusivity(unchecked) private var generatedRecords: GeneratedRecordCache<GeneratedReader>
    /// A generated record type and its keys.
    typealias GeneratedReader = (type: any GeneratedRecord.Type, keys: [String])

    init(reader: PostgresRowReader, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any], usesGeneratedCode: Bool) {
        row = RowContext(reader: reader, mapping: mapping, userInfo: userInfo)
        self.generatedRecords = GeneratedRecordCache(usesGeneratedCode: usesGeneratedCode)
    }

    var reader: PostgresRowReader { row.reader }
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { row.userInfo }

    func beginRow() { row.reader.beginRow() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A one-column row of a storable type reads as that value, even for a type that also has generated code.
        if row.reader.columnCount != 1 || !(T.self is any DatabaseValueConvertible.Type),
            let record = generatedRecord(T.self)
        {
            return try decodeGenerated(record.type, keys: record.keys, as: T.self)
        }
        return try row.decodeRow(T.self, from: self)
    }

    /// `T` as a `GeneratedRecord` and its keys, nil when it has no generated reader.
    private func generatedRecord<T>(_ type: T.Type) -> GeneratedReader? {
        generatedRecords.record(T.self) { ($0, $0.recordKeys) }
    }

    /// Reads the current row through `R`'s generated reader; `R` is `T`.
    private func decodeGenerated<R: GeneratedRecord, T>(_ record: R.Type, keys: [String], as type: T.Type) throws
        -> T
    {
        guard let value = try R(row: PostgresRecordRow(context: row, keys: keys)) as? T else {
            throw DatabaseError(code: .typeMismatch, message: "could not decode \(T.self) through \(R.self)")
        }
        return value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        containers.container(keyedBy: Key.self) { KeyedDecodingContainer(PostgresRowContainer<Key>(row: row)) }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw row.unkeyedContainerError() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { try row.singleValueContainer() }
}
