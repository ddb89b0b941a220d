// swift-format-ignore-file
// The blocks below are copies of the docs, laid out for reading (aligned comments): not reformatted.
// Left out of the SQLite suites alone (STRATA_TEST_SUITES=sqlite, see Package.swift).
#if !SQLITE_SUITES_ONLY
import Foundation
import Strata
import StrataPostgres
import StrataRecord
import Testing

// The Swift blocks about PostgreSQL in README.md and docs/PostgreSQL.md, run as written (see DocSnippetSupport.swift)
// against the server `STRATA_POSTGRES_URL` names, each in a schema of its own. Without a server they are skipped
// locally and fail in CI, as the StrataPostgres suites do.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil
            || ProcessInfo.processInfo.environment["CI"] == "true",
        "STRATA_POSTGRES_URL is not set: no PostgreSQL server for the PostgreSQL doc examples"))
struct PostgreSQLDocTests {
    /// Runs `body` with the URL of the test server whose connections use a fresh schema (the URL's
    /// `options=-c search_path=...`), and drops the schema afterwards.
    private func withSchema(_ body: (String) async throws -> Void) async throws {
        let server = try #require(
            ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"],
            "STRATA_POSTGRES_URL is not set: CI=true needs a PostgreSQL server (see .ci/run)")
        let schema = "strata_doc_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var components = try #require(URLComponents(string: server))
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "options", value: "-c search_path=\(schema)")]
        let scoped = try #require(components.string)
        try await withAdmin(server) { admin in try await admin.execute(query: "CREATE SCHEMA \"\(schema)\"") }
        do {
            try await body(scoped)
        } catch {
            try? await withAdmin(server) { admin in try await admin.execute(query: "DROP SCHEMA \"\(schema)\" CASCADE") }
            throw error
        }
        try await withAdmin(server) { admin in try await admin.execute(query: "DROP SCHEMA \"\(schema)\" CASCADE") }
    }

    /// Runs `body` in a write on a pool of one connection to `url`.
    private func withAdmin(_ url: String, _ body: (PostgresSession) async throws -> Void) async throws {
        let pool = try PostgresPool(url: url, connections: 1)
        do {
            try await pool.write { db in try await body(db) }
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    /// The contents of the notes on the server at `url`, oldest first.
    private func contents(at url: String) async throws -> [String] {
        var contents: [String] = []
        try await withAdmin(url) { db in
            contents = try await db.fetchAll(String.self, query: "SELECT content FROM note ORDER BY id")
        }
        return contents
    }

    @Test("README.md: the same app on SQLite and PostgreSQL") func readmeMovingToPostgreSQL() async throws {
        let scratch = try await ScratchDirectory.enter()
        defer { scratch.leave() }
        try await withSchema { databaseURL in
            // The example schema on both, with the same note.
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations"))
            let file = try DatabasePool(path: "strata.sqlite")
            _ = try await migrator.migrate(file)
            try await file.write { db in
                try db.execute(query: "INSERT INTO note (created_at, content) VALUES ('2026-11-23 10:00:00.000', 'first')")
            }
            await file.close()
            var postgresMigrator = Migrator()
            try postgresMigrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/postgresql"))
            let setup = try PostgresPool(url: databaseURL, connections: 1)
            _ = try await postgresMigrator.migrate(setup)
            try await setup.write { db in
                try await db.execute(query: "INSERT INTO note (created_at, content) VALUES ('2026-11-23 10:00:00Z', 'first')")
            }
            await setup.close()

            // snippet: README.md 8
            struct Note: Model {
                static let tableName = "note"
                static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
                var id: Int64?
                var createdAt: Date
                var content: String
            }

            // Written once, for every backend.
            func latestNotes(in db: some DatabaseReader) async throws -> [Note] {
                try await db.read { session in try await session.fetchAll(Note.order(Column("created_at").desc).limit(50)) }
            }
            func save(_ note: Note, in db: some DatabaseWriter) async throws -> Note {
                try await db.write { session in
                    var note = note
                    try await session.insert(&note)
                    return note
                }
            }

            let sqlite = try DatabasePool(path: "strata.sqlite")                // SQLite: one file
            let postgres = try PostgresPool(url: databaseURL)                   // PostgreSQL: a server, usable at once
            let onSQLite = try await latestNotes(in: sqlite)
            let onPostgres = try await latestNotes(in: postgres)
            print(onPostgres.map(\.content) == onSQLite.map(\.content))         // true
            await postgres.close()
            // end snippet
            #expect(onSQLite.map(\.content) == ["first"])
            #expect(try await contents(at: databaseURL) == ["first"])
            await sqlite.close()
        }
    }

    @Test("PostgreSQL.md: models, migrations, a write and a read") func postgreSQLGuide() async throws {
        let scratch = try await ScratchDirectory.enter()
        defer { scratch.leave() }
        try await withSchema { databaseURL in
            // snippet: docs/PostgreSQL.md 1
            struct Note: Model {
                static let tableName = "note"
                static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
                var id: Int64?
                var createdAt: Date
                var content: String
            }

            let pool = try PostgresPool(url: databaseURL, connections: 8)    // usable at once

            var migrator = Migrator()
            try migrator.registerSQLFiles(in: URL(fileURLWithPath: "Migrations/postgresql"))
            try await migrator.migrate(pool)                   // each step and its version bump in one transaction

            var note = Note(id: nil, createdAt: Date(), content: "Hello")
            try await pool.write { db in try await db.insert(&note) }               // note.id is set from RETURNING
            let recent = try await pool.read { db in
                try await db.fetchAll(Note.order(Column("created_at").desc).limit(10))
            }
            print(recent.map(\.content))                       // ["Hello"]
            await pool.close()                                 // when the app stops
            // end snippet
            #expect(try await contents(at: databaseURL) == ["Hello"])
            var version: Int?
            try await withAdmin(databaseURL) { db in
                version = try await db.fetchOne(Int.self, query: "SELECT version FROM strata_schema_version")
            }
            #expect(version == 3)
        }
    }

    @Test("PostgreSQL.md: a statement that may fail, in a nested transaction") func postgreSQLNestedTransaction() async throws {
        try await withSchema { databaseURL in
            struct Order: Model {
                static let tableName = "orders"
                var id: Int64?
                var item: String
            }
            struct Coupon: Model {
                static let tableName = "coupon"
                var id: Int64?
                var code: String
            }
            let pool = try PostgresPool(url: databaseURL, connections: 1)
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE orders (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, item text)")
                try await db.execute(query: "CREATE TABLE coupon (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, code text UNIQUE)")
                try await db.execute(query: "INSERT INTO coupon (code) VALUES ('WELCOME')")
            }
            var order = Order(id: nil, item: "book")
            var coupon = Coupon(id: nil, code: "WELCOME")

            // snippet: docs/PostgreSQL.md 2
            try await pool.write { db in
                try await db.insert(&order)
                do {
                    try await db.transaction { db in try await db.insert(&coupon) }   // may violate a unique key
                } catch let error as DatabaseError where error.code == .uniqueViolation {
                    // the coupon was taken: the order is still written
                }
            }
            // end snippet

            let (orders, coupons) = try await pool.read { db in
                (
                    try await db.fetchAll(String.self, query: "SELECT item FROM orders"),
                    try await db.fetchAll(String.self, query: "SELECT code FROM coupon")
                )
            }
            #expect(orders == ["book"])
            #expect(coupons == ["WELCOME"])
            await pool.close()
        }
    }

    @Test("PostgreSQL.md: one error, matched by its semantic code") func postgreSQLOneError() async throws {
        try await withSchema { databaseURL in
            struct User: Model {
                static let tableName = "users"
                var id: Int64?
                var email: String
            }
            let pool = try PostgresPool(url: databaseURL, connections: 1)
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE users (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, email text UNIQUE)")
            }

            // snippet: docs/PostgreSQL.md 3
            func register(email: String, in pool: PostgresPool) async throws -> User? {
                do {
                    return try await pool.write { db in
                        var user = User(id: nil, email: email)
                        try await db.insert(&user)
                        return user
                    }
                } catch let error as DatabaseError where error.code == .uniqueViolation {
                    return nil  // the email is taken (on SQLite too)
                }
            }
            // end snippet

            let ada = try await register(email: "ada@example.com", in: pool)
            #expect(ada?.id != nil)
            #expect(try await register(email: "ada@example.com", in: pool) == nil)
            await pool.close()
        }
    }
}

