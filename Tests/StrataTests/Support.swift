import Foundation
import Strata
import Testing

/// A fresh directory under the system temp folder, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A fresh private in-memory database, so that no test depends on another's state.
func makeDatabase() throws -> Database {
    try Database()
}

/// Binds `value` to `SELECT ?` and returns what SQLite stored: the storage class as `typeof()` names it, and the value.
func stored<Value: DatabaseValueConvertible>(
    _ value: Value,
    in db: Database,
    configure: (Statement) -> Void = { _ in }
) throws -> (type: String, value: DatabaseValue) {
    let statement = try db.prepare(query: "SELECT typeof(:v) AS type, :v AS value")
    configure(statement)
    try statement.bind(value: value, for: "v")
    let row = try #require(try statement.next())
    return (try row.type, try row.value)
}

/// Binds `value`, reads it back through `SELECT ?` as `Result`.
func roundTrip<Value: DatabaseValueConvertible, Result: DatabaseValueConvertible>(
    _ value: Value,
    as type: Result.Type,
    in db: Database,
    configure: (Statement) -> Void = { _ in }
) throws -> Result {
    let statement = try db.prepare(query: "SELECT ? AS v")
    configure(statement)
    try statement.bind(value: value, at: 1)
    let row = try #require(try statement.next())
    return try row.v
}

/// Binds `value` and reads it back as the same type.
func roundTrip<Value: DatabaseValueConvertible>(
    _ value: Value,
    in db: Database,
    configure: (Statement) -> Void = { _ in }
) throws -> Value {
    try roundTrip(value, as: Value.self, in: db, configure: configure)
}

/// Reads the raw `value` (bound as it is, so its storage class is kept) as `Result`.
func read<Result: DatabaseValueConvertible>(
    _ type: Result.Type,
    from value: DatabaseValue,
    in db: Database,
    configure: (Statement) -> Void = { _ in }
) throws -> Result {
    try roundTrip(value, as: type, in: db, configure: configure)
}

/// Checks that `body` throws a ``DatabaseError`` with `code`, and returns the error for further checks.
@discardableResult
func expectError(
    _ code: DatabaseError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> DatabaseError? {
    let error = #expect(throws: DatabaseError.self, sourceLocation: sourceLocation) { try body() }
    if let error {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
    return error
}

extension Optional where Wrapped == DatabaseError {
    /// The error's description, or "" when there was none (so that `contains` checks fail).
    var text: String { map { String(describing: $0) } ?? "" }
}
