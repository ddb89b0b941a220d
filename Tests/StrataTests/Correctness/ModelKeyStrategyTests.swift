import Foundation
import Strata
import Testing

private struct Post: Model, Equatable {
    static let tableName = "post"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var authorName: String
    var likeCount: Int
}

/// A model read by hand-written SQL reads its columns as `find` and `fetchAll(Post.self)` do: through the model's
/// key strategy. Before, every one of these threw keyNotFound 'authorName' on the snake_case table.
@Suite("Correctness: raw SQL reads a model through its own key strategy")
struct ModelKeyStrategyTests {
    private func makeDatabase() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE post (id INTEGER PRIMARY KEY, author_name TEXT NOT NULL, like_count INTEGER NOT NULL);
                INSERT INTO post (author_name, like_count) VALUES ('ada', 3), ('grace', 5);
                """)
        return db
    }

    private let expected = [
        Post(id: 1, authorName: "ada", likeCount: 3), Post(id: 2, authorName: "grace", likeCount: 5),
    ]

    @Test func fetchAllByQuery() throws {
        let db = try makeDatabase()
        #expect(try db.fetchAll(Post.self, query: "SELECT * FROM post ORDER BY id") == expected)
        #expect(try db.fetchAll(Post.self, query: "SELECT * FROM post ORDER BY id") == db.fetchAll(Post.self))
    }

    @Test func fetchOneAndCursorByQuery() throws {
        let db = try makeDatabase()
        #expect(try db.fetchOne(Post.self, query: "SELECT * FROM post WHERE id = ?", parameters: [2]) == expected[1])
        let cursor = try db.fetchCursor(Post.self, query: "SELECT * FROM post ORDER BY id")
        var read: [Post] = []
        while let post = try cursor.next() { read.append(post) }
        #expect(read == expected)
    }

    @Test func aRowDecoderWhoseStrategyWasNeverSet() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(query: "SELECT * FROM post ORDER BY id")
        let row = try #require(try statement.next())
        #expect(try RowDecoder().decode(Post.self, from: row) == expected[0])
    }

    @Test func redirectionIntoAnotherModel() throws {
        let db = try makeDatabase()
        // A request on one model whose rows decode as another (snake_case) model.
        #expect(try db.fetchAll(Post.self, Post.order(Column("id"))) == expected)
    }

    @Test func aStrategySetOnTheDecoderWins() throws {
        let db = try makeDatabase()
        // Set explicitly, even to the default, the decoder's strategy is the one used: aliases in camelCase read.
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .useDefaultKeys
        let posts = try db.fetchAll(
            Post.self, query: "SELECT id, author_name AS authorName, like_count AS likeCount FROM post ORDER BY id",
            decoder: decoder)
        #expect(posts == expected)
        #expect(throws: DecodingError.self) {
            try db.fetchAll(Post.self, query: "SELECT * FROM post", decoder: decoder)
        }
    }

    @Test func aPlainCodableTypeKeepsTheDefaultKeys() throws {
        struct Row: Decodable, Equatable {
            var authorName: String
        }
        let db = try makeDatabase()
        #expect(throws: DecodingError.self) {
            try db.fetchAll(Row.self, query: "SELECT author_name FROM post")
        }
        #expect(
            try db.fetchAll(Row.self, query: "SELECT author_name AS authorName FROM post ORDER BY id")
                == [Row(authorName: "ada"), Row(authorName: "grace")])
    }
}
