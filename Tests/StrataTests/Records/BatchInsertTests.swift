internal import CSQLite
import Foundation
import StrataRecord
import Testing

@testable import Strata

/// A Codable model whose `email` is unique: a duplicate in a batch fails it.
private struct Member: Model, Equatable {
    static let tableName = "member"
    var id: Int64?
    var email: String
    var joinedAt: Date
    var score: Double?
}

/// The same table, read and written by generated code.
@Table("member")
private struct TableMember: Codable, Equatable {
    var id: Int64?
    var email: String
    var joinedAt: Date
    var score: Double?
}

/// A snake_case model: `authorName` is the column `author_name`.
private struct Post: Model, Equatable {
    static let tableName = "post"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var authorName: String
    var likeCount: Int
}

/// A snake_case `@Table` model.
@Table("post")
private struct TablePost: Codable, Equatable {
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var authorName: String
    var likeCount: Int
}

/// A model whose `email` is unique with `ON CONFLICT IGNORE`: SQLite ignores a duplicate.
private struct Subscriber: Model, Equatable {
    static let tableName = "subscriber"
    var id: Int64?
    var email: String
}

/// A model with a text key that SQLite never assigns.
private struct Tagged: Model, Equatable {
    static let tableName = "tagged"
    var id: String?
    var name: String
}

/// A model whose String `count` goes to an INTEGER column: "12" is stored as 12 and cannot be read back.
private struct Mismatch: Model, Equatable {
    static let tableName = "mismatch"
    var id: Int64?
    var count: String
}

/// A model whose `count` is a UInt64, which cannot be stored above `Int64.max`.
private struct Counter: Model, Equatable {
    static let tableName = "counter"
    var id: Int64?
    var count: UInt64
}

/// A model whose own `encode(to:)` throws for an empty name.
private struct Picky: Model, Equatable {
    struct EmptyName: Error {}
    static let tableName = "tagged"
    var id: String?
    var name: String

    func encode(to encoder: any Encoder) throws {
        guard !name.isEmpty else { throw EmptyName() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
    }
}

private func database() throws -> Database {
    let db = try Database()
    try db.execute(
        query: """
            CREATE TABLE member (
                id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, joinedAt TEXT NOT NULL, score REAL);
            CREATE TABLE post (id INTEGER PRIMARY KEY, author_name TEXT NOT NULL, like_count INTEGER NOT NULL);
            CREATE TABLE subscriber (id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT IGNORE);
            CREATE TABLE tagged (id TEXT PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE mismatch (id INTEGER PRIMARY KEY, count INTEGER);
            CREATE TABLE counter (id INTEGER PRIMARY KEY, count INTEGER);
            """)
    return db
}

private func members(_ count: Int, from first: Int = 0) -> [Member] {
    (first..<first + count).map {
        Member(
            id: nil, email: "m\($0)@example.com", joinedAt: Date(timeIntervalSince1970: Double($0) * 86_400),
            score: $0.isMultiple(of: 2) ? Double($0) / 4 : nil)
    }
}

private func tableMembers(_ count: Int, from first: Int = 0) -> [TableMember] {
    members(count, from: first).map { TableMember(id: $0.id, email: $0.email, joinedAt: $0.joinedAt, score: $0.score) }
}

/// Every row of `table`, as SQLite stores it: storage class and value of each column.
private func storedRows(_ table: String, in db: Database) throws -> [[String]] {
    let statement = try db.prepare(query: "SELECT * FROM \(table) ORDER BY id")
    var rows: [[String]] = []
    while let row = try statement.next() {
        rows.append(
            try (0..<statement.columnCount).map { index in
                let value: DatabaseValue = try row[index]
                return "\(value)"
            })
    }
    return rows
}

private func count(_ table: String, in db: Database) throws -> Int {
    try db.fetchOne(Int.self, query: "SELECT count(*) FROM \(table)") ?? -1
}

@Suite("Records: insert(contentsOf:) fills in the keys and stores what single inserts store")
struct BatchInsertTests {
    @Test("Nil integer keys are filled in from the rows written") func nilIntegerKeysAreFilledInFromTheRowsWritten()
        throws
    {
        let db = try database()
        var batch = members(3)
        try db.insert(contentsOf: &batch)
        #expect(batch.map(\.id) == [1, 2, 3])
        #expect(batch.map(\.email) == ["m0@example.com", "m1@example.com", "m2@example.com"])
        #expect(try db.fetchAll(Member.self) == batch)
    }

