import Foundation
import Strata
import Testing

/// A model whose `email` is unique with `ON CONFLICT IGNORE`: a second insert of one email is ignored.
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

/// A model whose `count` column has INTEGER affinity while the model holds a String: "12" is stored as 12 and
/// cannot be read back as a String.
private struct Mismatch: Model, Equatable {
    static let tableName = "mismatch"
    var id: Int64?
    var count: String
}

@Suite("Correctness: an insert reads back the row it wrote, or throws")
struct InsertReadBackTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE subscriber (id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT IGNORE);
                CREATE TABLE tagged (id TEXT PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE mismatch (id INTEGER PRIMARY KEY, count INTEGER);
                """)
        return db
    }

    @Test func anIgnoredInsertThrowsAndLeavesTheModelUnchanged() throws {
        let db = try database()
        var first = Subscriber(id: nil, email: "a@example.com")
        try db.insert(&first)
        #expect(first.id == 1)
        var other = Subscriber(id: nil, email: "b@example.com")
        try db.insert(&other)
        var duplicate = Subscriber(id: nil, email: "a@example.com")
        let error = expectError(.recordNotInserted) { try db.insert(&duplicate) }
        #expect(error.text.contains("inserted no row"))
        // Never the row of the previous insert (id 2, b@example.com).
        #expect(duplicate == Subscriber(id: nil, email: "a@example.com"))
        #expect(try db.count(Subscriber.self) == 2)
    }

    @Test func anIgnoredInsertWithAKeyThrows() throws {
        let db = try database()
        try db.insert(Subscriber(id: 1, email: "a@example.com"))
        expectError(.recordNotInserted) { try db.insert(Subscriber(id: 2, email: "a@example.com")) }
        #expect(try db.fetchAll(Subscriber.self) == [Subscriber(id: 1, email: "a@example.com")])
    }

    @Test func anInsertATriggerIgnoresThrows() throws {
        let db = try database()
        try db.execute(
            query: """
                CREATE TRIGGER no_spam BEFORE INSERT ON subscriber WHEN NEW.email LIKE '%spam%'
                BEGIN SELECT RAISE(IGNORE); END
                """)
        var kept = Subscriber(id: nil, email: "a@example.com")
        try db.insert(&kept)
        var spam = Subscriber(id: nil, email: "spam@example.com")
        expectError(.recordNotInserted) { try db.insert(&spam) }
        #expect(spam.id == nil)
        try db.transaction { db in
            expectError(.recordNotInserted) { try db.insert(&spam) }
            #expect(spam.id == nil)
        }
        #expect(try db.count(Subscriber.self) == 1)
    }

    @Test func anIgnoredUpsertWithANilKeyThrows() throws {
        let db = try database()
        var first = Subscriber(id: nil, email: "a@example.com")
        try db.upsert(&first)
        var duplicate = Subscriber(id: nil, email: "a@example.com")
        expectError(.recordNotInserted) { try db.upsert(&duplicate) }
        #expect(duplicate.id == nil)
    }

    @Test func theInsertedRowComesBackWithWhatATriggerStored() throws {
        let db = try database()
        try db.execute(
            query: """
                CREATE TRIGGER lower_email AFTER INSERT ON subscriber
                BEGIN UPDATE subscriber SET email = lower(NEW.email) WHERE id = NEW.id; END
                """)
        var subscriber = Subscriber(id: nil, email: "A@Example.com")
        try db.insert(&subscriber)
        #expect(subscriber.id == 1)
        #expect(try db.find(Subscriber.self, id: 1)?.email == "a@example.com")
    }

    @Test(arguments: [false, true])
    func aNilTextKeyThrowsAndInsertsNothing(inTransaction: Bool) throws {
        let db = try database()
        var tagged = Tagged(id: nil, name: "no key")
        if inTransaction {
            // The failure fails the transaction even when caught, as a failed statement does: nothing commits.
            expectError(.invalidArgument) {
                try db.transaction { db in
                    try db.insert(Tagged(id: "k", name: "lost"))
                    expectError(.invalidArgument) { try db.insert(&tagged) }
                }
            }
            #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM tagged") == 0)
        } else {
            let error = expectError(.invalidArgument) { try db.insert(&tagged) }
            #expect(error.text.contains("INTEGER PRIMARY KEY"))
        }
        #expect(tagged.id == nil)
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM tagged WHERE id IS NULL") == 0)
    }

    @Test func aNilUUIDKeyThrows() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE account (id BLOB PRIMARY KEY, email TEXT NOT NULL, balance TEXT)")
        struct Account: Model {
            static let tableName = "account"
            var id: UUID?
            var email: String
        }
        var account = Account(id: nil, email: "a@example.com")
        expectError(.invalidArgument) { try db.insert(&account) }
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM account") == 0)
    }

    @Test(arguments: [false, true])
    func anInsertWhoseRowCannotBeReadBackLeavesNoRow(inTransaction: Bool) throws {
        let db = try database()
        var model = Mismatch(id: nil, count: "12")
        if inTransaction {
            // The failure fails the transaction even when caught, as a failed statement does: it rolls back.
            var caught: (any Error)?
            #expect(throws: DecodingError.self) {
                try db.transaction { db in
                    do { try db.insert(&model) } catch { caught = error }
                }
            }
            #expect(caught is DecodingError)
            #expect(!db.isInTransaction)
        } else {
            #expect(throws: DecodingError.self) { try db.insert(&model) }
            #expect(!db.isInTransaction)
        }
        #expect(model.id == nil)
        #expect(try db.fetchOne(Int.self, query: "SELECT count(*) FROM mismatch") == 0)
    }

    @Test func manyNewModelsInOneTransactionEachGetTheirOwnRow() throws {
        let db = try database()
        var subscribers = (0..<50).map { Subscriber(id: nil, email: "\($0)@example.com") }
        try db.transaction { db in
            for index in subscribers.indices { try db.insert(&subscribers[index]) }
        }
        #expect(subscribers.map(\.id) == (1...50).map { Int64($0) })
        #expect(try db.fetchAll(Subscriber.self) == subscribers)
        // A model with a key after models without: the statement without RETURNING is used again.
        try db.insert(Subscriber(id: 100, email: "keyed@example.com"))
        var next = Subscriber(id: nil, email: "next@example.com")
        try db.insert(&next)
        #expect(next.id == 101)
    }
}
