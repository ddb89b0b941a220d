import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL pool", .postgresServer)
struct PostgresPoolTests {
    @Test("8 tasks x 1,000 inserts through the pool: nothing lost, every id distinct")
    func concurrentInserts() async throws {
        try await PostgresTestServer.withPool(connections: 8) { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for task in 0..<8 {
                    group.addTask {
                        var ids: [Int64] = []
                        for index in 0..<1_000 {
                            let id = try await pool.write { db in
                                var note = Note(
                                    id: nil, createdAt: Date(), content: "task \(task) note \(index)", mood: "busy")
                                try await db.insert(&note)
                                return note.id
                            }
                            ids.append(try #require(id))
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(ids.count == 8_000)
            #expect(Set(ids).count == 8_000)
            let (count, distinct) = try await pool.read { db in
                (
                    try await db.fetchCount(Note.all()),
                    try await db.fetchOne(Int.self, query: "SELECT count(DISTINCT content) FROM note")
                )
            }
            #expect(count == 8_000)
            #expect(distinct == 8_000)
        }
    }

    struct Failure: Error {}

    @Test("a write that throws leaves nothing: its transaction rolls back")
    func failedWriteRollsBack() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: Note.createTable) }
            await #expect(throws: Failure.self) {
                try await pool.write { db in
                    try await db.insert(Note(id: nil, createdAt: Date(), content: "lost", mood: "x"))
                    try await db.execute(query: "CREATE TABLE also_lost (a int)")
                    throw Failure()
                }
            }
            let (count, table) = try await pool.read { db in
                (
                    try await db.fetchCount(Note.all()),
                    try await db.fetchOne(String?.self, query: "SELECT to_regclass('also_lost')::text")
                )
            }
            #expect(count == 0)
            #expect(table == .some(nil))
            let value = try await pool.write { _ in 42 }
            #expect(value == 42)
        }
    }

    @Test("bad SQL and a constraint violation give clear errors with SQLSTATE, and the pool goes on")
    func serverErrors() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let syntax = await #expect(throws: PostgresError.self) {
                try await pool.write { db in try await db.execute(query: "SELEC 1") }
            }
            #expect(syntax?.sqlState == "42601")
            #expect(
                syntax?.description
                    == "PostgreSQL error 42601: syntax error at or near \"SELEC\" - while executing `SELEC 1`")

            let missing = await #expect(throws: PostgresError.self) {
                try await pool.read { db in _ = try await db.fetchAll(query: "SELECT * FROM nope") }
            }
            #expect(missing?.sqlState == "42P01")
            #expect(missing?.message == "relation \"nope\" does not exist")

            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE u (k text UNIQUE, n int CHECK (n > 0))")
                try await db.execute(query: "INSERT INTO u VALUES (:k, 1)", parameters: ["k": "a"])
            }
            let unique = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(query: "INSERT INTO u VALUES (:k, 1)", parameters: ["k": "a"])
                }
            }
            #expect(unique?.sqlState == "23505")
            #expect(unique?.detail == "Key (k)=(a) already exists.")
            let check = await #expect(throws: PostgresError.self) {
                try await pool.write { db in try await db.execute(query: "INSERT INTO u VALUES ('b', -1)") }
            }
            #expect(check?.sqlState == "23514")

            // The one connection is still usable, and outside any failed transaction.
            let count = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT count(*) FROM u") }
            #expect(count == 1)
        }
    }

    @Test("reads go to the replica, writes to the primary")
    func replicaServesReads() async throws {
        try await PostgresTestServer.withPool(replicaNames: ["strata-replica"]) { pool in
            let query = "SELECT current_setting('application_name')"
            let read = try await pool.read { db in try await db.fetchOne(String.self, query: query) }
            let written = try await pool.write { db in try await db.fetchOne(String.self, query: query) }
            #expect(read == "strata-replica")
            #expect(written == "strata-primary")
        }
    }

    @Test("connection refused, authentication failed and a missing database each throw a clear one-line error")
    func connectionErrors() async throws {
        let url = try PostgresTestServer.requireURL()
        let components = try #require(URLComponents(string: url))
        let host = try #require(components.host)
        let port = try #require(components.port)
        let database = components.path

        // A port nothing listens on: one that was free a moment ago.
        let closedPort = port == 1 ? 2 : 1
        let cases: [(url: String, code: PostgresError.Code, text: String)] = [
            ("postgres://strata@\(host):\(closedPort)/db", .connectionFailed, "Connection refused"),
            ("postgres://no_such_role@\(host):\(port)\(database)", .authenticationFailed, "no_such_role"),
            (
                "postgres://\(components.user ?? "")@\(host):\(port)/no_such_database", .databaseMissing,
                "no_such_database"
            ),
        ]
        for (url, code, text) in cases {
            let error = try await Self.firstReadError(url: url)
            #expect(error?.code == code, "\(url)")
            #expect(error?.description.contains(text) == true, "\(String(describing: error))")
            #expect(error?.description.contains("\n") == false)
        }
    }

    @Test("a wrong or missing password: authenticationFailed in one line, the password never shown")
    func passwordAuthentication() async throws {
        let url = try PostgresTestServer.requirePasswordURL()
        var wrong = try #require(URLComponents(string: url))
        wrong.password = "not-the-password"
        var missing = wrong
        missing.password = nil
        let cases: [(url: String, text: String)] = [
            (try #require(wrong.string), "password authentication failed for user \"strata_password\""),
            (try #require(missing.string), "the server asks for a password and the URL has none"),
        ]
        for (url, text) in cases {
            let error = try await Self.firstReadError(url: url)
            #expect(error?.code == .authenticationFailed, "\(url)")
            #expect(error?.description.contains(text) == true, "\(String(describing: error))")
            #expect(error?.description.contains("not-the-password") == false)
            #expect(error?.description.contains("\n") == false)
        }
        // The right password connects.
        let pool = try PostgresPool(url: url, connections: 1)
        let user = try await pool.read { db in try await db.fetchOne(String.self, query: "SELECT current_user") }
        await pool.close()
        #expect(user == "strata_password")
    }

    /// The error of the first read on a one-connection pool of `url`, recorded as an issue when it does not throw a
    /// `PostgresError`.
    static func firstReadError(url: String) async throws -> PostgresError? {
        let pool = try PostgresPool(url: url, connections: 1)
        let error = await #expect(throws: PostgresError.self) {
            try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
        }
        await pool.close()
        return error
    }

    @Test("a URL that cannot be used throws invalidURL without its password")
    func badURL() throws {
        for url in ["mysql://u@h/db", "postgres://h/db", "postgres://u:secret@h/db?sslmode=sometimes", "not a url"] {
            let error = #expect(throws: PostgresError.self) { try PostgresPool(url: url) }
            #expect(error?.code == .invalidURL)
            #expect(error?.description.contains("secret") == false)
        }
    }
}
