import StrataCore
import Testing

/// The check of texts of several statements: `execute` runs them one after another when they bind no values, and
/// refuses them before any runs when they bind values, as fetches refuse them, on every backend.
enum StatementTextChecks {
    static func run(_ pool: some DatabaseWriter) async throws {
        try await scriptRunsEachStatement(pool)
        try await failureStopsTheScript(pool)
        try await valuesTakeOneStatement(pool)
        try await parameterWithoutValue(pool)
        try await fetchesTakeOneStatement(pool)
    }

    /// The numbers in `conformance_step`, in order.
    private static func steps(_ pool: some DatabaseReader) async throws -> [Int64] {
        try await pool.read { session in
            try await session.fetchAll(Int64.self, "SELECT n FROM conformance_step ORDER BY n")
        }
    }

    /// Each statement runs, in order; a `;` in a string or a comment ends none, and a last `;` begins none.
    private static func scriptRunsEachStatement(_ pool: some DatabaseWriter) async throws {
        try await pool.write { session in
            try await session.execute(
                """
                CREATE TABLE conformance_step (n BIGINT NOT NULL);
                INSERT INTO conformance_step (n) VALUES (1);
                -- a comment; with a semicolon
                INSERT INTO conformance_step (n) VALUES (length('a;b'));
                INSERT INTO conformance_step (n) VALUES (2); /* one more; */
                """)
        }
        #expect(try await steps(pool) == [1, 2, 3])
    }

    /// Outside a transaction, the statements before a failing one stay; those after it never run.
    private static func failureStopsTheScript(_ pool: some DatabaseWriter) async throws {
        await #expect(throws: DatabaseError.self) {
            try await pool.writeWithoutTransaction { session in
                try await session.execute(
                    """
                    INSERT INTO conformance_step (n) VALUES (4);
                    INSERT INTO conformance_missing (n) VALUES (5);
                    INSERT INTO conformance_step (n) VALUES (6)
                    """)
            }
        }
        #expect(try await steps(pool) == [1, 2, 3, 4])
    }

    /// A text of several statements that binds a value is refused before any of it runs, and the write goes on; one
    /// statement with a value and a last `;` runs.
    private static func valuesTakeOneStatement(_ pool: some DatabaseWriter) async throws {
        let seven: Int64 = 7
        let refusal = try await pool.write { session in
            let refusal = await #expect(throws: DatabaseError.self) {
                try await session.execute(
                    "INSERT INTO conformance_step (n) VALUES (\(seven)); INSERT INTO conformance_step (n) VALUES (8)")
            }
            let nine: Int64 = 9
            try await session.execute("INSERT INTO conformance_step (n) VALUES (\(nine));")
            return refusal
        }
        #expect(refusal?.code == .invalidArgument)
        #expect(refusal?.message.contains("more than one statement") == true, "\(String(describing: refusal))")
        #expect(try await steps(pool) == [1, 2, 3, 4, 9])
    }

    /// A parameter in a text without values has none to take: the statement is refused, never run with NULL, and
    /// those before it stay.
    private static func parameterWithoutValue(_ pool: some DatabaseWriter) async throws {
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.writeWithoutTransaction { session in
                try await session.execute(
                    "INSERT INTO conformance_step (n) VALUES (10); INSERT INTO conformance_step (n) VALUES (:n)")
            }
        }
        #expect(error?.code == .unknownParameter)
        #expect(try await steps(pool) == [1, 2, 3, 4, 9, 10])
    }

    /// A fetch takes one statement: it refuses several before running any, and takes one with a last `;`.
    private static func fetchesTakeOneStatement(_ pool: some DatabaseWriter) async throws {
        let refusal = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in
                try await session.fetchAll(Int64.self, "SELECT 1; SELECT 2")
            }
        }
        #expect(refusal?.code == .invalidArgument)
        let one = try await pool.read { session in try await session.fetchOne(Int64.self, "SELECT 1;") }
        #expect(one == 1)
    }
}
