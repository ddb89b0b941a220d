import Foundation
import Strata
import StrataPostgres
import Testing

/// PostgreSQL's failures carry the codes that mean the same on every backend (`DatabaseError`, as on SQLite), with
/// the SQLSTATE beside them, and no bound value in their description (the detail line keeps PostgreSQL's text).
@Suite("PostgreSQL errors carry the semantic codes", .postgresServer)
struct PostgresSemanticErrorCodeTests {
    /// A value no description may show.
    static let secret = "secret-4f9a2c"

    /// Runs `sql` with `:v` bound to the secret in a write of `pool`, and returns the `DatabaseError` it threw.
    static func failure(of sql: String, in pool: PostgresPool) async -> DatabaseError? {
        await #expect(throws: DatabaseError.self) {
            try await pool.write { db in try await db.execute(query: sql, parameters: ["v": Self.secret]) }
        }
    }

    /// Checks that `error` has `code` and `sqlState`, and that its description shows no bound value.
    static func check(
        _ error: DatabaseError?, _ code: DatabaseError.Code, _ sqlState: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.sqlState == sqlState, sourceLocation: sourceLocation)
        #expect(error?.resultCode == nil, sourceLocation: sourceLocation)
        #expect(error?.description.hasPrefix("PostgreSQL error \(sqlState): ") == true, sourceLocation: sourceLocation)
        #expect(error?.description.contains(Self.secret) == false, sourceLocation: sourceLocation)
    }

    @Test("unique, foreign key, not null and check violations")
    func constraintViolations() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE parent (k text PRIMARY KEY)")
                try await db.execute(query: "CREATE TABLE child (k text REFERENCES parent (k))")
                try await db.execute(query: "CREATE TABLE u (k text UNIQUE)")
                try await db.execute(query: "CREATE TABLE n (a text, b text NOT NULL)")
                try await db.execute(query: "CREATE TABLE c (k text CHECK (length(k) < 5))")
                try await db.execute(query: "INSERT INTO u VALUES (:v)", parameters: ["v": Self.secret])
                try await db.execute(query: "INSERT INTO parent VALUES (:v)", parameters: ["v": Self.secret])
            }
            let unique = await Self.failure(of: "INSERT INTO u VALUES (:v)", in: pool)
            Self.check(unique, .uniqueViolation, "23505")
            #expect(unique?.detail == "Key (k)=(\(Self.secret)) already exists.")
            let primaryKey = await Self.failure(of: "INSERT INTO parent VALUES (:v)", in: pool)
            Self.check(primaryKey, .uniqueViolation, "23505")
            let foreignKey = await Self.failure(of: "INSERT INTO child VALUES (:v || 'x')", in: pool)
            Self.check(foreignKey, .foreignKeyViolation, "23503")
            #expect(foreignKey?.detail?.contains(Self.secret) == true)
            let notNull = await Self.failure(of: "INSERT INTO n VALUES (:v, NULL)", in: pool)
            Self.check(notNull, .notNullViolation, "23502")
            #expect(notNull?.detail?.contains(Self.secret) == true)
            let check = await Self.failure(of: "INSERT INTO c VALUES (:v)", in: pool)
            Self.check(check, .checkViolation, "23514")
            #expect(check?.detail?.contains(Self.secret) == true)
            let other = await Self.failure(of: "SELECT * FROM nowhere WHERE k = :v", in: pool)
            Self.check(other, .server, "42P01")
            // The old name still matches, and means the same.
            #expect((unique as (any Error)?) is PostgresError)
            #expect(PostgresError.Code.uniqueViolation == DatabaseError.Code.uniqueViolation)
        }
    }

    @Test("a row lock another session holds, with NOWAIT: busy (55P03)")
    func lockNotAvailable() async throws {
        try await PostgresTestServer.withPool(connections: 2) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE t (k text)")
                try await db.execute(query: "INSERT INTO t VALUES ('a')")
            }
            let (locked, lockedSignal) = AsyncStream.makeStream(of: Void.self)
            let (done, doneSignal) = AsyncStream.makeStream(of: Void.self)
            // Session 1 locks the row and holds it until session 2 has failed.
            async let holder: Void = pool.write { db in
                defer { lockedSignal.finish() }
                try await db.execute(query: "SELECT k FROM t FOR UPDATE")
                lockedSignal.yield()
                for await _ in done {}
            }
            for await _ in locked { break }
            let error = await Self.failure(of: "SELECT k FROM t WHERE k <> :v FOR UPDATE NOWAIT", in: pool)
            doneSignal.finish()
            try await holder
            Self.check(error, .busy, "55P03")
        }
    }

    @Test("a repeatable read transaction that updates a row another committed since: serializationFailure (40001)")
    func serializationFailure() async throws {
        try await PostgresTestServer.withPool(connections: 2) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE t (id int PRIMARY KEY, k text)")
                try await db.execute(query: "INSERT INTO t VALUES (1, 'a')")
            }
            let (read, readSignal) = AsyncStream.makeStream(of: Void.self)
            let (committed, committedSignal) = AsyncStream.makeStream(of: Void.self)
            // Session 1 takes its snapshot; session 2 updates the row and commits; session 1 then updates it too.
            let first = Task {
                try await pool.write { db in
                    defer { readSignal.finish() }
                    try await db.execute(query: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    _ = try await db.fetchAll(String.self, query: "SELECT k FROM t")
                    readSignal.yield()
                    for await _ in committed {}
                    try await db.execute(query: "UPDATE t SET k = :v WHERE id = 1", parameters: ["v": Self.secret])
                }
            }
            for await _ in read { break }
            do {
                try await pool.write { db in try await db.execute(query: "UPDATE t SET k = 'b' WHERE id = 1") }
                committedSignal.finish()
            } catch {
                committedSignal.finish()
                throw error
            }
            let error = await #expect(throws: DatabaseError.self) { try await first.value }
            Self.check(error, .serializationFailure, "40001")
        }
    }

    @Test("a write in a read-only transaction: readOnly (25006)")
    func readOnlyTransaction() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TABLE t (k text)") }
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.write { db in
                    try await db.execute(query: "SET TRANSACTION READ ONLY")
                    try await db.execute(query: "INSERT INTO t VALUES (:v)", parameters: ["v": Self.secret])
                }
            }
            Self.check(error, .readOnly, "25006")
        }
    }

    @Test("a wrong password: authenticationFailed (28P01), the password never shown")
    func wrongPassword() async throws {
        var url = try #require(URLComponents(string: try PostgresTestServer.requirePasswordURL()))
        url.password = Self.secret
        let pool = try PostgresPool(url: try #require(url.string), connections: 1)
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
        }
        await pool.close()
        Self.check(error, .authenticationFailed, "28P01")
    }

    @Test("a database that does not exist: databaseMissing (3D000)")
    func missingDatabase() async throws {
        var url = try #require(URLComponents(string: try PostgresTestServer.requireURL()))
        url.path = "/no_such_database_\(Self.secret.replacingOccurrences(of: "-", with: "_"))"
        let pool = try PostgresPool(url: try #require(url.string), connections: 1)
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
        }
        await pool.close()
        #expect(error?.code == .databaseMissing, "\(String(describing: error))")
        #expect(error?.sqlState == "3D000")
    }
}
