internal import CSQLite
public import Foundation

extension Database {
    /// Adds an SQL function written in Swift to this connection.
    ///
    /// ```swift
    /// try db.createFunction("slugify", argumentCount: 1, deterministic: true) { args in
    ///     .text(try String(databaseValue: args[0]).lowercased().replacingOccurrences(of: " ", with: "-"))
    /// }
    /// let slug = try db.fetchOne(String.self, query: "SELECT slugify('Hello World')")   // "hello-world"
    /// ```
    ///
    /// **A function that throws makes the statement fail** with the error's description as SQLite's message;
    /// it never crashes. **Arguments arrive exactly as stored**; a TEXT argument that is not valid UTF-8 makes the
    /// statement fail before the function runs, as reading such a column does (pass `CAST(x AS BLOB)` for its bytes). The function lives as long as the connection: closing the database releases it.
    /// Adding a function with the name and argument count of one already there replaces it.
    ///
    /// - Parameters:
    ///   - name: The function's SQL name.
    ///   - argumentCount: How many arguments it takes, from 0 to 127; -1 for any number.
    ///   - deterministic: Whether the same arguments always give the same result, which lets SQLite use the
    ///     function in an index or a `CHECK` and call it once per statement where it can. False by default.
    ///   - body: Computes the result from the arguments; it runs on the connection's thread, inside a statement.
    /// - Throws: `DatabaseError.Code.invalidArgument` for an empty name or an argument count out of range.
    ///
    /// See https://www.sqlite.org/c3ref/create_function.html
    public func createFunction(
        _ name: String, argumentCount: Int, deterministic: Bool = false,
        _ body: @escaping ([DatabaseValue]) throws -> DatabaseValue
    ) throws {
        guard !name.isEmpty, !name.unicodeScalars.contains("\u{0}") else {
            throw DatabaseError(code: .invalidArgument, message: "an SQL function needs a name without NUL characters")
        }
        guard (-1...127).contains(argumentCount) else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "an SQL function takes 0 to 127 arguments, or -1 for any number; not \(argumentCount)")
        }
        let handle = try openHandle()
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        var flags = SQLITE_UTF8
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let result = sqlite3_create_function_v2(
            handle, name, Int32(argumentCount), flags, box,
            { context, count, arguments in
                guard let context, let box = sqlite3_user_data(context) else { return }
                let function = Unmanaged<FunctionBox>.fromOpaque(box).takeUnretainedValue()
                do {
                    let values = try (0..<Int(count)).map { try DatabaseValue(argument: arguments?[$0], at: $0) }
                    try function.body(values).setResult(of: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            nil, nil,
            { box in box.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
        guard result == SQLITE_OK else {
            // SQLite calls the destructor itself when registration fails.
            throw DatabaseError.sqlite(result, connection: handle)
        }
    }

    /// Adds a collation, a named order for text, to this connection: use it in `ORDER BY`, in a column
    /// definition (`name TEXT COLLATE unicode_ci`) or in an index.
    ///
    /// ```swift
    /// try db.createCollation("unicode_ci") { a, b in a.caseInsensitiveCompare(b) }
    /// let names = try db.fetchAll(String.self, query: "SELECT name FROM tag ORDER BY name COLLATE unicode_ci")
    /// ```
    ///
    /// The comparison must be consistent (a total order), or an index built with it gives wrong results. **TEXT that
    /// is not valid UTF-8 never reaches it repaired**: such text sorts after all valid text, by its bytes, so two
    /// different byte strings never compare equal through a repair. It lives as long as the connection; a database whose schema uses it must define it on every connection that opens
    /// the file (``DatabasePool`` and ``DatabaseQueue`` do this in `configure`).
    ///
    /// See https://www.sqlite.org/c3ref/create_collation.html
    public func createCollation(_ name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws {
        guard !name.isEmpty, !name.unicodeScalars.contains("\u{0}") else {
            throw DatabaseError(code: .invalidArgument, message: "a collation needs a name without NUL characters")
        }
        let handle = try openHandle()
        let box = Unmanaged.passRetained(CollationBox(compare)).toOpaque()
        let result = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, box,
            { box, leftCount, left, rightCount, right in
                guard let box else { return 0 }
                let collation = Unmanaged<CollationBox>.fromOpaque(box).takeUnretainedValue()
                let leftBytes = UnsafeRawBufferPointer(start: left, count: left == nil ? 0 : Int(max(leftCount, 0)))
                let rightBytes = UnsafeRawBufferPointer(start: right, count: right == nil ? 0 : Int(max(rightCount, 0)))
                switch (String(validating: leftBytes, as: UTF8.self), String(validating: rightBytes, as: UTF8.self)) {
                case (let leftText?, let rightText?):
                    switch collation.compare(leftText, rightText) {
                    case .orderedAscending: return -1
                    case .orderedSame: return 0
                    case .orderedDescending: return 1
                    }
                // A total order still: valid text first, then invalid UTF-8 by its bytes, as BINARY orders it.
                case (_?, nil): return -1
                case (nil, _?): return 1
                case (nil, nil): return compareBytes(leftBytes, rightBytes)
                }
            },
            { box in box.map { Unmanaged<CollationBox>.fromOpaque($0).release() } })
        guard result == SQLITE_OK else {
            throw DatabaseError.sqlite(result, connection: handle)
        }
    }

    /// Replaces SQLite's `upper()` and `lower()`, which change ASCII letters only, with versions that change
    /// every letter Unicode knows (`upper('straße')` is `STRASSE`), on this connection.
    ///
    /// ```swift
    /// try db.useUnicodeCaseFunctions()
    /// let name = try db.fetchOne(String.self, query: "SELECT upper('émile')")    // "ÉMILE"
    /// ```
    ///
    /// **Only TEXT changes differently: every other argument gives exactly what SQLite's own functions give.** NULL
    /// stays NULL; a number becomes SQLite's own text for it (`upper(1e20)` is `1.0E+20`, as with the built-in), and a
    /// BLOB becomes TEXT of its bytes with ASCII letters changed, as the built-ins do. TEXT that is not valid UTF-8 is
    /// changed as the built-ins change it too (ASCII letters only, every byte kept), never repaired.
    ///
    /// Strata keeps SQLite's own by default: an expression index built with one definition and queried with the
    /// other gives wrong results, and other SQLite clients of the file see the built-in ones. Apply it to every
    /// connection of a pool or queue in its `configure` block.
    ///
    /// See https://www.sqlite.org/lang_corefunc.html#upper
    public func useUnicodeCaseFunctions() throws {
        let handle = try openHandle()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let upper = sqlite3_create_function_v2(handle, "upper", 1, flags, nil, uppercaseFunction, nil, nil, nil)
        guard upper == SQLITE_OK else { throw DatabaseError.sqlite(upper, connection: handle) }
        let lower = sqlite3_create_function_v2(handle, "lower", 1, flags, nil, lowercaseFunction, nil, nil, nil)
        guard lower == SQLITE_OK else { throw DatabaseError.sqlite(lower, connection: handle) }
    }
}

/// `upper(X)` over all of Unicode (see ``Database/useUnicodeCaseFunctions()``).
private func uppercaseFunction(
    context: OpaquePointer?, count: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    changeCase(context: context, count: count, arguments: arguments, upper: true)
}

/// `lower(X)` over all of Unicode (see ``Database/useUnicodeCaseFunctions()``).
private func lowercaseFunction(
    context: OpaquePointer?, count: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    changeCase(context: context, count: count, arguments: arguments, upper: false)
}

/// Sets the result of `upper(X)` or `lower(X)`: valid UTF-8 TEXT with its case changed as Swift changes it; anything
/// else exactly as SQLite's built-in function gives it.
///
/// The built-ins take the argument's text from SQLite (`sqlite3_value_text`, which is SQLite's own text for a number,
/// and a BLOB's bytes as they are), change the ASCII letters of those bytes, and return them as TEXT of the same
/// length; NULL gives NULL. The same is done here for every argument that is not valid UTF-8 TEXT.
private func changeCase(
    context: OpaquePointer?, count: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?, upper: Bool
) {
    guard let context, count == 1, let argument = arguments?[0] else { return }
    let isText = sqlite3_value_type(argument) == SQLITE_TEXT
    // As the built-ins: NULL (no text) leaves the result NULL. `_text` comes before `_bytes`, as SQLite asks.
    guard let start = sqlite3_value_text(argument) else { return }
    let bytes = UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(argument)))
    if isText, let text = String(validating: bytes, as: UTF8.self) {
        DatabaseValue.text(upper ? text.uppercased() : text.lowercased()).setResult(of: context)
        return
    }
    let changed = bytes.map { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z") where upper: byte - 32
        case UInt8(ascii: "A")...UInt8(ascii: "Z") where !upper: byte + 32
        default: byte
        }
    }
    changed.withUnsafeBufferPointer { changed in
        guard let start = changed.baseAddress, !changed.isEmpty else {
            sqlite3_result_text(context, "", 0, nil)
            return
        }
        start.withMemoryRebound(to: CChar.self, capacity: changed.count) {
            sqlite3_result_text64(
                context, $0, UInt64(changed.count), strata_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }
}

/// A Swift function kept alive for SQLite while the connection has it.
private final class FunctionBox {
    let body: ([DatabaseValue]) throws -> DatabaseValue
    init(_ body: @escaping ([DatabaseValue]) throws -> DatabaseValue) { self.body = body }
}

/// A Swift comparison kept alive for SQLite while the connection has it.
private final class CollationBox {
    let compare: (String, String) -> ComparisonResult
    init(_ compare: @escaping (String, String) -> ComparisonResult) { self.compare = compare }
}

/// The order of SQLite's BINARY collation: `memcmp` over the common length, then the shorter first.
private func compareBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int32 {
    for (leftByte, rightByte) in zip(left, right) where leftByte != rightByte {
        return leftByte < rightByte ? -1 : 1
    }
    return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
}

extension DatabaseValue {
    /// The value of an SQL function's argument at `index` (from 0); TEXT that is not valid UTF-8 throws, as it does
    /// from a row, rather than reaching the function repaired.
    fileprivate init(argument value: OpaquePointer?, at index: Int) throws {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // `_text` before `_bytes`, as SQLite asks.
            guard let start = sqlite3_value_text(value) else {
                throw DatabaseError(
                    code: .invalidValue,
                    message: "SQLite could not give the text of argument \(index + 1): out of memory")
            }
            let bytes = UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw DatabaseError(
                    code: .invalidValue,
                    message: "argument \(index + 1) is TEXT that is not valid UTF-8; pass it as a BLOB "
                        + "(CAST(x AS BLOB)) to get its bytes")
            }
            self = .text(text)
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            self = .blob(sqlite3_value_blob(value).map { Data(bytes: $0, count: count) } ?? Data())
        default:
            self = .null
        }
    }

    /// Makes this value the result of the SQL function call `context`.
    fileprivate func setResult(of context: OpaquePointer) {
        switch self {
        case .null:
            sqlite3_result_null(context)
        case .integer(let value):
            sqlite3_result_int64(context, value)
        case .real(let value):
            sqlite3_result_double(context, value)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                guard let start = bytes.baseAddress, !bytes.isEmpty else {
                    sqlite3_result_text(context, "", 0, nil)
                    return
                }
                start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_result_text64(
                        context, $0, UInt64(bytes.count), strata_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                guard let start = bytes.baseAddress, !bytes.isEmpty else {
                    sqlite3_result_zeroblob(context, 0)
                    return
                }
                sqlite3_result_blob64(context, start, UInt64(bytes.count), strata_sqlite_transient())
            }
        }
    }
}
