import Foundation
import StrataPostgres
import Testing

/// What a request does to its connection's session (settings, role, temporary tables, locks, LISTEN, prepared
/// statements) does not reach the next request that gets the connection.
@Suite("PostgreSQL session reset", .postgresServer)
struct PostgresSessionResetTests {
    /// A statement that changes the session, and a query that shows it.
    struct Change: Sendable, CustomTestStringConvertible {
        let sql: String
        let probe: String
        var testDescription: String { sql }
    }

    static let changes: [Change] = [
        Change(sql: "SET TimeZone = 'Asia/Tokyo'", probe: "SELECT current_setting('TimeZone')"),
        // Not a timeout so short that the reset itself may overrun it on a loaded machine: the connection is then
        // closed rather than reset (as it must be), and the check that it was reused fails.
        Change(sql: "SET SESSION statement_timeout = '42s'", probe: "SELECT current_setting('statement_timeout')"),
        Change(
            sql: "SELECT set_config('TimeZone', 'Asia/Tokyo', false)", probe: "SELECT current_setting('TimeZone')"),
        Change(sql: "SET SESSION AUTHORIZATION strata_password", probe: "SELECT session_user::text"),
        Change(sql: "SET ROLE strata_password", probe: "SELECT current_user::text"),
        Change(
            sql: "CREATE TEMP TABLE scratch (a int)",
            probe: "SELECT coalesce(to_regclass('pg_temp.scratch')::text, '-')"),
        Change(
            sql: "SELECT pg_advisory_lock(4242)",
            probe: "SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"),
        Change(sql: "LISTEN strata_reset_channel", probe: "SELECT count(*)::text FROM pg_listening_channels()"),
        Change(sql: "PREPARE strata_plan AS SELECT 1", probe: "SELECT count(*)::text FROM pg_prepared_statements"),
    ]

    /// The probe's value and the connection's server process, in a read.
    static func probe(_ pool: PostgresPool, _ change: Change) async throws -> (value: String?, pid: Int?) {
        try await pool.read { db in
            (
                try await db.fetchOne(String.self, query: change.probe),
                try await db.fetchOne(Int.self, query: "SELECT pg_backend_pid()")
            )
        }
    }

    @Test("a change in a committed write does not reach the next request on the connection", arguments: changes)
    func changeInWrite(_ change: Change) async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let before = try await Self.probe(pool, change)
            try await pool.write { db in _ = try await db.fetchAll(query: change.sql) }
            let after = try await Self.probe(pool, change)
            // The same connection, reset.
            #expect(after.pid == before.pid)
            #expect(after.value == before.value)
        }
    }

    @Test(
        "a change in a read does not reach the next request on the connection",
        // A read is a read-only transaction, where PostgreSQL refuses to create a table, even a temporary one.
        arguments: changes.filter { !$0.sql.hasPrefix("CREATE") })
    func changeInRead(_ change: Change) async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let before = try await Self.probe(pool, change)
            try await pool.read { db in _ = try await db.fetchAll(query: change.sql) }
            let after = try await Self.probe(pool, change)
            #expect(after.pid == before.pid)
            #expect(after.value == before.value)
        }
    }

    @Test("a change outside a transaction does not reach the next request on the connection", arguments: changes)
    func changeWithoutTransaction(_ change: Change) async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let before = try await Self.probe(pool, change)
            try await pool.writeWithoutTransaction { db in _ = try await db.fetchAll(query: change.sql) }
            let after = try await Self.probe(pool, change)
            #expect(after.pid == before.pid)
            #expect(after.value == before.value)
        }
    }

    @Test("a SET in a write that rolled back does not reach the next request either")
    func changeInRolledBackWrite() async throws {
        struct Failure: Error {}
        try await PostgresTestServer.withPool(connections: 1) { pool in
            await #expect(throws: Failure.self) {
                try await pool.write { db in
                    try await db.execute(query: "SET TimeZone = 'Asia/Tokyo'")
                    throw Failure()
                }
            }
            let zone = try await pool.read { db in try await db.fetchOne(String.self, query: "SHOW TimeZone") }
            #expect(zone != "Asia/Tokyo")
        }
    }

    @Test("a migration's SET TimeZone and statement_timeout do not reach the reads after it")
    func migrationSettings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-reset-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
        SET TimeZone = 'Asia/Tokyo';
        SET statement_timeout = '5min';
        CREATE TABLE migrated (a int);
        """.write(to: directory.appendingPathComponent("0001_settings.sql"), atomically: true, encoding: .utf8)
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let settings = "SELECT current_setting('TimeZone') || ' ' || current_setting('statement_timeout')"
            let before = try await pool.read { db in try await db.fetchOne(String.self, query: settings) }
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: directory)
            #expect(try await migrator.migrate(pool) == [1])
            let after = try await pool.read { db in try await db.fetchOne(String.self, query: settings) }
            #expect(after == before)
            #expect(after?.hasPrefix("Asia/Tokyo") == false)
        }
    }

    @Test("the URL's options stay set after a reset")
    func urlOptionsStay() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            // withPool sets search_path through the URL's options.
            let path = try await pool.read { db in try await db.fetchOne(String.self, query: "SHOW search_path") }
            try await pool.write { db in try await db.execute(query: "SET search_path = public") }
            let after = try await pool.read { db in try await db.fetchOne(String.self, query: "SHOW search_path") }
            #expect(after == path)
            #expect(path?.hasPrefix("strata_test_") == true)
        }
    }

    @Test(
        "a block outside a transaction that leaves its own BEGIN open gives back a connection outside any transaction")
    func blockLeavingTransactionOpen() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.writeWithoutTransaction { db in
                try await db.execute(query: "BEGIN")
                try await db.execute(query: "SET LOCAL TimeZone = 'Asia/Tokyo'")
            }
            // In a transaction left open, now() would stay when it began.
            let (first, second) = try await pool.writeWithoutTransaction { db in
                let first = try await db.fetchOne(Date.self, query: "SELECT now()")
                try await db.execute(query: "SELECT pg_sleep(0.02)")
                return (first, try await db.fetchOne(Date.self, query: "SELECT now()"))
            }
            #expect(first != nil && first != second)
            let zone = try await pool.read { db in try await db.fetchOne(String.self, query: "SHOW TimeZone") }
            #expect(zone != "Asia/Tokyo")
        }
    }

    @Test("a read owns its transaction: BEGIN in it is refused, and it sees one snapshot")
    func readOwnsItsTransaction() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in try await db.execute(query: "BEGIN") }
            }
            #expect(error?.code == .invalidArgument)
            // One transaction: now() is when it began, for every statement of the read.
            let (first, second) = try await pool.read { db in
                let first = try await db.fetchOne(Date.self, query: "SELECT now()")
                try await db.execute(query: "SELECT pg_sleep(0.02)")
                return (first, try await db.fetchOne(Date.self, query: "SELECT now()"))
            }
            #expect(first != nil && first == second)
        }
    }
}
