internal import CSQLite

/// Typed column reads for the Codable path: the common case goes straight to the C API,
/// anything else through `DatabaseValue` for the exact error.
extension Statement {
    @inline(__always)
    func readInteger<T: FixedWidthInteger>(_ type: T.Type, at index: Int32) throws -> T {
        if sqlite3_column_type(handle, index) == SQLITE_INTEGER,
            let value = T(exactly: sqlite3_column_int64(handle, index))
        {
            return value
        }
        return try storedValue(at: index).exactInteger(as: T.self)
    }

    @inline(__always)
    func readDouble(at index: Int32) throws -> Double {
        if sqlite3_column_type(handle, index) == SQLITE_FLOAT {
            return sqlite3_column_double(handle, index)
        }
        return try Double(databaseValue: storedValue(at: index))
    }

    @inline(__always)
    func readString(at index: Int32) throws -> String {
        if sqlite3_column_type(handle, index) == SQLITE_TEXT {
            return try columnText(at: index)
        }
        return try String(databaseValue: storedValue(at: index))
    }

    @inline(__always)
    func readBool(at index: Int32) throws -> Bool {
        if sqlite3_column_type(handle, index) == SQLITE_INTEGER {
            return sqlite3_column_int64(handle, index) != 0
        }
        return try Bool(databaseValue: storedValue(at: index))
    }

    @inline(__always)
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }
}