    @Test func theStoredRowsAreWhatALoopOfSingleInsertsStores() throws {
        let single = try database()
        var one = members(20)
        for index in one.indices { try single.insert(&one[index]) }
        let batched = try database()
        var all = members(20)
        try batched.insert(contentsOf: &all)
        #expect(all == one)
        #expect(try storedRows("member", in: batched) == storedRows("member", in: single))
    }

    @Test func tableModelsStoreWhatTheirCodableTwinsStore() throws {
        let codable = try database()
        var twins = members(10)
        try codable.insert(contentsOf: &twins)
        let generated = try database()
        var batch = tableMembers(10)
        try generated.insert(contentsOf: &batch)
        #expect(batch.map(\.id) == twins.map(\.id))
        #expect(batch == twins.map { TableMember(id: $0.id, email: $0.email, joinedAt: $0.joinedAt, score: $0.score) })
        #expect(try storedRows("member", in: generated) == storedRows("member", in: codable))
    }

    @Test func tableModelsStoreWhatALoopOfSingleInsertsStores() throws {
        let single = try database()
        var one = tableMembers(10)
        for index in one.indices { try single.insert(&one[index]) }
        let batched = try database()
        var all = tableMembers(10)
        try batched.insert(contentsOf: &all)
        #expect(all == one)
        #expect(try storedRows("member", in: batched) == storedRows("member", in: single))
    }

    @Test func mixedNilAndSetKeysAreInsertedInOrder() throws {
        let db = try database()
        var batch = members(6)
        batch[1].id = 10
        batch[2].id = 20
        batch[4].id = 40
        try db.insert(contentsOf: &batch)
        // A nil key gets the next rowid after the largest one, as a single insert's does.
        #expect(batch.map(\.id) == [1, 10, 20, 21, 40, 41])
        #expect(try db.fetchAll(Member.self) == batch)
    }

    @Test func mixedKeysOfATableModel() throws {
        let db = try database()
        var batch = tableMembers(4)
        batch[0].id = 7
        batch[2].id = 3
        try db.insert(contentsOf: &batch)
        #expect(batch.map(\.id) == [7, 8, 3, 9])
        #expect(try db.fetchAll(TableMember.self).map(\.id) == [3, 7, 8, 9])
    }

    @Test func snakeCaseModelsAreWrittenAndReadBackThroughTheirKeyStrategy() throws {
        let db = try database()
        var posts = [Post(id: nil, authorName: "ada", likeCount: 3), Post(id: nil, authorName: "grace", likeCount: 5)]
        try db.insert(contentsOf: &posts)
        #expect(posts.map(\.id) == [1, 2])
        var tablePosts = [TablePost(id: nil, authorName: "alan", likeCount: 8)]
        try db.insert(contentsOf: &tablePosts)
        #expect(tablePosts == [TablePost(id: 3, authorName: "alan", likeCount: 8)])
        #expect(
            try db.fetchAll(String.self, query: "SELECT author_name || ':' || like_count FROM post ORDER BY id")
                == ["ada:3", "grace:5", "alan:8"])
    }

    @Test func theRowsReadBackHoldWhatATriggerStored() throws {
        let db = try database()
        try db.execute(
            query: """
                CREATE TRIGGER lower_email AFTER INSERT ON subscriber
                BEGIN UPDATE subscriber SET email = lower(NEW.email) WHERE id = NEW.id; END
                """)
        var batch = [Subscriber(id: nil, email: "A@Example.com"), Subscriber(id: nil, email: "B@Example.com")]
        try db.insert(contentsOf: &batch)
        #expect(batch.map(\.id) == [1, 2])
        #expect(
            try db.fetchAll(String.self, query: "SELECT email FROM subscriber ORDER BY id") == [
                "a@example.com", "b@example.com",
            ])
    }

    @Test func aSequenceIsInsertedWithoutWritingBack() throws {
        let db = try database()
        let batch = members(3)
        try db.insert(contentsOf: batch.lazy.map { $0 })
        try db.insert(contentsOf: tableMembers(2, from: 3))
        #expect(batch.allSatisfy { $0.id == nil })
        #expect(try db.fetchAll(Member.self).map(\.id) == [1, 2, 3, 4, 5])
        #expect(try db.fetchAll(Member.self).map(\.email) == members(5).map(\.email))
    }

    @Test("An empty array is a no-op") func anEmptyArrayIsANoOp() throws {
        let db = try database()
        // No statement runs: the table of the type need not even exist, and no transaction begins.
        struct Missing: Model {
            static let tableName = "missing"
            var id: Int64?
        }
        var empty: [Missing] = []
        try db.insert(contentsOf: &empty)
        try db.insert(contentsOf: [Missing]())
        var emptyTable: [TableMember] = []
        try db.insert(contentsOf: &emptyTable)
        #expect(empty.isEmpty && emptyTable.isEmpty)
        #expect(!db.isInTransaction)
        var one = [Missing(id: nil)]
        expectError(.sqlite) { try db.insert(contentsOf: &one) }
    }

    @Test func everyRowRunsTheCachedPreparedStatement() throws {
        let db = try database()
        var first = members(1)
        try db.insert(contentsOf: &first)
        let record = try db.recordSQL(for: Member.self, instance: first[0])
        let statement = try record.statement(.insertReturning, in: db)
        let runs = sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_RUN, 0)
        var batch = members(50, from: 1)
        try db.insert(contentsOf: &batch)
        #expect(try record.statement(.insertReturning, in: db) === statement)
        #expect(sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_RUN, 0) == runs + 50)
        #expect(batch.last?.id == 51)
    }
}