/// The text of a request on each backend: no server needed.
@Test("PostgreSQL.md: a request's text on each backend") func postgreSQLRequestText() {
    struct Note: Model {
        static let tableName = "note"
        var id: Int64?
        var mood: String
        var score: Int?
    }
    // snippet: docs/PostgreSQL.md 4
    let newest = Note.filter(Column("mood") == "happy").order(Column("id").desc).limit(20)
    print(newest.sql)                              // SQLite: the same as newest.sql(for: SQLiteDialect())
    // SELECT "note".* FROM "note" WHERE "note"."mood" = ? ORDER BY "note"."id" DESC LIMIT ?
    print(newest.sql(for: PostgresDialect()))      // what a PostgresPool sends
    // SELECT "note".* FROM "note" WHERE "note"."mood" = $1 ORDER BY "note"."id" DESC LIMIT $2
    let byScore = Note.order(Column("score").desc).limit(20)
    print(byScore.sql(for: PostgresDialect()))     // a column that may hold NULL sorts it last, as on SQLite
    // SELECT "note".* FROM "note" ORDER BY "note"."score" DESC NULLS LAST LIMIT $1
    // end snippet
    #expect(newest.sql == #"SELECT "note".* FROM "note" WHERE "note"."mood" = ? ORDER BY "note"."id" DESC LIMIT ?"#)
    #expect(newest.sql == newest.sql(for: SQLiteDialect()))
    #expect(
        newest.sql(for: PostgresDialect())
            == #"SELECT "note".* FROM "note" WHERE "note"."mood" = $1 ORDER BY "note"."id" DESC LIMIT $2"#)
    #expect(
        byScore.sql(for: PostgresDialect())
            == #"SELECT "note".* FROM "note" ORDER BY "note"."score" DESC NULLS LAST LIMIT $1"#)
}

