import Testing

@testable import StrataPostgres

/// How the pool reads what a statement of the caller's may do: change the session (reset after it), control the
/// transaction (refused in a write), or only read (may be cancelled).
@Suite("PostgreSQL statement effects")
struct PostgresStatementEffectsTests {
    @Test(
        "statements that may leave state on the connection",
        arguments: [
            "SET TimeZone = 'UTC'", "set search_path to x", "SET SESSION statement_timeout = 1",
            "SET ROLE other", "SET SESSION AUTHORIZATION other", "RESET ALL", "DISCARD TEMP", "LISTEN c",
            "UNLISTEN *", "PREPARE p AS SELECT 1", "DEALLOCATE p", "DECLARE c CURSOR WITH HOLD FOR SELECT 1",
            "CREATE TEMP TABLE t (a int)", "CREATE TEMPORARY TABLE t (a int)", "create local temporary table t (a int)",
            "DO $$ BEGIN PERFORM 1; END $$", "CALL p()", "LOAD 'x'", "SELECT set_config('a.b', 'c', false)",
            "select pg_advisory_lock(1)", "SELECT pg_try_advisory_lock_shared(1, 2)", "SELECT setseed(0.5)",
            "WITH x AS (SELECT 1) SELECT PG_CATALOG.SET_CONFIG('a.b', 'c', false)", "-- comment\nSET a.b = 1",
            "/* a /* nested */ comment */ SET a.b = 1", "  (SET", "", "$1",
        ])
    func changesSession(_ sql: String) {
        #expect(PostgresStatementEffects(sql: sql).changesSession)
    }

    @Test(
        "statements that leave nothing on the connection",
        arguments: [
            "SELECT 1", "select * from note where id = $1", "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1",
            "DELETE FROM t", "CREATE TABLE t (a int)", "CREATE UNLOGGED TABLE t (a int)", "ALTER TABLE t ADD b int",
            "DROP TABLE t", "SET LOCAL TimeZone = 'UTC'", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET CONSTRAINTS ALL DEFERRED", "SELECT pg_advisory_xact_lock(1)", "WITH x AS (SELECT 1) SELECT * FROM x",
            "SAVEPOINT s", "RELEASE SAVEPOINT s", "ROLLBACK TO SAVEPOINT s", "TRUNCATE t", "EXPLAIN SELECT 1",
            "SELECT 'set_configuration'", "VALUES (1)", "TABLE t", "SHOW TimeZone",
        ])
    func leavesSession(_ sql: String) {
        #expect(!PostgresStatementEffects(sql: sql).changesSession)
    }

    @Test(
        "transaction control",
        arguments: [
            "BEGIN", "begin transaction", "START TRANSACTION", "COMMIT", "END", "ROLLBACK", "ABORT",
            "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'", "  /* c */ rollback",
        ])
    func controlsTransaction(_ sql: String) {
        let effects = PostgresStatementEffects(sql: sql)
        #expect(effects.controlsTransaction)
    }

    @Test(
        "what only reads, and what does not",
        arguments: [
            ("SELECT 1", true), ("(SELECT 1) UNION (SELECT 2)", true), ("VALUES (1)", true), ("TABLE t", true),
            ("SHOW TimeZone", true), ("WITH x AS (SELECT 1) SELECT * FROM x", true),
            ("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", false), ("SELECT * INTO t2 FROM t", false),
            ("UPDATE t SET a = 1 RETURNING a", false), ("INSERT INTO t SELECT 1 RETURNING *", false),
            ("EXPLAIN ANALYZE DELETE FROM t", false), ("SELECT a AS into_x FROM t", true),
        ])
    func onlyReads(_ sql: String, _ expected: Bool) {
        #expect(PostgresStatementEffects(sql: sql).onlyReads == expected)
    }
}
