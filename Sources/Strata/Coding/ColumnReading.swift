internal import CSQLite
import Foundation

/// Typed column reads for the Codable and `Row` paths: the expected storage class is read with one
/// call into SQLite, anything else goes through `DatabaseValue` for the exact conversion or error.
extension Statement {
    /// The INTEGER in column `index`, nil when it holds another storage class.
    @inline(__always)
    func storedInteger(at index: Int32) -> Int64? {
        var value: Int64 = 0
        return strata_column_int64(handle, index, &value) == SQLITE_INTEGER ? value : nil
    }

    @inline(__always)
    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at index: Int32) throws -> T {
        var value: Int64 = 0
        if strata_column_int64(handle, index, &value) == SQLITE_INTEGER, let result = T(exactly: value) {
            return result
        }
        return try storedValue(at: index).exactInteger(as: T.self)
    }

    @inline(__always)
    func readDouble(at index: Int32) throws -> Double {
        var value = 0.0
        if strata_column_double(handle, index, &value) == SQLITE_FLOAT {
            return value
        }
        return try Double(databaseValue: storedValue(at: index))
    }

    @inline(__always)
    func readString(at index: Int32) throws -> String {
        var bytes: UnsafeRawPointer?
        var count: Int32 = 0
        if strata_column_bytes(handle, index, &bytes, &count) == SQLITE_TEXT {
            return try text(bytes, count: count, column: index)
        }
        return try String(databaseValue: storedValue(at: index))
    }

    @inline(__always)
    func readBool(at index: Int32) throws -> Bool {
        var value: Int64 = 0
        if strata_column_int64(handle, index, &value) == SQLITE_INTEGER {
            return value != 0
        }
        return try Bool(databaseValue: storedValue(at: index))
    }

    /// A BLOB's bytes, or TEXT's bytes as they are, even when they are not valid UTF-8.
    @inline(__always)
    func readData(at index: Int32) throws -> Data {
        var bytes: UnsafeRawPointer?
        var count: Int32 = 0
        switch strata_column_bytes(handle, index, &bytes, &count) {
        case SQLITE_BLOB, SQLITE_TEXT:
            // A zero-length BLOB has a null pointer.
            guard let bytes, count > 0 else { return Data() }
            return Data(bytes: bytes, count: Int(count))
        default:
            return try Data(databaseValue: storedValue(at: index))
        }
    }

    @inline(__always)
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Reads the column at `index` as `T`, one of the types most code reads, straight from the C
    /// API, skipping the `DatabaseValue` and protocol look-ups of the general path.
    @inline(__always)
    func read<T>(_ common: CommonType, as type: T.Type, at index: Int32, strategies: ValueStrategies) throws -> T {
        // `common` was made from `T.self`, so every cast below is from a type to itself.
        switch common {
        case .int64: unsafeBitCast(try readInteger(Int64.self, at: index), to: T.self)
        case .int: unsafeBitCast(try readInteger(Int.self, at: index), to: T.self)
        case .double: unsafeBitCast(try readDouble(at: index), to: T.self)
        case .string: unsafeBitCast(try readString(at: index), to: T.self)
        case .bool: unsafeBitCast(try readBool(at: index), to: T.self)
        case .data: unsafeBitCast(try readData(at: index), to: T.self)
        case .date: unsafeBitCast(try Date(databaseValue: storedValue(at: index), using: strategies), to: T.self)
        }
    }
}

/// The types read and bound without a conformance look-up. Comparing metatypes costs a pointer
/// compare; the generic code then casts each value to the type it already has.
enum CommonType {
    case int64, int, double, string, bool, data, date

    @inline(__always)
    init?<T>(_ type: T.Type) {
        if T.self == Int64.self {
            self = .int64
        } else if T.self == Int.self {
            self = .int
        } else if T.self == Double.self {
            self = .double
        } else if T.self == String.self {
            self = .string
        } else if T.self == Bool.self {
            self = .bool
        } else if T.self == Data.self {
            self = .data
        } else if T.self == Date.self {
            self = .date
        } else {
            return nil
        }
    }
}
