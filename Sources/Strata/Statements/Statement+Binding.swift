internal import CSQLite
import Foundation

extension Statement {
    /// Binds `value` to the parameter named `name` (`:name`, `@name` or `$name` in the SQL).
    ///
    /// ```swift
    /// try insert.bind(value: "Bar", for: "name")
    /// try insert.bind(value: nil as String?, for: "nickname")   // NULL
    /// ```
    ///
    /// The value is stored with the statement's strategies. It stays bound across
    /// ``reset()`` until rebound or ``clearBindings()``.
    ///
    /// - Throws: `DatabaseError.Code.unknownParameter` when the statement has no such
    ///   parameter; `DatabaseError.Code.valueOutOfRange` for an unsigned value above `Int64.max`.
    ///
    /// See https://www.sqlite.org/c3ref/bind_blob.html
    public func bind<Value: DatabaseValueConvertible>(value: Value, for name: String) throws {
        _ = try connection.openHandle(sql: sql)
        let stored = try storedForBinding(value)
        for index in try parameterIndexes(for: name) {
            try bindStored(stored, at: index)
        }
    }

    /// Binds `value` to the parameter at `index`, counted from 1 as in SQLite.
    ///
    /// - Throws: `DatabaseError.Code.unknownParameter` when `index` is outside `1...parameterCount`.
    public func bind<Value: DatabaseValueConvertible>(value: Value, at index: Int) throws {
        _ = try connection.openHandle(sql: sql)
        let parameter = try parameterIndex(index)
        if let common = CommonType(Value.self) {
            return try bind(common, value, at: parameter, strategies: strategies)
        }
        try bindStored(try storedForBinding(value), at: parameter)
    }

    /// Binds each value of `values` to the parameter of the same name; every name must exist.
    ///
    /// ```swift
    /// try statement.bind(["name": "Bar", "age": 42])
    /// ```
    public func bind(_ values: [String: any DatabaseValueConvertible]) throws {
        for (name, value) in values {
            try bind(value: value, for: name)
        }
    }