// docs/PostgreSQL.md's "Generated records": the declarations at file scope (an extension macro cannot expand on a
// local type), the call in a test on the server.
// snippet: docs/PostgreSQL.md 5
@Table("sensor")
struct Sensor: Codable, Equatable {
    var id: Int64?
    var name: String
    var celsius: Double?
}

func warmSensors(in db: some DatabaseReader) async throws -> [Sensor] {
    try await db.read { session in try await session.fetchAll(Sensor.filter(Sensor.columns.celsius > 20)) }
}
// end snippet

extension PostgreSQLDocTests {
    @Test("PostgreSQL.md: a @Table struct on PostgreSQL") func postgreSQLGeneratedRecords() async throws {
        try await withSchema { databaseURL in
            let pool = try PostgresPool(url: databaseURL, connections: 1)
            try await pool.write { session in
                try await session.execute(
                    "CREATE TABLE sensor (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT NOT NULL, celsius DOUBLE PRECISION)")
                var cellar = Sensor(id: nil, name: "cellar", celsius: 12)
                var attic = Sensor(id: nil, name: "attic", celsius: 24.5)
                try await session.insert(&cellar)
                try await session.insert(&attic)
            }
            #expect(try await warmSensors(in: pool) == [Sensor(id: 2, name: "attic", celsius: 24.5)])
            await pool.close()
        }
    }

    @Test("Observation.md: a PostgresPool observes a table its migration gave the notify trigger")
    func observationOnPostgreSQL() async throws {
        try await withSchema { databaseURL in
            // snippet: docs/Observation.md 4
            struct Note: Model, Equatable {
                static let tableName = "note"
                var id: Int64?
                var content: String
                var mood: String
            }

            var migrator = Migrator()
            try migrator.register(version: 1, name: "create note", sql: """
                CREATE TABLE note (
                    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                    content TEXT NOT NULL,
                    mood TEXT NOT NULL)
                """)
            try migrator.registerObservationTriggers(version: 2, tables: ["note"])

            let pool = try PostgresPool(url: databaseURL)
            try await migrator.migrate(pool)
            let feed = Task {
                for try await notes in pool.observe(Note.filter(Column("mood") == "happy").order(Column("id"))) {
                    print(notes.map(\.content))      // [], then ["hello"]
                    if notes.count == 1 { break }
                }
            }
            try await pool.write { db in try await db.insert(Note(id: nil, content: "hello", mood: "happy")) }
            try await feed.value
            await pool.close()
            // end snippet
            #expect(try await contents(at: databaseURL) == ["hello"])
        }
    }

    @Test("Observation.md: the SQL shown is the SQL the migration helper installs")
    func observationTriggerSQL() throws {
        let text = try String(contentsOf: DocSnippets.root.appendingPathComponent("docs/Observation.md"), encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```sql\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(block == (try PostgresObservation.triggerSQL(for: ["note"])))
    }
}
#endif
