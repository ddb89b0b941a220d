package import Foundation

/// A backend's ``RecordParameters`` that binds every value the way its keyed container binds a value of any type:
/// the backend writes `encodeValue(_:_:)` and `encodeNil(_:)`, and every typed overload calls them. These defaults
/// run as generic code (Swift does not specialize them in another module's conformance): right for PostgreSQL, whose
/// values go over the network; SQLite's binder writes every overload itself.
package protocol ValueRecordParameters: RecordParameters {
    /// Binds `value` to the parameter of the `key`-th record key, as the keyed container binds it.
    func encodeValue<T: Encodable>(_ value: T, _ key: Int) throws

    /// Binds NULL to the parameter of the `key`-th record key.
    func encodeNil(_ key: Int) throws
}

extension ValueRecordParameters {
    @inlinable package func encode(_ value: Bool, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: String, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Double, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Float, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Int, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Int8, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Int16, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Int32, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Int64, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: UInt, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: UInt8, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: UInt16, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: UInt32, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: UInt64, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Data, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode(_ value: Date, _ key: Int) throws { try encodeValue(value, key) }
    @inlinable package func encode<T: Encodable>(_ value: T, _ key: Int) throws { try encodeValue(value, key) }

    // MARK: Optionals: nil binds NULL

    @inlinable package func encode(_ value: Bool?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: String?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Double?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Float?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Int?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Int8?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Int16?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Int32?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Int64?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: UInt?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: UInt8?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: UInt16?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: UInt32?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: UInt64?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Data?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode(_ value: Date?, _ key: Int) throws { try encodeOptional(value, key) }
    @inlinable package func encode<T: Encodable>(_ value: T?, _ key: Int) throws { try encodeOptional(value, key) }

    @inlinable @inline(__always)
    package func encodeOptional<T: Encodable>(_ value: T?, _ key: Int) throws {
        if let value { try encodeValue(value, key) } else { try encodeNil(key) }
    }
}
