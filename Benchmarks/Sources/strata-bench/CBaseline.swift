internal import CSQLiteBench
import Foundation

/// A connection through the SQLite C API, as hand-written code would use it: statements
/// prepared once, parameters bound and columns read by index, `sqlite3_reset` between runs.
final class CDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            throw BenchmarkFailure("sqlite3_open_v2(\(path)) failed with \(result)")
        }
        handle = connection
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error \(result)"
            sqlite3_free(message)
            throw BenchmarkFailure("\(text) - while executing `\(sql)`")
        }
    }

    func prepare(_ sql: String) throws -> CStatement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result, sql: sql) }
        return CStatement(handle: statement)
    }

    func failure(_ result: Int32, sql: String) -> BenchmarkFailure {
        BenchmarkFailure("SQLite error \(result): \(String(cString: sqlite3_errmsg(handle))) - `\(sql)`")
    }

    /// Runs `sql` with one TEXT parameter (ATTACH, VACUUM INTO take a path).
    func execute(_ sql: String, text: String) throws {
        let statement = try prepare(sql)
        try statement.check(sqlite3_bind_text(statement.handle, 1, text, -1, bench_sqlite_transient()), database: self)
        let result = sqlite3_step(statement.handle)
        guard result == SQLITE_DONE else { throw failure(result, sql: sql) }
    }

    /// Copies the rows of the file `source` into this database's `item` table.
    func load(from source: String) throws {
        try execute(Workload.attachSQL, text: source)
        try execute(Workload.copySQL)
        try execute(Workload.detachSQL)
    }

    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

final class CStatement {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { sqlite3_finalize(handle) }

    @inline(__always)
    func check(_ result: Int32, database: CDatabase) throws {
        guard result == SQLITE_OK else { throw database.failure(result, sql: "bind") }
    }

    /// Binds the ten fields of `item` by index.
    @inline(__always)
    func bind(_ item: Item, database: CDatabase) throws {
        let statement = handle
        try check(sqlite3_bind_int64(statement, 1, item.id), database: database)
        try check(sqlite3_bind_int64(statement, 2, item.a), database: database)
        try check(sqlite3_bind_int64(statement, 3, Int64(item.b)), database: database)
        try check(sqlite3_bind_int64(statement, 4, Int64(item.c)), database: database)
        try check(sqlite3_bind_double(statement, 5, item.d), database: database)
        try check(sqlite3_bind_double(statement, 6, item.e), database: database)
        try check(bindText(item.name, at: 7), database: database)
        try check(bindText(item.note, at: 8), database: database)
        try check(sqlite3_bind_int64(statement, 9, item.flag ? 1 : 0), database: database)
        let result = item.payload.withUnsafeBytes { bytes in
            sqlite3_bind_blob(statement, 10, bytes.baseAddress, Int32(bytes.count), bench_sqlite_transient())
        }
        try check(result, database: database)
    }

    @inline(__always)
    private func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty string has no base address, and a null pointer would bind NULL.
            guard let base = bytes.baseAddress else {
                return sqlite3_bind_text(handle, index, "", 0, bench_sqlite_transient())
            }
            return sqlite3_bind_text(
                handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                bench_sqlite_transient())
        }
    }

    /// Reads the current row's ten columns by index.
    @inline(__always)
    func readItem() -> Item {
        let statement = handle
        return Item(
            id: sqlite3_column_int64(statement, 0),
            a: sqlite3_column_int64(statement, 1),
            b: Int(sqlite3_column_int64(statement, 2)),
            c: Int(sqlite3_column_int64(statement, 3)),
            d: sqlite3_column_double(statement, 4),
            e: sqlite3_column_double(statement, 5),
            name: text(at: 6),
            note: text(at: 7),
            flag: sqlite3_column_int64(statement, 8) != 0,
            payload: blob(at: 9))
    }

    @inline(__always)
    private func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    @inline(__always)
    private func blob(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }
}

/// `c`: the floor. Hand-written C API code.
final class CSystem: BenchmarkSystem {
    static let name = "c"
    private let items: [Item]
    private var database: CDatabase?
    private var selectAll: CStatement?
    private var selectByID: CStatement?

