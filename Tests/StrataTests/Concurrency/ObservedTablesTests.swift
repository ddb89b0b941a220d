import Foundation
import StrataCore
import Testing

@testable import Strata

/// The schema the tests of the tables changed and read share: a table with an index and a trigger that logs into
/// another, a parent and a child with a cascading foreign key, a WITHOUT ROWID table, a view.
private let schema = """
    PRAGMA foreign_keys = ON;
    CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
    CREATE TABLE log (entry TEXT);
    CREATE TRIGGER item_logged AFTER INSERT ON Item BEGIN INSERT INTO log VALUES (new.name); END;
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent ON DELETE CASCADE);
    CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
    CREATE VIEW item_log AS SELECT Item.name, log.entry FROM Item JOIN log ON log.entry = Item.name;
    INSERT INTO Item (id, name) VALUES (1, 'one');
    INSERT INTO parent VALUES (1), (2);
    INSERT INTO child VALUES (1, 1), (2, 1), (3, 2);
    INSERT INTO setting VALUES ('theme', 'dark');
    """

/// What `Connection.takeCommit()` reports a commit changed while the connection records it (as a pool's writer does
/// while an observation listens): the tables SQLite's update hook named, or everything where the hook cannot tell.
@Suite("Tables changed: what a commit changed, or everything when SQLite cannot tell")
struct TablesChangedTests {
    /// What running `sql` on a database with ``schema`` commits, recorded.
    func changes(of sql: String) throws -> TableScope? {
        let db = try Database()
        try db.execute(query: schema)
        _ = db.connection.takeCommit()
        db.connection.recordChanges(true)
        try db.execute(query: sql)
        return db.connection.takeCommit()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let sql: String
        let changed: TableScope
        var testDescription: String { sql }
    }

    static let cases: [Case] = [
        Case(sql: "UPDATE Item SET name = 'uno' WHERE id = 1", changed: .tables(["item"])),
        Case(sql: "INSERT INTO Item (name) VALUES ('two')", changed: .tables(["item", "log"])),  // and its trigger's
        Case(sql: "DELETE FROM parent WHERE id = 1", changed: .tables(["parent", "child"])),  // cascading
        Case(sql: "REPLACE INTO Item (id, name) VALUES (7, 'one')", changed: .tables(["item", "log"])),
        Case(sql: "UPDATE setting SET value = 'light'", changed: .everything),  // WITHOUT ROWID: no hook
        Case(sql: "DELETE FROM log", changed: .everything),  // the truncate optimization: no hook
        Case(sql: "PRAGMA user_version = 3", changed: .everything),
        Case(sql: "ALTER TABLE log ADD COLUMN at TEXT; INSERT INTO parent VALUES (3)", changed: .everything),
        Case(
            sql: "BEGIN; INSERT INTO parent VALUES (4); UPDATE child SET parent_id = 4 WHERE id = 3; COMMIT",
            changed: .tables(["parent", "child"])),
    ]

    @Test("the tables a commit changed", arguments: cases)
    func tablesOfCommit(_ check: Case) throws {
        #expect(try changes(of: check.sql) == check.changed)
    }

    @Test("a read, a rollback and a transaction still open report no commit")
    func noCommit() throws {
        let db = try Database()
        try db.execute(query: schema)
        db.connection.recordChanges(true)
        _ = db.connection.takeCommit()
        _ = try db.fetchAll(String.self, query: "SELECT name FROM Item")
        #expect(db.connection.takeCommit() == nil)
        try db.execute(query: "BEGIN; INSERT INTO parent VALUES (5); ROLLBACK")
        #expect(db.connection.takeCommit() == nil)
        // What a transaction still open changed adds to what it commits later.
        try db.execute(query: "BEGIN; INSERT INTO parent VALUES (6)")
        #expect(db.connection.takeCommit() == nil)
        try db.execute(query: "INSERT INTO Item (name) VALUES ('six'); COMMIT")
        #expect(db.connection.takeCommit() == .tables(["parent", "item", "log"]))
    }

    @Test("recording that begins inside a transaction reports everything for it, then the tables of the next")
    func recordingBegunLate() throws {
        let db = try Database()
        try db.execute(query: schema)
        _ = db.connection.takeCommit()
        try db.execute(query: "BEGIN; INSERT INTO parent VALUES (5)")
        db.connection.recordChanges(true)
        try db.execute(query: "INSERT INTO Item (name) VALUES ('five'); COMMIT")
        #expect(db.connection.takeCommit() == .everything, "the parent row was written before the hook")
        try db.execute(query: "INSERT INTO parent VALUES (6)")
        #expect(db.connection.takeCommit() == .tables(["parent"]))
    }

