import Foundation
import Strata
import Testing

/// Hostile values are stored literally, and the identifiers Strata splices into SQL (a model's table
/// name, primary key and coding keys) are quoted with embedded `"` doubled, so that
/// `t" UNION SELECT ... --` names a table that does not exist instead of running.
@Suite("Reliability: injection")
struct InjectionTests {
    static let hostileValues = [
        "' OR 1=1 --",
        "'); DROP TABLE x; --",
        "\"; DROP TABLE x; --",
        "x' UNION SELECT name, sql FROM sqlite_schema --",
        "1; DELETE FROM x",
        "' || (SELECT group_concat(secret) FROM x) || '",
        ":name @name $name ?1",
        "\u{0}'; DROP TABLE x; --",
        "*/ DROP TABLE x; /*",
    ]

    @Test("Hostile values are stored literally and leave the schema alone", arguments: hostileValues)
    func valuesAreStoredLiterally(value: String) throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE x (id INTEGER PRIMARY KEY, name TEXT, secret TEXT)")
        try db.execute(query: "INSERT INTO x (name, secret) VALUES ('alice', 's3cret')")

        let insert = try db.prepare(query: "INSERT INTO x (name) VALUES (:name)")
        try insert.bind(value: value, for: "name")
        try insert.perform()
        try db.execute(query: "INSERT INTO x (name) VALUES (:name)", parameters: ["name": value])

