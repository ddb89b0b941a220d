package import Foundation

/// A backend's ``RecordRow`` over a ``ColumnReader``: the backend says which column each record key reads, and
/// StrataCore reads it exactly as its keyed container reads that key (`RowContext`'s reads), in code specialized for
/// the backend's reader.
package protocol ColumnRecordRow: RecordRow {
    associatedtype Reader: ColumnReader

    /// The row's reads.
    var context: RowContext<Reader> { get }

    /// The column of the `key`-th record key, nil when the row has none.
    func column(ofRecordKey key: Int) -> Int?

    /// The `key`-th record key, for an error.
    func recordKey(_ key: Int) -> String
}

extension ColumnRecordRow {
    @inlinable
    package func decode(_ type: Bool.Type, _ key: Int) throws -> Bool {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeBool(at: $0) }
    }
    @inlinable
    package func decode(_ type: String.Type, _ key: Int) throws -> String {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeString(at: $0) }
    }
    @inlinable
    package func decode(_ type: Double.Type, _ key: Int) throws -> Double {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
    }
    @inlinable
    package func decode(_ type: Float.Type, _ key: Int) throws -> Float {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
    }
    @inlinable package func decode(_ type: Int.Type, _ key: Int) throws -> Int { try integer(key) }
    @inlinable package func decode(_ type: Int8.Type, _ key: Int) throws -> Int8 { try integer(key) }
    @inlinable package func decode(_ type: Int16.Type, _ key: Int) throws -> Int16 { try integer(key) }
    @inlinable package func decode(_ type: Int32.Type, _ key: Int) throws -> Int32 { try integer(key) }
    @inlinable package func decode(_ type: Int64.Type, _ key: Int) throws -> Int64 { try integer(key) }
    @inlinable package func decode(_ type: UInt.Type, _ key: Int) throws -> UInt { try integer(key) }
    @inlinable package func decode(_ type: UInt8.Type, _ key: Int) throws -> UInt8 { try integer(key) }
    @inlinable package func decode(_ type: UInt16.Type, _ key: Int) throws -> UInt16 { try integer(key) }
    @inlinable package func decode(_ type: UInt32.Type, _ key: Int) throws -> UInt32 { try integer(key) }
    @inlinable package func decode(_ type: UInt64.Type, _ key: Int) throws -> UInt64 { try integer(key) }
    // Data and Date read as the generic path reads them, in code specialized for them.
    @inlinable package func decode(_ type: Data.Type, _ key: Int) throws -> Data { try value(key) }
    @inlinable package func decode(_ type: Date.Type, _ key: Int) throws -> Date { try value(key) }
    @inlinable package func decode<T: Decodable>(_ type: T.Type, _ key: Int) throws -> T { try value(key) }

    // MARK: Optionals: a missing column or NULL is nil

    @inlinable
    package func decode(_ type: Bool?.Type, _ key: Int) throws -> Bool? {
        try present(key).map { try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeBool(at: $0) } }
    }
    @inlinable
    package func decode(_ type: String?.Type, _ key: Int) throws -> String? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeString(at: $0) }
        }
    }
    @inlinable
    package func decode(_ type: Double?.Type, _ key: Int) throws -> Double? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
        }
    }
    @inlinable
    package func decode(_ type: Float?.Type, _ key: Int) throws -> Float? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
        }
    }
    @inlinable package func decode(_ type: Int?.Type, _ key: Int) throws -> Int? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: Int8?.Type, _ key: Int) throws -> Int8? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: Int16?.Type, _ key: Int) throws -> Int16? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: Int32?.Type, _ key: Int) throws -> Int32? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: Int64?.Type, _ key: Int) throws -> Int64? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: UInt?.Type, _ key: Int) throws -> UInt? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: UInt8?.Type, _ key: Int) throws -> UInt8? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: UInt16?.Type, _ key: Int) throws -> UInt16? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: UInt32?.Type, _ key: Int) throws -> UInt32? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: UInt64?.Type, _ key: Int) throws -> UInt64? { try integerIfPresent(key) }
    @inlinable package func decode(_ type: Data?.Type, _ key: Int) throws -> Data? { try valueIfPresent(key) }
    @inlinable package func decode(_ type: Date?.Type, _ key: Int) throws -> Date? { try valueIfPresent(key) }
    @inlinable package func decode<T: Decodable>(_ type: T?.Type, _ key: Int) throws -> T? { try valueIfPresent(key) }

    // MARK: Helpers

    @inlinable @inline(__always)
    package func codingKey(_ key: Int) -> any CodingKey { RecordKey(recordKey(key)) }

    /// The column of the `key`-th key, or the error of a missing one.
    @inlinable @inline(__always)
    package func column(_ key: Int) throws -> Int {
        guard let index = column(ofRecordKey: key) else { throw context.keyNotFound(codingKey(key)) }
        return index
    }

    /// The column of the `key`-th key, nil when the row has none or its value is NULL.
    @inlinable @inline(__always)
    package func present(_ key: Int) -> Int? {
        guard let index = column(ofRecordKey: key), !context.reader.isNull(at: index) else { return nil }
        return index
    }

    @inlinable @inline(__always)
    package func value<T: Decodable>(_ key: Int) throws -> T {
        try context.value(T.self, at: column(key), key: codingKey(key))
    }

    @inlinable @inline(__always)
    package func valueIfPresent<T: Decodable>(_ key: Int) throws -> T? {
        try present(key).map { try context.value(T.self, at: $0, key: codingKey(key)) }
    }

    @inlinable @inline(__always)
    package func integer<I: FixedWidthInteger>(_ key: Int) throws -> I {
        try context.integer(I.self, at: column(key), key: codingKey(key))
    }

    @inlinable @inline(__always)
    package func integerIfPresent<I: FixedWidthInteger>(_ key: Int) throws -> I? {
        try present(key).map { try context.integer(I.self, at: $0, key: codingKey(key)) }
    }
}