@Suite("Records: a batch insert is all or nothing, and its error names the element that failed")
struct BatchInsertAtomicityTests {
    @Test("A batch is all or nothing, and a failed batch names the element that failed", arguments: [false, true])
    func aConstraintFailureInTheMiddleInsertsNothing(tableModel: Bool) throws {
        let db = try database()
        try db.insert(Member(id: nil, email: "taken@example.com", joinedAt: Date(timeIntervalSince1970: 0)))
        let before = try storedRows("member", in: db)
        let error: DatabaseError?
        if tableModel {
            var batch = tableMembers(5)
            batch[3].email = "taken@example.com"
            let original = batch
            error = expectError(.uniqueViolation) { try db.insert(contentsOf: &batch) }
            #expect(batch == original)
        } else {
            var batch = members(5)
            batch[3].email = "taken@example.com"
            let original = batch
            error = expectError(.uniqueViolation) { try db.insert(contentsOf: &batch) }
            #expect(batch == original)
        }
        #expect(error?.elementIndex == 3)
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.sql?.hasPrefix("INSERT INTO \"member\"") == true)
        #expect(error.text.contains("element 3 of the batch"))
        #expect(try storedRows("member", in: db) == before)
        #expect(!db.isInTransaction)
        // The statements are free again: the next batch inserts.
        var next = members(2, from: 10)
        try db.insert(contentsOf: &next)
        #expect(next.map(\.id) == [2, 3])
    }

    @Test func aFailureOfARowWithAKeyRollsBackTheRowsReadBackBeforeIt() throws {
        let db = try database()
        var batch = members(4)
        batch[2].id = 1
        let original = batch
        let error = expectError(.uniqueViolation) { try db.insert(contentsOf: &batch) }
        #expect(error?.elementIndex == 2)
        #expect(error?.resultCode == .constraintPrimaryKey)
        #expect(batch == original)
        #expect(try count("member", in: db) == 0)
    }

    @Test("An ignored insert fails the batch", arguments: [false, true])
    func anIgnoredInsertThrowsAndRollsBackTheBatch(withKeys: Bool) throws {
        let db = try database()
        try db.insert(Subscriber(id: 100, email: "a@example.com"))
        var batch = [
            Subscriber(id: nil, email: "b@example.com"), Subscriber(id: nil, email: "a@example.com"),
            Subscriber(id: nil, email: "c@example.com"),
        ]
        if withKeys {
            for index in batch.indices { batch[index].id = Int64(index + 1) }
        }
        let original = batch
        let error = expectError(.recordNotInserted) { try db.insert(contentsOf: &batch) }
        #expect(error?.elementIndex == 1)
        #expect(batch == original)
        #expect(try db.fetchAll(Subscriber.self) == [Subscriber(id: 100, email: "a@example.com")])
    }

    @Test func insideATransactionTheBatchIsASavepointThatTheOuterTransactionCanRollBack() throws {
        let db = try database()
        struct Rollback: Error {}
        var batch = members(3)
        #expect(throws: Rollback.self) {
            try db.transaction { db in
                try db.insert(contentsOf: &batch)
                #expect(try count("member", in: db) == 3)
                throw Rollback()
            }
        }
        // The keys were filled in when the batch returned; the outer transaction then rolled the rows back.
        #expect(batch.map(\.id) == [1, 2, 3])
        #expect(try count("member", in: db) == 0)
    }

    @Test func aFailedBatchInsideATransactionRollsBackOnlyItsOwnRows() throws {
        let db = try database()
        var batch = members(3)
        batch[2].email = batch[0].email
        try db.transaction { db in
            try db.insert(Member(id: nil, email: "kept@example.com", joinedAt: Date(timeIntervalSince1970: 0)))
            let error = expectError(.uniqueViolation) { try db.insert(contentsOf: &batch) }
            #expect(error?.elementIndex == 2)
            #expect(db.isInTransaction)
            var other = members(1, from: 5)
            try db.insert(contentsOf: &other)
            #expect(other[0].id == 2)
        }
        #expect(batch.allSatisfy { $0.id == nil })
        #expect(
            try db.fetchAll(String.self, query: "SELECT email FROM member ORDER BY id") == [
                "kept@example.com", "m5@example.com",
            ])
    }

    @Test func aValueThatCannotBeStoredThrowsAnEncodingErrorAtItsElement() throws {
        let db = try database()
        var batch = [Counter(id: nil, count: 1), Counter(id: nil, count: 2), Counter(id: nil, count: .max)]
        let error = #expect(throws: EncodingError.self) { try db.insert(contentsOf: &batch) }
        guard case .invalidValue(_, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.intValue) == [2, nil])
        #expect(context.codingPath.map(\.stringValue) == ["Index 2", "count"])
        #expect(batch.allSatisfy { $0.id == nil })
        #expect(try count("counter", in: db) == 0)
    }

    @Test func aRowThatCannotBeReadBackThrowsADecodingErrorAtItsElement() throws {
        let db = try database()
        var batch = [Mismatch(id: 5, count: "kept as text"), Mismatch(id: nil, count: "12")]
        let error = #expect(throws: DecodingError.self) { try db.insert(contentsOf: &batch) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.first?.intValue == 1)
        #expect(context.codingPath.last?.stringValue == "count")
        #expect(batch[1].id == nil)
        #expect(try count("mismatch", in: db) == 0)
    }

    @Test func aNilTextKeyThrowsInvalidArgumentAtItsElement() throws {
        let db = try database()
        var batch = [Tagged(id: "a", name: "keyed"), Tagged(id: nil, name: "no key")]
        let error = expectError(.invalidArgument) { try db.insert(contentsOf: &batch) }
        #expect(error?.elementIndex == 1)
        #expect(error.text.contains("INTEGER PRIMARY KEY"))
        #expect(try count("tagged", in: db) == 0)
    }

    @Test func anErrorOfTheModelsOwnIsWrappedWithItsElement() throws {
        let db = try database()
        let batch = [Picky(id: "a", name: "a"), Picky(id: "b", name: "b"), Picky(id: "c", name: "")]
        let error = expectError(.invalidArgument) { try db.insert(contentsOf: batch) }
        #expect(error?.elementIndex == 2)
        #expect(error?.underlyingError is Picky.EmptyName)
        #expect(try count("tagged", in: db) == 0)
    }

    @Test func aSequenceNamesThePositionOfTheElementThatFailed() throws {
        let db = try database()
        let emails = ["a@example.com", "b@example.com", "a@example.com"]
        let error = expectError(.uniqueViolation) {
            try db.insert(contentsOf: emails.lazy.map { TableMember(id: nil, email: $0, joinedAt: Date(), score: nil) })
        }
        #expect(error?.elementIndex == 2)
        #expect(try count("member", in: db) == 0)
    }

    @Test func aBatchThatCannotBeginItsTransactionInsertsNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("locked.sqlite")
        let db = try Database(path: path)
        try db.execute(
            query: "CREATE TABLE member (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, joinedAt TEXT, score REAL)"
        )
        try db.execute(query: "PRAGMA busy_timeout = 0")
        let other = try Database(path: path)
        try other.beginTransaction(.immediate)
        defer { try? other.rollbackTransaction() }
        var batch = members(2)
        let error = expectError(.busy) { try db.insert(contentsOf: &batch) }
        #expect(error?.resultCode?.primary == .busy)
        #expect(error?.elementIndex == nil)
        #expect(batch.allSatisfy { $0.id == nil })
        #expect(!db.isInTransaction)
    }
}