        #expect(try db.fetchAll(String.self, query: "SELECT name FROM x WHERE id > 1 ORDER BY id") == [value, value])
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM x") == 3)
        // Looked up by the value, it matches only itself.
        #expect(
            try db.fetchAll(Int64.self, query: "SELECT id FROM x WHERE name = :name", parameters: ["name": value]) == [
                2, 3,
            ])
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema") == ["x"])
    }

    @Test("Hostile values in a Model's columns are stored literally", arguments: hostileValues)
    func modelValuesAreStoredLiterally(value: String) throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        var person = Person(id: nil, name: value)
        try db.insert(&person)
        let id = try #require(person.id)
        #expect(try db.find(Person.self, id: id)?.name == value)
        // A hostile value as the primary key finds nothing instead of every row.
        #expect(try db.find(Person.self, id: value) == nil)
        #expect(try db.fetchAll(Person.self, where: "name = :name", parameters: ["name": value]).map(\.id) == [id])
        #expect(try db.count(Person.self) == 1)
        // Interpolated into a `where:` condition, it is bound (the condition is SQL), never spliced.
        #expect(try db.fetchAll(Person.self, where: "name = \(value)").map(\.id) == [id])
        #expect(try db.fetchOne(Person.self, where: "name = \(value)")?.id == id)
        #expect(try db.count(Person.self, where: "name <> \(value)") == 0)
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema") == ["person"])
    }

    @Test("A table name that tries to close its quote is one name that does not exist")
    func tableNameIsQuoted() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(query: "INSERT INTO t (name) VALUES ('secret row')")

        let error = expectError(.sqlite) { _ = try db.fetchAll(UnionTable.self) }
        #expect(error?.message == "no such table: \(UnionTable.tableName)")
        expectError(.sqlite) { _ = try db.find(UnionTable.self, id: 1) }
        expectError(.sqlite) { _ = try db.count(UnionTable.self) }
        expectError(.sqlite) { try db.insert(UnionTable(id: nil, name: "x")) }
        expectError(.sqlite) { try db.delete(UnionTable.self, id: 1) }

        let drop = expectError(.sqlite) { _ = try db.fetchAll(DropTable.self) }
        #expect(drop?.message == "no such table: \(DropTable.tableName)")
        expectError(.sqlite) { try db.insert(DropTable(id: nil, name: "x")) }
        // Nothing ran: t still has its one row.
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM t") == ["secret row"])
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema") == ["t"])
    }

    @Test("A primary key name that tries to close its quote leaks nothing and changes nothing")
    func primaryKeyIsQuoted() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE pk (id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(query: "INSERT INTO pk (name) VALUES ('a'), ('b')")
        // Quoted and doubled, the name is one identifier that matches no column: no OR 1=1 runs.
        // SQLite's legacy rule would make an unknown "identifier" the string literal it spells
        // (https://www.sqlite.org/quirks.html#dblquote) and the lookup would silently find nothing;
        // Strata turns that rule off, so it is an error naming the column.
        let find = expectError(.sqlite) { _ = try db.find(HostilePrimaryKey.self, id: 1) }
        #expect(find?.message == "no such column: \(HostilePrimaryKey.primaryKey)")
        let delete = expectError(.sqlite) { _ = try db.delete(HostilePrimaryKey.self, id: 1) }
        #expect(delete?.message == "no such column: \(HostilePrimaryKey.primaryKey)")
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM pk") == 2)
    }

    @Test("Names with quotes work when the table really has them")
    func quotedNamesWork() throws {
        let db = try makeDatabase()
        try db.execute(query: #"CREATE TABLE "we""ird" ("id" INTEGER PRIMARY KEY, "na""me" TEXT)"#)
        var row = Weird(id: nil, name: "' OR 1=1 --")
        try db.insert(&row)
        let id = try #require(row.id)
        #expect(try db.find(Weird.self, id: id)?.name == "' OR 1=1 --")
        row.name = "changed"
        try db.update(row)
        #expect(try db.fetchAll(Weird.self).map(\.name) == ["changed"])
        #expect(try db.delete(row))
        #expect(try db.count(Weird.self) == 0)
    }

    @Test("A coding key that is not a plain name is refused before any SQL runs")
    func codingKeysAreChecked() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE x (id INTEGER PRIMARY KEY, name TEXT)")
        let error = expectError(.invalidArgument) { try db.insert(HostileKey(id: nil, name: "v")) }
        #expect(error.text.contains("cannot name an SQL parameter"))
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema") == ["x"])
    }

    @Test("A column name mapped through a key strategy is quoted too")
    func mappedColumnIsQuoted() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE mapped (id INTEGER PRIMARY KEY, name TEXT)")
        let error = expectError(.sqlite) { try db.insert(MappedHostileColumn(id: nil, name: "v")) }
        #expect(error.text.contains("has no column named"))
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM mapped") == 0)
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema") == ["mapped"])
    }

    @Test("A parameter name that is not in the statement is refused")
    func unknownParameterIsRefused() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT :a")
        expectError(.unknownParameter) { try statement.bind(value: 1, for: "a' OR 1=1 --") }
    }
}

private struct Person: Model {
    static let tableName = "person"
    var id: Int64?
    var name: String
}

private struct UnionTable: Model {
    static let tableName = #"t" UNION SELECT name, sql FROM sqlite_schema --"#
    var id: Int64?
    var name: String
}

private struct DropTable: Model {
    static let tableName = #"t"; DROP TABLE t; --"#
    var id: Int64?
    var name: String
}

private struct HostilePrimaryKey: Model {
    static let tableName = "pk"
    static let primaryKey = #"id" OR 1=1 --"#
    var id: Int64?
    var name: String

    enum CodingKeys: String, CodingKey {
        case id = #"id" OR 1=1 --"#
        case name
    }
}

private struct Weird: Model {
    static let tableName = #"we"ird"#
    static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy {
        .custom { $0 == "name" ? #"na"me"# : $0 }
    }
    var id: Int64?
    var name: String
}

private struct HostileKey: Model {
    static let tableName = "x"
    var id: Int64?
    var name: String

    enum CodingKeys: String, CodingKey {
        case id
        case name = #"name") VALUES ('x'); DROP TABLE x; --"#
    }
}

private struct MappedHostileColumn: Model {
    static let tableName = "mapped"
    static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy {
        .custom { $0 == "name" ? #"name") VALUES (1); DROP TABLE mapped; --"# : $0 }
    }
    var id: Int64?
    var name: String
}
