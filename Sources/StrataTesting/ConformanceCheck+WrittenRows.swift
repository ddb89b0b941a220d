import StrataCore
import Testing

/// The check of rows a write returns that cannot be read: an insert that reads its row back, and a statement with
/// `RETURNING`, leave nothing written when a row does not decode, on every backend.
enum WrittenRowsChecks {
    /// A row of `conformance_note` that does not decode when its content is `spoiled`, as a row changed by a trigger
    /// or a default the model cannot hold would not.
    struct FragileNote: Model, Sendable {
        static let tableName = "conformance_note"
        var id: Int64?
        var content: String
        var mood = "happy"
        var score: Int64 = 1

        /// The debug description of the decoding error: it must not reach the message of a later refusal.
        static let secret = "the secret that was read"

        init(content: String) {
            self.content = content
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            content = try container.decode(String.self, forKey: .content)
            mood = try container.decode(String.self, forKey: .mood)
            score = try container.decode(Int64.self, forKey: .score)
            if content == "spoiled" {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: [CodingKeys.content], debugDescription: Self.secret))
            }
        }
    }

    static func run(_ pool: some DatabaseWriter) async throws {
        try await insertOutsideAWrite(pool)
        try await insertCaughtInsideAWrite(pool)
        try await insertInANestedTransaction(pool)
        try await returningStatement(pool)
    }

    /// The contents of the table, in order.
    private static func contents(_ pool: some DatabaseReader) async throws -> [String] {
        try await pool.read { session in
            try await session.fetchAll(String.self, "SELECT content FROM conformance_note ORDER BY content")
        }
    }

    /// Outside a transaction, the insert runs in one of its own: the row is gone when the call throws.
    private static func insertOutsideAWrite(_ pool: some DatabaseWriter) async throws {
        await #expect(throws: DecodingError.self) {
            try await pool.writeWithoutTransaction { session in
                var note = FragileNote(content: "spoiled")
                try await session.insert(&note)
            }
        }
        #expect(try await contents(pool) == [])
    }

    /// Inside a write, the failure fails the write, as a statement the database rejects does, even when the body
    /// catches it: nothing of the write commits, the next statement is refused without the value in its message, and
    /// the write throws the decoding error.
    private static func insertCaughtInsideAWrite(_ pool: some DatabaseWriter) async throws {
        var refusal: DatabaseError?
        await #expect(throws: DecodingError.self) {
            try await pool.write { session in
                try await session.insert(FragileNote(content: "before"))
                var note = FragileNote(content: "spoiled")
                do { try await session.insert(&note) } catch {}
                do {
                    try await session.insert(FragileNote(content: "after"))
                } catch let error as DatabaseError {
                    refusal = error
                }
            }
        }
        #expect(refusal?.code == .transactionAborted)
        #expect(refusal?.message.contains("a row did not decode: corrupted data at content") == true)
        #expect(refusal.map { String(describing: $0).contains(FragileNote.secret) } == false)
        #expect(try await contents(pool) == [])
    }

    /// In a nested transaction, the failure rolls back that transaction only, and the write goes on.
    private static func insertInANestedTransaction(_ pool: some DatabaseWriter) async throws {
        let failed = try await pool.write { session in
            try await session.insert(FragileNote(content: "before"))
            var failed = false
            do {
                try await session.transaction { session in
                    var note = FragileNote(content: "spoiled")
                    try await session.insert(&note)
                }
            } catch is DecodingError {
                failed = true
            }
            try await session.insert(FragileNote(content: "after"))
            return failed
        }
        #expect(failed)
        #expect(try await contents(pool) == ["after", "before"])
    }

    /// A statement with `RETURNING` whose rows do not decode changes nothing, outside a write and inside one.
    private static func returningStatement(_ pool: some DatabaseWriter) async throws {
        let spoil: SQL = "UPDATE conformance_note SET content = 'spoiled' WHERE content = 'before' RETURNING *"
        await #expect(throws: DecodingError.self) {
            try await pool.writeWithoutTransaction { session in
                _ = try await session.fetchAll(FragileNote.self, spoil)
            }
        }
        #expect(try await contents(pool) == ["after", "before"])
        await #expect(throws: DecodingError.self) {
            try await pool.writeWithoutTransaction { session in
                _ = try await session.fetchOne(FragileNote.self, spoil)
            }
        }
        #expect(try await contents(pool) == ["after", "before"])
        await #expect(throws: DecodingError.self) {
            try await pool.write { session in
                do { _ = try await session.fetchAll(FragileNote.self, spoil) } catch {}
            }
        }
        #expect(try await contents(pool) == ["after", "before"])
    }
}
