import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL: SQL values bind their interpolations", .postgresServer)
struct PostgresSQLValueTests {
    @Test("interpolated values and identifiers, named text, and jsonb's ? operator")
    func interpolation() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute("CREATE TABLE note (id bigint PRIMARY KEY, content text NOT NULL, data jsonb)")
                for (id, content) in [(1, "one"), (2, "two")] as [(Int64, String)] {
                    try await db.execute(
                        "INSERT INTO note (id, content, data) VALUES (\(id), \(content), '{\"k\": 1}')")
                }
            }
            let hostile = "one' OR '1' = '1"
            let table = "note"
            let result = try await pool.read { db in
                (
                    try await db.fetchAll(String.self, "SELECT content FROM note WHERE content = \(hostile)"),
                    try await db.fetchOne(Int.self, "SELECT count(*)::int FROM \(identifier: table)"),
                    try await db.fetchAll(
                        String.self,
                        SQL(sql: "SELECT content FROM note WHERE id > :id ORDER BY id", parameters: ["id": 0])),
                    try await db.fetchOne(Int.self, "SELECT count(*)::int FROM note WHERE data ? 'k' AND id = \(2)")
                )
            }
            #expect(result.0.isEmpty)
            #expect(result.1 == 2)
            #expect(result.2 == ["one", "two"])
            #expect(result.3 == 1)
        }
    }

    @Test(
        "a value interpolated inside PostgreSQL's quotes is refused, where it would be read as text",
        arguments: [
            SQL("SELECT \'x\' = E'a\\'\("x")'"),
            SQL("SELECT $$ \("x") $$"),
            SQL("SELECT $body$ \("x") $body$"),
            SQL("SELECT 1 /* outer /* inner */ \("x") */"),
            SQL("SELECT '\("x")'"),
        ])
    func valuesInsideQuotesAreRefused(sql: SQL) async throws {
        try await PostgresTestServer.withPool { pool in
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in _ = try await db.fetchAll(String.self, sql) }
            }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.description.contains("inside a quoted string") == true)
            // Closed before the value: bound.
            let bound = try await pool.read { db in try await db.fetchOne(String.self, "SELECT E'it\\'s ' || \("x")") }
            #expect(bound == "it's x")
        }
    }

    @Test("a text of several statements runs each in turn; a `;` in a function body or a dollar quote ends none")
    func severalStatements() async throws {
        try await PostgresTestServer.withPool { pool in
            let answers = try await pool.write { db in
                try await db.execute(
                    """
                    CREATE FUNCTION strata_one() RETURNS int LANGUAGE plpgsql AS $body$
                        BEGIN PERFORM 1; RETURN 1; END
                    $body$;
                    CREATE FUNCTION strata_two() RETURNS int LANGUAGE sql
                        BEGIN ATOMIC SELECT 1; SELECT 2; END;
                    CREATE TABLE semicolon (t text);
                    INSERT INTO semicolon VALUES ($$a;b$$)
                    """)
                return (
                    try await db.fetchOne(Int.self, "SELECT strata_one() + strata_two()"),
                    try await db.fetchOne(String.self, "SELECT t FROM semicolon")
                )
            }
            #expect(answers.0 == 3)
            #expect(answers.1 == "a;b")
        }
    }
}