    @Test("a prepared statement that changes the schema counts each time it runs, not only when it was compiled")
    func preparedSchemaChange() throws {
        let db = try Database()
        try db.execute(query: schema)
        db.connection.recordChanges(true)
        let create = try db.prepare(query: "CREATE TABLE scratch (x)")
        try create.perform()
        #expect(db.connection.takeCommit() == .everything)
        try db.execute(query: "DROP TABLE scratch")
        _ = db.connection.takeCommit()
        try db.transaction { db in
            try db.execute(query: "INSERT INTO parent VALUES (9)")
            try create.perform()
        }
        #expect(db.connection.takeCommit() == .everything)
    }

    @Test("after recording stops, commits report everything again")
    func recordingStops() throws {
        let db = try Database()
        try db.execute(query: schema)
        db.connection.recordChanges(true)
        _ = db.connection.takeCommit()
        try db.execute(query: "INSERT INTO parent VALUES (7)")
        #expect(db.connection.takeCommit() == .tables(["parent"]))
        db.connection.recordChanges(false)
        try db.execute(query: "INSERT INTO parent VALUES (8)")
        #expect(db.connection.takeCommit() == .everything)
    }
}

/// What `Database.tablesRead(during:)` finds a read depends on, from the programs SQLite compiles its statements to.
@Suite("Tables read: what an observation's read depends on")
struct TablesReadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let sql: String
        let read: TableScope
        var testDescription: String { sql }
    }

    static let cases: [Case] = [
        Case(sql: "SELECT * FROM Item", read: .tables(["item"])),
        Case(sql: "SELECT count(*) FROM log", read: .tables(["log"])),
        Case(sql: "SELECT name FROM Item WHERE name > 'a'", read: .tables(["item"])),  // its index alone
        Case(sql: "SELECT Item.name FROM Item JOIN child USING (id)", read: .tables(["item", "child"])),
        Case(sql: "SELECT * FROM item_log", read: .tables(["item", "log"])),  // a view
        Case(sql: "SELECT (SELECT count(*) FROM parent) FROM Item", read: .tables(["item", "parent"])),
        Case(sql: "SELECT * FROM Item WHERE id IN (SELECT parent_id FROM child)", read: .tables(["item", "child"])),
        Case(sql: "SELECT value FROM setting WHERE key = 'theme'", read: .tables(["setting"])),  // WITHOUT ROWID
        Case(
            sql: "WITH n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3) SELECT x FROM n", read: .tables([])),
        Case(sql: "SELECT 1", read: .tables([])),
        Case(sql: "SELECT name FROM sqlite_schema", read: .tables(["sqlite_schema"])),
        Case(sql: "SELECT value FROM json_each('[1, 2]')", read: .everything),  // a virtual table
        Case(sql: "PRAGMA user_version", read: .everything),  // the schema cookie
        Case(sql: "SELECT count(*) FROM temp_item", read: .everything),  // the temporary database
    ]

    /// The tables `sqls` read, run in one read transaction of a database with ``schema``.
    func tablesRead(by sqls: [String], in db: Database? = nil) async throws -> TableScope {
        let db = try db ?? Self.database()
        try db.execute(query: "BEGIN")
        defer { try? db.execute(query: "COMMIT") }
        return try await db.tablesRead {
            for sql in sqls {
                let statement = try db.prepare(query: sql)
                while try statement.next() != nil {}
            }
        }.1
    }

    static func database() throws -> Database {
        let db = try Database()
        try db.execute(query: schema)
        try db.execute(query: "CREATE TEMP TABLE temp_item (id INTEGER PRIMARY KEY)")
        return db
    }

    @Test("the tables a statement reads", arguments: cases)
    func tablesOfStatement(_ check: Case) async throws {
        #expect(try await tablesRead(by: [check.sql]) == check.read)
    }

    @Test("a read of several statements depends on the tables of all of them")
    func severalStatements() async throws {
        let read = try await tablesRead(by: ["SELECT * FROM Item", "SELECT count(*) FROM child", "SELECT 1"])
        #expect(read == .tables(["item", "child"]))
    }

    @Test("after a schema change, the tables are found in the new schema")
    func schemaChange() async throws {
        let db = try Self.database()
        #expect(try await tablesRead(by: ["SELECT * FROM Item"], in: db) == .tables(["item"]))
        // The name now belongs to another b-tree, and the old b-tree to another name.
        try db.execute(query: "ALTER TABLE Item RENAME TO old_item; CREATE TABLE Item (id INTEGER PRIMARY KEY)")
        #expect(try await tablesRead(by: ["SELECT * FROM Item"], in: db) == .tables(["item"]))
        #expect(try await tablesRead(by: ["SELECT * FROM old_item"], in: db) == .tables(["old_item"]))
    }
}
