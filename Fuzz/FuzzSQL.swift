// Fuzz target: arbitrary SQL text through Database.execute(query:), prepare(query:), step and every column read.
//
// Build and run: scripts/fuzz.sh sql SECONDS

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let sql = String(decoding: input.rest(), as: UTF8.self)
    guard let db = makeGuardedDatabase() else { fuzzFailure("an in-memory database could not open") }
    defer { db.close() }
    try? db.execute(
        query: "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e);"
            + "INSERT INTO t VALUES (1, 'x', 1.5, x'00ff', NULL), (2, CAST(x'ff' AS TEXT), -0.0, x'', 9223372036854775807)"
    )
    if mode & 1 == 0 {
        // Several statements at once, rows discarded.
        try? db.execute(query: sql)
        return 0
    }
    guard let statement = try? db.prepare(query: sql) else { return 0 }
    for index in 1...max(1, statement.parameterCount) where index <= statement.parameterCount {
        try? statement.bind(value: DatabaseValue.integer(Int64(index)), at: index)
    }
    var rows = 0
    while rows < 64, let row = try? statement.next() {
        rows += 1
        for column in 0..<row.columnCount {
            _ = try? row[column] as DatabaseValue
            _ = try? row[column] as String?
            _ = try? row[column] as Data?
            _ = try? row[column] as Int64?
            _ = try? row[column] as Int8?
            _ = try? row[column] as UInt64?
            _ = try? row[column] as Double?
            _ = try? row[column] as Float?
            _ = try? row[column] as Bool?
            _ = try? row[column] as Date?
            _ = try? row[column] as UUID?
            _ = try? row[column] as URL?
            _ = try? row[column] as Decimal?
            _ = try? row[column] as [String]?
            _ = try? row[column] as [UInt8]?
        }
        for name in row.columnNames {
            _ = try? row[name] as DatabaseValue
        }
    }
    _ = try? db.fetchAll([String: DatabaseValue].self, query: sql)
    return 0
}
