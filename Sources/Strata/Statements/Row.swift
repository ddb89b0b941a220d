internal import CSQLite
import Foundation

/// The current row of a statement, read by column name, index or dynamic member.
///
/// ```swift
/// let name: String = try row["name"]
/// let age: Int = try row.age          // @dynamicMemberLookup
/// let nickname: String? = try row.nickname   // NULL reads as nil
/// let first: String = try row[0]
/// let raw: DatabaseValue = try row["age"]
/// ```
///
/// A row is a view of its statement's current row, not a copy: reading it after the
/// statement has stepped again or reset throws `DatabaseError.Code.staleRow`.
/// Decode what you need (or use `RowDecoder`) before moving on.
///
/// Every read throws instead of guessing: an unknown column, NULL into a non-optional, a
/// number outside the requested type's range, TEXT read as a number.
@dynamicMemberLookup
public struct Row {
    let statement: Statement
    let generation: UInt64

    /// The number of columns.
    public var columnCount: Int { statement.columnCount }

    /// The column names, in order.
    public var columnNames: [String] { statement.columnNames }

    /// The value of the column at `index` (0-based), converted to `Value`.
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        get throws {
            try read(Value.self, at: try checkedIndex(index))
        }
    }

    /// The value of the column named `name`, converted to `Value`.
    public subscript<Value: DatabaseValueConvertible>(_ name: String) -> Value {
        get throws {
            try read(Value.self, at: try index(of: name))
        }
    }

    /// The value of the column named like the member: `try row.age`.
    public subscript<Value: DatabaseValueConvertible>(dynamicMember name: String) -> Value {
        get throws {
            try read(Value.self, at: try index(of: name))
        }
    }

    /// Whether the row has a column named `name`.
    public func hasColumn(_ name: String) -> Bool {
        statement.columnIndex(named: name) != nil
    }

    /// The row decoded as `T`, as `fetchAll(T.self, ...)` decodes it (the same call as
    /// `decoder.decode(T.self, from: row)`, and as a PostgreSQL row's `decode(_:decoder:)`).
    ///
    /// - Throws: `DecodingError` naming the column; `DatabaseError` when the row is stale or its database closed.
    public func decode<T: Decodable>(_ type: T.Type, decoder: RowDecoder = RowDecoder()) throws -> T {
        try decoder.decode(T.self, from: self)
    }

    // MARK: Internal

    /// Checks that the row is still the statement's current row on an open connection.
    @inline(__always)
    func checkCurrent() throws {
        guard statement.connection.handle != nil else { throw DatabaseError.closed(sql: statement.sql) }
        guard statement.generation == generation else {
            throw DatabaseError(
                code: .staleRow,
                message: "the row was read after its statement moved on; decode rows before stepping again",
                sql: statement.sql)
        }
    }

    func checkedIndex(_ index: Int) throws -> Int32 {
        guard index >= 0, index < statement.columnCount else {
            throw DatabaseError(
                code: .unknownColumn,
                message: "no column at index \(index): the row has \(statement.columnCount) columns",
                sql: statement.sql)
        }
        return Int32(index)
    }

    func index(of name: String) throws -> Int32 {
        guard let index = statement.columnIndex(named: name) else {
            throw DatabaseError(
                code: .unknownColumn,
                message: "no column named \"\(name)\"; the row has "
                    + statement.columnNames.map { "\"\($0)\"" }.joined(separator: ", "),
                sql: statement.sql)
        }
        return index
    }

    func read<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) throws -> Value {
        try checkCurrent()
        if let common = CommonType(Value.self) {
            do {
                return try statement.read(common, as: Value.self, at: index, strategies: statement.strategies)
            } catch {
                throw statement.conversionError(error, reading: Value.self, from: .null, at: index)
            }
        }
        return try readConverted(Value.self, at: index)
    }

    /// Reads any other type through its conversion from the stored value. Kept out of `read` so that
    /// the common path does not pay for the `Data?` metatype, whose look-up costs as much as a read.
    @inline(never)
    private func readConverted<Value: DatabaseValueConvertible>(_ type: Value.Type, at index: Int32) throws -> Value {
        // Data? reads TEXT as its bytes, as Data does in `readData(at:)`, even when they are not valid UTF-8.
        let value: DatabaseValue
        do {
            value =
                Value.self == Data?.self
                ? statement.storedBytes(at: index) : try statement.storedValue(at: index)
        } catch {
            throw statement.conversionError(error, reading: Value.self, from: .null, at: index)
        }
        do {
            return try Value.decoded(from: value, using: statement.strategies)
        } catch {
            throw statement.conversionError(error, reading: Value.self, from: value, at: index)
        }
    }
}