    /// Binds `values` to the parameters at indexes 1, 2, ... in order.
    public func bind(_ values: [any DatabaseValueConvertible]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value: value, at: offset + 1)
        }
    }

    // MARK: Internal

    /// The stored form of `value` under the statement's strategies; a failure names the statement.
    private func storedForBinding<Value: DatabaseValueConvertible>(_ value: Value) throws -> DatabaseValue {
        try stored(value, using: strategies)
    }

    private func stored<Value: DatabaseValueConvertible>(_ value: Value, using strategies: ValueStrategies) throws
        -> DatabaseValue
    {
        do {
            return try value.storedValue(using: strategies)
        } catch let error as DatabaseError {
            throw error.located(column: nil, index: nil, sql: sql)
        }
    }

    /// The indexes of the parameter `name`, which may carry its prefix.
    func parameterIndexes(for name: String) throws -> [Int32] {
        let indexes = parameterIndexes()
        if let found = indexes[name] { return found }
        if let first = name.unicodeScalars.first, ":@$".unicodeScalars.contains(first),
            let found = indexes[String(name.unicodeScalars.dropFirst())]
        {
            return found
        }
        let known = indexes.keys.sorted().map { ":" + $0 }.joined(separator: ", ")
        throw DatabaseError(
            code: .unknownParameter,
            message: "the statement has no parameter named \"\(name)\""
                + (known.isEmpty ? " (it has no named parameters)" : " (it has \(known))"),
            sql: sql)
    }

    func parameterIndex(_ index: Int) throws -> Int32 {
        guard index >= 1, index <= parameterCount, let index32 = Int32(exactly: index) else {
            throw DatabaseError(
                code: .unknownParameter,
                message: "parameter index \(index) is outside 1...\(parameterCount)", sql: sql)
        }
        return index32
    }

    /// Binds `value`, of one of the types most code binds, straight through the C API.
    @inline(__always)
    func bind<T>(_ common: CommonType, _ value: T, at index: Int32, strategies: ValueStrategies) throws {
        // `common` was made from `T.self`, so every cast below is from a type to itself.
        switch common {
        case .int64: try bindInteger(unsafeBitCast(value, to: Int64.self), at: index)
        case .int: try bindInteger(Int64(unsafeBitCast(value, to: Int.self)), at: index)
        case .double: try bindReal(unsafeBitCast(value, to: Double.self), at: index)
        case .string: try bindText(unsafeBitCast(value, to: String.self), at: index)
        case .bool: try bindInteger(unsafeBitCast(value, to: Bool.self) ? 1 : 0, at: index)
        case .data: try bindBlob(unsafeBitCast(value, to: Data.self), at: index)
        case .date: try bindStored(try stored(unsafeBitCast(value, to: Date.self), using: strategies), at: index)
        }
    }

    /// Binds a stored value. Callers have checked that the connection is open.
    func bindStored(_ value: DatabaseValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bindInteger(integer, at: index)
        case .real(let real): try bindReal(real, at: index)
        case .text(let text): try bindText(text, at: index)
        case .blob(let blob): try bindBlob(blob, at: index)
        }
    }

    /// Binds a primary key to the only parameter of a statement Strata built (`find`): an integer key, the common
    /// kind, straight to the C API; any other as ``bind(value:at:)`` binds it.
    @inlinable
    func bindKey(_ key: some DatabaseValueConvertible) throws {
        // In code specialized for the key's type, these casts are decided when compiling.
        if let key = key as? Int64 {
            try bindKey(key)
        } else if let key = key as? Int {
            try bindKey(Int64(key))
        } else {
            try bind(value: key, at: 1)
        }
    }

    @usableFromInline
    func bindKey(_ key: Int64) throws {
        try bindInteger(key, at: 1)
    }

    @inline(__always)
    func bindInteger(_ value: Int64, at index: Int32) throws {
        try bindChecked { sqlite3_bind_int64(handle, index, value) }
    }

    @inline(__always)
    func bindReal(_ value: Double, at index: Int32) throws {
        guard !value.isNaN else {
            // SQLite would store NULL: a value lost without a word.
            throw DatabaseError(
                code: .invalidValue, message: "could not bind NaN: SQLite stores it as NULL", sql: sql)
        }
        try bindChecked { sqlite3_bind_double(handle, index, value) }
    }

    @inline(__always)
    func bindNull(at index: Int32) throws {
        try bindChecked { sqlite3_bind_null(handle, index) }
    }

    func bindText(_ value: String, at index: Int32) throws {
        var value = value
        try value.withUTF8 { bytes in
            // A null pointer would bind NULL, so "" binds a literal empty C string.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return try bindChecked {
                    sqlite3_bind_text64(handle, index, "", 0, strata_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
            let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            try bindChecked {
                sqlite3_bind_text64(
                    handle, index, text, UInt64(bytes.count), strata_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }

    func bindBlob(_ value: Data, at index: Int32) throws {
        try value.withUnsafeBytes { bytes in
            // An empty Data has no base address, and a null pointer would bind NULL: bind a zero-length blob.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return try bindChecked { sqlite3_bind_zeroblob(handle, index, 0) }
            }
            try bindChecked { sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), strata_sqlite_transient()) }
        }
    }

    /// Runs one `sqlite3_bind_*` call. A statement left mid-run (stepped but not reset) cannot
    /// be bound, so it is reset and bound again: binding means the caller is done with its rows.
    @inline(__always)
    private func bindChecked(_ bind: () -> Int32) throws {
        let result = bind()
        guard result != SQLITE_OK else { return }
        if result == SQLITE_MISUSE {
            reset()
            let retried = bind()
            if retried == SQLITE_OK { return }
            try bindFailed(retried)
        }
        try bindFailed(result)
    }

    private func bindFailed(_ result: Int32) throws {
        if result == SQLITE_RANGE {
            throw DatabaseError(code: .unknownParameter, message: "parameter index out of range", sql: sql)
        }
        throw DatabaseError.sqlite(result, connection: connection.handle, sql: sql)
    }
}

/// Binds by index with none of the checked binds' bookkeeping, for a generated record whose keys are its statement's
/// parameters in order (see `RecordParameters`). Each bind returns false when the checked bind must run instead:
/// SQLite refused the value, or the value is one the checked bind treats apart (NaN, an empty string or blob), so
/// that what is bound, and every error, is the checked bind's.
struct IndexBinder {
    let handle: OpaquePointer

    @inline(__always)
    func bind(_ value: Int64, at index: Int32) -> Bool {
        sqlite3_bind_int64(handle, index, value) == SQLITE_OK
    }

    @inline(__always)
    func bind(_ value: Double, at index: Int32) -> Bool {
        !value.isNaN && sqlite3_bind_double(handle, index, value) == SQLITE_OK
    }

    @inline(__always)
    func bind(_ value: String, at index: Int32) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text64(
                handle, index, text, UInt64(bytes.count), strata_sqlite_transient(), UInt8(SQLITE_UTF8)) == SQLITE_OK
        }
    }

    @inline(__always)
    func bind(_ value: Data, at index: Int32) -> Bool {
        value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), strata_sqlite_transient()) == SQLITE_OK
        }
    }
}
