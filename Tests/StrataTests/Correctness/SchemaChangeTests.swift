import Foundation
import Strata
import Testing

struct Doc: Model, Equatable {
    static let tableName = "doc"
    var id: Int64?
    var title: String
    var body: String
}

/// Rebuilds `doc` with `body` before `title`, the way a migration that reorders columns does.
private let swapColumns = """
    CREATE TABLE d2 (id INTEGER PRIMARY KEY, body TEXT, title TEXT);
    INSERT INTO d2 SELECT id, body, title FROM doc;
    DROP TABLE doc;
    ALTER TABLE d2 RENAME TO doc;
    """

@Suite("Correctness: statements follow schema changes")
struct SchemaChangeTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE doc (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
        var doc = Doc(id: nil, title: "the title", body: "the body")
        try db.insert(&doc)
        return db
    }

    let expected = [Doc(id: 1, title: "the title", body: "the body")]

    @Test func fetchAllReadsEachColumnByNameAfterTheTableIsRebuiltInAnotherOrder() throws {
        let db = try database()
        #expect(try db.fetchAll(Doc.self) == expected)
        try db.execute(query: swapColumns)
        #expect(try db.fetchAll(Doc.self) == expected)
    }

    @Test func findAndSQLFetchesFollowTheNewColumnOrder() throws {
        let db = try database()
        #expect(try db.find(Doc.self, id: 1) == expected[0])
        #expect(try db.fetchAll(Doc.self, query: "SELECT * FROM doc") == expected)
        #expect(try db.fetchOne(Doc.self, query: "SELECT * FROM doc") == expected[0])
        try db.execute(query: swapColumns)
        #expect(try db.find(Doc.self, id: 1) == expected[0])
        #expect(try db.fetchAll(Doc.self, query: "SELECT * FROM doc") == expected)
        #expect(try db.fetchOne(Doc.self, query: "SELECT * FROM doc") == expected[0])
    }

    @Test func aPreparedStatementReportsItsNewColumnsAndRowsReadThemByName() throws {
        let db = try database()
        let select = try db.prepare(query: "SELECT * FROM doc")
        #expect(select.columnNames == ["id", "title", "body"])
        try db.execute(query: swapColumns)
        let row = try #require(try select.next())
        #expect(select.columnNames == ["id", "body", "title"])
        #expect(try row.title as String == "the title")
        #expect(try RowDecoder().decode(Doc.self, from: row) == expected[0])
    }

    @Test func droppingAColumnTheModelDoesNotUseKeepsReadsWorking() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE doc (id INTEGER PRIMARY KEY, extra TEXT, title TEXT, body TEXT)")
        try db.execute(query: "INSERT INTO doc VALUES (1, 'x', 'the title', 'the body')")
        #expect(try db.fetchAll(Doc.self) == expected)
        try db.execute(query: "ALTER TABLE doc DROP COLUMN extra")
        #expect(try db.fetchAll(Doc.self) == expected)
        #expect(try db.find(Doc.self, id: 1) == expected[0])
    }

    @Test func droppingAColumnTheModelNeedsIsAnErrorNamingIt() throws {
        let db = try database()
        #expect(try db.fetchAll(Doc.self) == expected)
        try db.execute(query: "ALTER TABLE doc DROP COLUMN body")
        let error = #expect(throws: DecodingError.self) { try db.fetchAll(Doc.self) }
        #expect(String(describing: error).contains("body"))
    }

    @Test func aPoolReaderFollowsAMigrationMadeByTheWriter() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 1)
        try await pool.write { db in
            try db.execute(query: "CREATE TABLE doc (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
            var doc = Doc(id: nil, title: "the title", body: "the body")
            try db.insert(&doc)
        }
        #expect(try await pool.read { db in try db.fetchAll(Doc.self) } == expected)
        try await pool.write { db in try db.execute(query: swapColumns) }
        // Read, change and save: the values must not trade places on the way.
        var doc = try #require(try await pool.read { db in try db.find(Doc.self, id: 1) })
        doc.title = "a new title"
        try await pool.write { [doc] db in try db.update(doc) }
        let saved = try await pool.read { db in try db.fetchAll(Doc.self) }
        #expect(saved == [Doc(id: 1, title: "a new title", body: "the body")])
        let raw = try await pool.read { db in
            try db.fetchAll(String.self, query: "SELECT title || '/' || body FROM doc")
        }
        #expect(raw == ["a new title/the body"])
        await pool.close()
    }
}

/// A snake_case table whose primary key is not `id`.
private struct Post: Model, Equatable {
    static let tableName = "post"
    static let primaryKey = "postId"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var postId: Int64?
    var postTitle: String
}

/// The same table with the primary key given as its column name.
private struct PostByColumn: Model, Equatable {
    static let tableName = "post"
    static let primaryKey = "post_id"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var postId: Int64?
    var postTitle: String
}

@Suite("Correctness: one rule for the primary key's column")
struct PrimaryKeyColumnTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE post (post_id INTEGER PRIMARY KEY, post_title TEXT NOT NULL)")
        return db
    }

    @Test func aCodingKeyPrimaryKeyWorksForEveryRecordOperationUnderSnakeCase() throws {
        let db = try database()
        var post = Post(postId: nil, postTitle: "hello")
        try db.insert(&post)
        #expect(post.postId == 1)
        #expect(try db.find(Post.self, id: 1) == post)
        #expect(try db.fetchAll(Post.self) == [post])
        post.postTitle = "changed"
        try db.update(post)
        var upserted = Post(postId: 2, postTitle: "two")
        try db.upsert(&upserted)
        #expect(try db.fetchAll(Post.self).map(\.postTitle) == ["changed", "two"])
        #expect(try db.delete(post))
        #expect(try db.delete(Post.self, id: 2))
        #expect(try db.fetchAll(Post.self).isEmpty)
    }

    @Test func aColumnNamePrimaryKeyNamesTheSameColumn() throws {
        let db = try database()
        var post = PostByColumn(postId: nil, postTitle: "hello")
        try db.insert(&post)
        #expect(try db.find(PostByColumn.self, id: 1) == post)
        #expect(try db.fetchAll(PostByColumn.self) == [post])
        #expect(try db.delete(PostByColumn.self, id: 1))
    }
}