extension Statement {
    /// The value of column `index` of the current row. Callers have checked the row is current.
    func storedValue(at index: Int32) throws -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            return .text(try columnText(at: index))
        case SQLITE_BLOB:
            return .blob(columnBlob(at: index))
        default:
            return .null
        }
    }

    /// The value of column `index` with TEXT given as a BLOB of its bytes, for readers of bytes.
    func storedBytes(at index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT, SQLITE_BLOB: .blob(columnBlob(at: index))
        default: .null
        }
    }

    /// The TEXT of column `index`; invalid UTF-8 throws rather than being silently repaired.
    func columnText(at index: Int32) throws -> String {
        try text(sqlite3_column_text(handle, index), count: sqlite3_column_bytes(handle, index), column: index)
    }

    /// `count` bytes of TEXT read from column `column` as a string; invalid UTF-8 throws.
    func text(_ start: UnsafeRawPointer?, count: Int32, column: Int32) throws -> String {
        guard let start, count > 0 else { return "" }
        let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: Int(count))
        // `String(decoding:)` is the standard library's fast, specialized path, but it repairs invalid
        // UTF-8; the text is valid exactly when the repair changed no byte.
        var text = String(decoding: bytes, as: UTF8.self)
        let unchanged = text.withUTF8 { decoded in
            guard decoded.count == bytes.count, let decodedBytes = decoded.baseAddress else {
                return decoded.count == bytes.count
            }
            return memcmp(decodedBytes, start, bytes.count) == 0
        }
        guard unchanged else {
            throw DatabaseError(
                code: .invalidValue,
                message: "TEXT is not valid UTF-8; read the column as Data to get its bytes",
                sql: sql, column: columnNames[Int(column)], columnIndex: Int(column),
                underlyingError: InvalidUTF8Text())
        }
        return text
    }

    func columnBlob(at index: Int32) -> Data {
        // A zero-length BLOB has a null pointer.
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Wraps a failed conversion into a ``DatabaseError`` that names the column, the stored type and the requested type.
    func conversionError(_ error: any Error, reading type: Any.Type, from value: DatabaseValue, at index: Int32)
        -> DatabaseError
    {
        let name = columnNames.indices.contains(Int(index)) ? columnNames[Int(index)] : nil
        let databaseError = error as? DatabaseError ?? .failedConversion(error, reading: type, from: value)
        return databaseError.naming(requested: type).located(column: name, index: Int(index), sql: sql)
    }
}

/// Marks the error of TEXT that is not valid UTF-8: the column reader adds the type it was asked for.
struct InvalidUTF8Text: Error {}

extension DatabaseError {
    /// The error of invalid UTF-8 TEXT, reworded to name the requested type like every other conversion error:
    /// `could not decode Int from TEXT (not valid UTF-8; ...)`. Any other error is returned as it is.
    func naming(requested type: Any.Type) -> DatabaseError {
        guard underlyingError is InvalidUTF8Text else { return self }
        return withMessage(
            "could not decode \(type) from TEXT (not valid UTF-8; read the column as Data to get its bytes)")
    }
}