    init(items: [Item]) { self.items = items }

    func openEmpty(path: String?) throws {
        let database = try CDatabase(path: path ?? ":memory:")
        if path != nil {
            try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        }
        try database.execute(Workload.createTable)
        self.database = database
    }

    func insertAll() throws {
        guard let database else { throw BenchmarkFailure("no database") }
        let insert = try database.prepare(Workload.insertSQL)
        try database.execute("BEGIN")
        for item in items {
            try insert.bind(item, database: database)
            let result = sqlite3_step(insert.handle)
            guard result == SQLITE_DONE else { throw database.failure(result, sql: Workload.insertSQL) }
            sqlite3_reset(insert.handle)
        }
        try database.execute("COMMIT")
    }

    func exportAndClose(to path: String) throws {
        try database?.execute("VACUUM INTO ?", text: path)
        close()
    }

    func openLoaded(source: String) throws {
        let database = try CDatabase(path: ":memory:")
        try database.execute(Workload.createTable)
        try database.load(from: source)
        selectAll = try database.prepare(Workload.selectAllSQL)
        selectByID = try database.prepare(Workload.selectByIDSQL)
        self.database = database
    }

    func fetchAll() throws -> Measurement {
        let (elapsed, items) = try timed { try fetchBody() }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func lookup(ids: [Int64]) throws -> Measurement {
        let (elapsed, items) = try timed { try lookupBody(ids: ids) }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    /// The timed part of FETCH, on its own for profilers.
    @inline(never)
    func fetchBody() throws -> [Item] {
        guard let database, let select = selectAll else { throw BenchmarkFailure("no database") }
        var items: [Item] = []
        var result = sqlite3_step(select.handle)
        while result == SQLITE_ROW {
            items.append(select.readItem())
            result = sqlite3_step(select.handle)
        }
        sqlite3_reset(select.handle)
        guard result == SQLITE_DONE else { throw database.failure(result, sql: Workload.selectAllSQL) }
        return items
    }

    /// The timed part of LOOKUP, on its own for profilers.
    @inline(never)
    func lookupBody(ids: [Int64]) throws -> [Item] {
        guard let database, let select = selectByID else { throw BenchmarkFailure("no database") }
        var items: [Item] = []
        items.reserveCapacity(ids.count)
        for id in ids {
            try select.check(sqlite3_bind_int64(select.handle, 1, id), database: database)
            let result = sqlite3_step(select.handle)
            guard result == SQLITE_ROW else { throw database.failure(result, sql: Workload.selectByIDSQL) }
            items.append(select.readItem())
            sqlite3_reset(select.handle)
        }
        return items
    }

    func close() {
        selectAll = nil
        selectByID = nil
        database = nil
    }
}

/// Reads a database file written by any system and checksums every row, in primary key order.
func checksumOfFile(_ path: String) throws -> Checksum {
    let database = try CDatabase(path: path)
    let select = try database.prepare("SELECT * FROM item ORDER BY id")
    var checksum = Checksum()
    var result = sqlite3_step(select.handle)
    while result == SQLITE_ROW {
        checksum.add(select.readItem())
        result = sqlite3_step(select.handle)
    }
    guard result == SQLITE_DONE else { throw database.failure(result, sql: "SELECT * FROM item ORDER BY id") }
    return checksum
}

/// Writes `count` generated rows to a new file database: the source FETCH and LOOKUP databases load.
func writeSourceDatabase(path: String, count: Int) throws {
    let database = try CDatabase(path: path)
    try database.execute(Workload.createTable)
    let insert = try database.prepare(Workload.insertSQL)
    try database.execute("BEGIN")
    for offset in 0..<count {
        try insert.bind(Workload.item(id: Int64(offset + 1)), database: database)
        let result = sqlite3_step(insert.handle)
        guard result == SQLITE_DONE else { throw database.failure(result, sql: Workload.insertSQL) }
        sqlite3_reset(insert.handle)
    }
    try database.execute("COMMIT")
}
