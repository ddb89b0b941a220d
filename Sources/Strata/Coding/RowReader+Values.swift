import Foundation

/// The reads of one column by its index, shared by the keyed container (which finds the index by coding key) and
/// by generated records (which resolved it once per statement), so that both give the same values and errors.
///
/// An index of -1 is a column the row does not have: an error for a required value, nil for an optional one.
/// `key` is only evaluated for an error.
extension RowReader {
    @inline(__always)
    func bool(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Bool {
        try read(at: index, key: key) { try statement.readBool(at: $0) }
    }
    @inline(__always)
    func string(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> String {
        try read(at: index, key: key) { try statement.readString(at: $0) }
    }
    @inline(__always)
    func double(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Double {
        try read(at: index, key: key) { try statement.readDouble(at: $0) }
    }
    @inline(__always)
    func float(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Float {
        try read(at: index, key: key) { try Float(databaseValue: statement.storedValue(at: $0)) }
    }
    @inline(__always)
    func integer<T: FixedWidthInteger>(
        _ type: T.Type, at index: Int32, key: @autoclosure () -> any CodingKey
    ) throws -> T {
        try read(at: index, key: key) { try statement.readInteger(T.self, at: $0) }
    }
    /// Any `Decodable`, through ``decodeValue(_:at:key:)``.
    @inline(__always)
    func value<T: Decodable>(_ type: T.Type, at index: Int32, key: @autoclosure () -> any CodingKey) throws -> T {
        guard index >= 0 else { throw keyNotFound(key()) }
        return try decodeValue(T.self, at: index, key: key())
    }

    // MARK: Optionals: a missing column or NULL is nil

    @inline(__always)
    func boolIfPresent(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Bool? {
        try readIfPresent(at: index, key: key) { try statement.readBool(at: $0) }
    }
    @inline(__always)
    func stringIfPresent(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> String? {
        try readIfPresent(at: index, key: key) { try statement.readString(at: $0) }
    }
    @inline(__always)
    func doubleIfPresent(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Double? {
        try readIfPresent(at: index, key: key) { try statement.readDouble(at: $0) }
    }
    @inline(__always)
    func floatIfPresent(at index: Int32, key: @autoclosure () -> any CodingKey) throws -> Float? {
        try readIfPresent(at: index, key: key) { try Float(databaseValue: statement.storedValue(at: $0)) }
    }
    @inline(__always)
    func integerIfPresent<T: FixedWidthInteger>(
        _ type: T.Type, at index: Int32, key: @autoclosure () -> any CodingKey
    ) throws -> T? {
        try readIfPresent(at: index, key: key) { try statement.readInteger(T.self, at: $0) }
    }
    @inline(__always)
    func valueIfPresent<T: Decodable>(
        _ type: T.Type, at index: Int32, key: @autoclosure () -> any CodingKey
    ) throws -> T? {
        guard index >= 0, !statement.isNull(at: index) else { return nil }
        return try decodeValue(T.self, at: index, key: key())
    }

    // MARK: Helpers

    @inline(__always)
    private func read<T>(at index: Int32, key: () -> any CodingKey, _ body: (Int32) throws -> T) throws -> T {
        guard index >= 0 else { throw keyNotFound(key()) }
        do {
            return try body(index)
        } catch {
            throw decodingError(error, type: T.self, at: index, key: key())
        }
    }

    @inline(__always)
    private func readIfPresent<T>(at index: Int32, key: () -> any CodingKey, _ body: (Int32) throws -> T) throws -> T? {
        guard index >= 0, !statement.isNull(at: index) else { return nil }
        do {
            return try body(index)
        } catch {
            throw decodingError(error, type: T.self, at: index, key: key())
        }
    }
}
