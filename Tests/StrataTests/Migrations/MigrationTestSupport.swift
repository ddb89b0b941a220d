import Foundation
import Strata

/// What a failed migration must leave untouched: the schema, the rows of every table, and the version.
struct MigrationSnapshot: Equatable {
    var schema: [String]
    var rows: [String: [[DatabaseValue]]]
    var userVersion: Int

    init(_ db: Database) throws {
        schema = try MigrationFixtures.column(
            String.self, db,
            "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name")
        let names = try MigrationFixtures.column(
            String.self, db,
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        rows = [:]
        for name in names {
            let select = try db.prepare(query: "SELECT * FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
            var tableRows: [[DatabaseValue]] = []
            while let row = try select.next() {
                tableRows.append(try (0..<row.columnCount).map { try row[$0] })
            }
            rows[name] = tableRows
        }
        userVersion = try db.userVersion
    }
}

/// Helpers of the migration tests.
enum MigrationFixtures {
    /// The values of the first column of `query`.
    static func column<Value: DatabaseValueConvertible>(
        _ type: Value.Type, _ db: Database, _ query: String
    ) throws -> [Value] {
        let statement = try db.prepare(query: query)
        var values: [Value] = []
        while let row = try statement.next() {
            values.append(try row[0])
        }
        return values
    }

    /// The names of the tables the migrations made, sorted: all but `strata_migrations`, the history `Migrator` keeps.
    static func tableNames(_ db: Database) throws -> [String] {
        try column(
            String.self, db,
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name != 'strata_migrations' ORDER BY name")
    }

    /// The names of every table, sorted.
    static func allTableNames(_ db: Database) throws -> [String] {
        try column(String.self, db, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
    }

    /// Writes `contents` to the file `name` of `directory`.
    @discardableResult
    static func write(_ contents: String, to name: String, in directory: TemporaryDirectory) throws -> URL {
        let file = directory.url.appendingPathComponent(name)
        try Data(contents.utf8).write(to: file)
        return file
    }

    /// The example notes migrations of the repository, `Migrations/` at its root.
    static var exampleMigrations: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Migrations
            .deletingLastPathComponent()  // StrataTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("Migrations", isDirectory: true)
    }
}

/// An error a migration block throws on purpose.
struct MigrationPlannedFailure: Error, CustomStringConvertible {
    var description: String { "planned failure" }
}
