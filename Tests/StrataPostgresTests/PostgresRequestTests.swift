import Foundation
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL requests", .postgresServer)
struct PostgresRequestTests {
    /// Writes five notes: ids 1...5, moods happy, sad, happy, happy, sad; dates one day apart.
    static func seed(_ pool: PostgresPool) async throws {
        try await pool.write { db in
            try await db.execute(query: Note.createTable)
            for (offset, mood) in ["happy", "sad", "happy", "happy", "sad"].enumerated() {
                var note = Note(
                    id: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(offset) * 86_400),
                    content: "note \(offset + 1)", mood: mood)
                try await db.insert(&note)
            }
        }
    }

    @Test("filter, order and limit run Strata's own rendering of the request")
    func filterOrderLimit() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let request = Note.filter(Column("mood") == "happy").order(Column("id").desc).limit(2)
            let notes = try await pool.read { db in try await db.fetchAll(request) }
            #expect(notes.map(\.id) == [4, 3])
            let offset = try await pool.read { db in try await db.fetchAll(request.limit(2, offset: 2)) }
            #expect(offset.map(\.id) == [1])
            // fetchOne reads one row of five and leaves the rest; the session's next statement runs as usual.
            let (first, count) = try await pool.read { db in
                (
                    try await db.fetchOne(Note.order(Column("createdAt"))),
                    try await db.fetchCount(Note.filter(Column("mood") == "sad"))
                )
            }
            #expect(first?.id == 1)
            #expect(count == 2)
        }
    }

    @Test("expressions: IN, LIKE, BETWEEN, IS NULL, dates, and raw fragments with named and positional values")
    func expressions() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let since = Date(timeIntervalSince1970: 1_700_000_000 + 2 * 86_400)
            let (inList, like, between, dated, raw, nothing) = try await pool.read { db in
                (
                    try await db.fetchAll(Note.filter([1, 3, 5].contains(Column("id"))).order(Column("id"))),
                    try await db.fetchAll(Note.filter(Column("content").like("%4")).order(Column("id"))),
                    try await db.fetchCount(Note.filter(Column("id").between(2, 4))),
                    try await db.fetchCount(Note.filter(Column("createdAt") >= since)),
                    try await db.fetchAll(
                        Note.filter(sql: "length(content) > :n", parameters: ["n": 3])
                            .filter(Column("mood") == "sad")
                            .filter(sql: "id > ?", parameters: [2])
                            .order(Column("id"))),
                    try await db.fetchCount(Note.filter(Column("content") == nil))
                )
            }
            #expect(inList.map(\.id) == [1, 3, 5])
            #expect(like.map(\.id) == [4])
            #expect(between == 3)
            #expect(dated == 3)
            #expect(raw.map(\.id) == [5])
            #expect(nothing == 0)
        }
    }

    @Test("redirection: a selection decodes into another Decodable type or a scalar")
    func redirection() async throws {
        struct Stats: Decodable, Equatable {
            var newest: Int64
            var total: Int
        }
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let (stats, newest, moods) = try await pool.read { db in
                (
                    try await db.fetchOne(
                        Stats.self,
                        Note.select(max(Column("id")).forKey("newest"), count(Column("id")).forKey("total"))),
                    try await db.fetchOne(Int64.self, Note.select(max(Column("id")))),
                    try await db.fetchAll(String.self, Note.select(Column("mood")).order(Column("id")))
                )
            }
            #expect(stats == Stats(newest: 5, total: 5))
            #expect(newest == 5)
            #expect(moods == ["happy", "sad", "happy", "happy", "sad"])
        }
    }

    @Test("a cursor decodes rows one at a time inside the session, and throws after it")
    func cursor() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let contents = try await pool.read { db in
                var contents: [String] = []
                for try await note in try await db.fetchCursor(Note.order(Column("id"))) {
                    contents.append(note.content)
                }
                return contents
            }
            #expect(contents == (1...5).map { "note \($0)" })
            let escaped = try await pool.read { db in
                try await db.fetchCursor(Int.self, query: "SELECT generate_series(1, 3)")
            }
            let error = await #expect(throws: DatabaseError.self) {
                for try await _ in escaped {}
            }
            #expect(error?.code == .connectionClosed)
        }
    }

    @Test("a request's failure (a negative limit) throws before anything runs, naming the SQL")
    func requestFailure() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in _ = try await db.fetchAll(Note.limit(-1)) }
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.sql?.contains("LIMIT $1") == true)
        }
    }
    /// A tag of a note: its `id` and `noteId` clash with nothing but the note's own `id`.
    struct Tag: Model, Equatable {
        static let tableName = "tag"
        var id: Int64?
        var noteId: Int64
        var name: String
    }

    /// The five notes of `seed`, and tags 1, 2, 3 on notes 1, 1, 3, named swift, sql, swift.
    static func seedTags(_ pool: PostgresPool) async throws {
        try await seed(pool)
        try await pool.write { db in
            try await db.execute(
                query: "CREATE TABLE tag (id bigserial PRIMARY KEY, \"noteId\" bigint NOT NULL, name text NOT NULL)")
            for (noteId, name) in [(Int64(1), "swift"), (1, "sql"), (3, "swift")] {
                try await db.insert(Tag(id: nil, noteId: noteId, name: name))
            }
        }
    }

    @Test("joins decode pairs, each model reading its own table's columns; a left join gives nil for no match")
    func joins() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seedTags(pool)
            let condition = Column("noteId", table: Tag.self) == Column("id")
            let (pairs, left) = try await pool.read { db in
                (
                    try await db.fetchAll(
                        Note.joining(Tag.self, on: condition).filter(Column("name", table: Tag.self) == "swift")
                            .order(Column("id"))),
                    try await db.fetchAll(
                        Note.leftJoining(Tag.self, on: condition).filter(Column("id") <= 2)
                            .order(Column("id"), Column("id", table: Tag.self)))
                )
            }
            #expect(pairs.map { $0.0.id } == [1, 3])
            #expect(pairs.map { $0.1 } == [Tag(id: 1, noteId: 1, name: "swift"), Tag(id: 3, noteId: 3, name: "swift")])
            #expect(left.map { $0.0.id } == [1, 1, 2])
            #expect(left.map { $0.1?.name } == ["swift", "sql", nil])
        }
    }
    /// A reaction to a tag: a third table whose `id` clashes with both others'.
    struct Reaction: Model, Equatable {
        static let tableName = "reaction"
        var id: Int64?
        var tagId: Int64
        var emoji: String
    }

    @Test("a three-table join decodes triples, each model reading its own table's columns")
    func threeTableJoin() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seedTags(pool)
            try await pool.write { db in
                try await db.execute(
                    query: "CREATE TABLE reaction (id bigserial PRIMARY KEY, \"tagId\" bigint NOT NULL, emoji text)")
                // Ids 1, 2, 3 of reaction point at tags 3, 1, 3: no row's ids agree across the three tables.
                for (tagId, emoji) in [(Int64(3), "+1"), (1, "heart"), (3, "eyes")] {
                    try await db.insert(Reaction(id: nil, tagId: tagId, emoji: emoji))
                }
            }
            let request = Note.joining(Tag.self, on: Column("noteId", table: Tag.self) == Column("id"))
                .joining(Reaction.self, on: Column("tagId", table: Reaction.self) == Column("id", table: Tag.self))
                .order(Column("id", table: Reaction.self))
            let rows = try await pool.read { db in try await db.fetchAll(request) }
            #expect(rows.map { $0.0.id } == [3, 1, 3])
            #expect(rows.map { $0.0.content } == ["note 3", "note 1", "note 3"])
            #expect(
                rows.map { $0.1 } == [
                    Tag(id: 3, noteId: 3, name: "swift"), Tag(id: 1, noteId: 1, name: "swift"),
                    Tag(id: 3, noteId: 3, name: "swift"),
                ])
            #expect(
                rows.map { $0.2 } == [
                    Reaction(id: 1, tagId: 3, emoji: "+1"), Reaction(id: 2, tagId: 1, emoji: "heart"),
                    Reaction(id: 3, tagId: 3, emoji: "eyes"),
                ])
            let none = try await pool.read { db in
                try await db.fetchAll(request.filter(Column("emoji", table: Reaction.self) == "none"))
            }
            #expect(none.isEmpty)
        }
    }

    /// The tags with swift in their name, as a view: a model on it reads the view's columns.
    struct SwiftTag: Model, Equatable {
        static let tableName = "swift_tag"
        var id: Int64?
        var noteId: Int64
        var name: String
    }

    @Test("a join written as SQL splits each row by the table each column is read from: three tables, a view")
    func joinsWrittenAsSQL() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seedTags(pool)
            try await pool.write { db in
                try await db.execute("CREATE TABLE reaction (id bigserial PRIMARY KEY, \"tagId\" bigint, emoji text)")
                try await db.execute("CREATE VIEW swift_tag AS SELECT * FROM tag WHERE name = 'swift'")
                for (tagId, emoji) in [(Int64(3), "+1"), (1, "heart")] {
                    try await db.insert(Reaction(id: nil, tagId: tagId, emoji: emoji))
                }
            }
            let minimum: Int64 = 1
            let (triples, viewed, expression) = try await pool.read { db in
                (
                    try await db.fetchAll(
                        Note.self, Tag.self, Reaction.self,
                        """
                        SELECT note.*, tag.*, reaction.* FROM reaction JOIN tag ON tag.id = reaction."tagId"
                            JOIN note ON note.id = tag."noteId" WHERE reaction.id >= \(minimum) ORDER BY reaction.id
                        """),
                    try await db.fetchAll(
                        Note.self, SwiftTag.self,
                        query: """
                            SELECT note.*, swift_tag.* FROM note JOIN swift_tag ON swift_tag."noteId" = note.id
                                ORDER BY swift_tag.id
                            """),
                    // A computed column belongs to no table: the run of the note's columns ends before it.
                    try await db.fetchAll(
                        Note.self, Tag.self,
                        """
                        SELECT note.*, 1 AS one, tag.* FROM note JOIN tag ON tag."noteId" = note.id ORDER BY tag.id
                        """)
                )
            }
            #expect(triples.map { [$0.0.id, $0.1.id, $0.2.id] } == [[3, 3, 1], [1, 1, 2]])
            #expect(triples.map(\.2.emoji) == ["+1", "heart"])
            #expect(viewed.map { [$0.0.id, $0.1.id] } == [[1, 1], [3, 3]])
            #expect(viewed.map(\.1.name) == ["swift", "swift"])
            #expect(expression.map { [$0.0.id, $0.1.id] } == [[1, 1], [1, 2], [3, 3]])

            // A view's rows name the view, not its base table: a model on the table finds none of its columns.
            let error = await #expect(throws: DatabaseError.self) {
                try await pool.read { db in
                    try await db.fetchAll(
                        Note.self, Tag.self,
                        "SELECT note.*, swift_tag.* FROM note JOIN swift_tag ON swift_tag.\"noteId\" = note.id")
                }
            }
            #expect(error?.code == .unknownColumn)
            #expect(error?.description.contains("\"tag\"") == true)
        }
    }

    /// The note table read with a mood that must be an integer: every stored mood fails to decode.
    struct NumericMoodNote: Model {
        static let tableName = "note"
        var id: Int64?
        var mood: Int
    }

    @Test("deleteAndFetchAll and updateAndFetchAll return the rows they changed; a row that fails to decode rolls back")
    func writesReturningRows() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let (calmed, deleted) = try await pool.write { db in
                (
                    try await db.updateAndFetchAll(
                        Note.filter(Column("mood") == "sad"), Column("mood").set(to: "calm")),
                    try await db.deleteAndFetchAll(Note.filter(Column("id") > 4))
                )
            }
            #expect(calmed.compactMap(\.id).sorted() == [2, 5])
            #expect(calmed.allSatisfy { $0.mood == "calm" })
            #expect(deleted.count == 1)
            #expect(deleted.first?.id == 5)
            #expect(deleted.first?.content == "note 5")
            #expect(deleted.first?.createdAt == Date(timeIntervalSince1970: 1_700_000_000 + 4 * 86_400))

            let decode = await #expect(throws: DecodingError.self) {
                try await pool.write { db in
                    try await db.updateAndFetchAll(NumericMoodNote.all(), Column("mood").set(to: "gone"))
                }
            }
            #expect(decode != nil)
            await #expect(throws: DecodingError.self) {
                try await pool.write { db in try await db.deleteAndFetchAll(NumericMoodNote.all()) }
            }
            let after = try await pool.read { db in
                try await db.fetchAll(String.self, Note.select(Column("mood")).order(Column("id")))
            }
            #expect(after == ["happy", "calm", "happy", "happy"])
            let noAssignment = await #expect(throws: DatabaseError.self) {
                try await pool.write { db in try await db.updateAndFetchAll(Note.all()) }
            }
            #expect(noAssignment?.code == .invalidArgument)
        }
    }

    @Test("deleteAll and updateAll change the request's rows and count them")
    func deleteAndUpdateAll() async throws {
        try await PostgresTestServer.withPool { pool in
            try await Self.seed(pool)
            let (updated, deleted, limited) = try await pool.write { db in
                (
                    try await db.updateAll(Note.filter(Column("mood") == "sad"), Column("mood").set(to: "calm")),
                    try await db.deleteAll(Note.filter(Column("id") > 4)),
                    try await db.deleteAll(Note.order(Column("id")).limit(1))
                )
            }
            #expect(updated == 2)
            #expect(deleted == 1)
            #expect(limited == 1)
            let moods = try await pool.read { db in
                try await db.fetchAll(String.self, Note.select(Column("mood")).order(Column("id")))
            }
            #expect(moods == ["calm", "happy", "happy"])
            let none = await #expect(throws: DatabaseError.self) {
                try await pool.write { db in try await db.updateAll(Note.all()) }
            }
            #expect(none?.code == .invalidArgument)
        }
    }
}
