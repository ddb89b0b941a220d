import Foundation
import Strata
import Testing

struct Note: Model, Equatable {
    static let tableName = "note"
    var id: Int64?
    var createdAt: Date
    var content: String
}

struct Account: Model, Equatable {
    static let tableName = "account"
    var id: UUID
    var email: String
    var balance: Decimal
}

struct Setting: Model, Equatable {
    static let tableName = "setting"
    static let primaryKey = "key"
    var key: String
    var value: String?
}

/// The example schema's column names: snake_case.
struct SnakeNote: Model, Equatable {
    static let tableName = "note"
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
    var id: Int64?
    var createdAt: Date
    var content: String
    var updatedAt: Date?
}

@Suite("Records")
struct ModelTests {
    func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, content TEXT NOT NULL);
                CREATE TABLE account (id BLOB PRIMARY KEY, email TEXT NOT NULL UNIQUE, balance TEXT NOT NULL);
                CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT);
                """)
        return db
    }

    let date = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func insertFillsTheIdFromTheNewRowid() throws {
        let db = try database()
        var first = Note(id: nil, createdAt: date, content: "one")
        var second = Note(id: nil, createdAt: date, content: "two")
        try db.insert(&first)
        try db.insert(&second)
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(try db.find(Note.self, id: 2) == second)
        #expect(try db.fetchAll(Note.self) == [first, second])
    }

    @Test func insertWithAnExplicitIdKeepsIt() throws {
        let db = try database()
        var note = Note(id: 42, createdAt: date, content: "x")
        try db.insert(&note)
        #expect(note.id == 42)
        #expect(try db.find(Note.self, id: Int64(42))?.content == "x")
    }

    @Test func updateChangesTheRowAndThrowsWhenItIsMissing() throws {
        let db = try database()
        var note = Note(id: nil, createdAt: date, content: "draft")
        try db.insert(&note)
        note.content = "final"
        try db.update(note)
        #expect(try db.find(Note.self, id: note.id)?.content == "final")

        let ghost = Note(id: 999, createdAt: date, content: "ghost")
        let error = try #require(throws: DatabaseError.self) { try db.update(ghost) }
        #expect(error.code == .recordNotFound)
        #expect(try db.count(Note.self) == 1)
    }

    @Test func upsertTwiceInsertsThenUpdates() throws {
        let db = try database()
        var setting = Setting(key: "theme", value: "dark")
        try db.upsert(&setting)
        setting.value = "light"
        try db.upsert(&setting)
        #expect(try db.fetchAll(Setting.self) == [Setting(key: "theme", value: "light")])

        var note = Note(id: nil, createdAt: date, content: "a")
        try db.upsert(&note)
        #expect(note.id == 1)
        note.content = "b"
        try db.upsert(&note)
        #expect(try db.fetchAll(Note.self).map(\.content) == ["b"])
    }

    @Test func uuidKeysRoundTrip() throws {
        let db = try database()
        var account = Account(id: UUID(), email: "a@example.com", balance: Decimal(string: "10.25") ?? 0)
        try db.insert(&account)
        #expect(try db.find(Account.self, id: account.id) == account)
        #expect(try db.find(Account.self, id: UUID()) == nil)
        #expect(try db.delete(account))
        #expect(try db.find(Account.self, id: account.id) == nil)
        #expect(try db.delete(account) == false)
    }

    @Test func stringKeysAndDeleteById() throws {
        let db = try database()
        var setting = Setting(key: "a", value: nil)
        try db.insert(&setting)
        #expect(try db.find(Setting.self, id: "a") == setting)
        #expect(try db.delete(Setting.self, id: "a"))
        #expect(try db.count(Setting.self) == 0)
    }

    @Test func aConstraintViolationLeavesTheModelAndTableUnchanged() throws {
        let db = try database()
        var first = Account(id: UUID(), email: "same@example.com", balance: 1)
        try db.insert(&first)
        var second = Account(id: UUID(), email: "same@example.com", balance: 2)
        let before = second
        let error = try #require(throws: DatabaseError.self) { try db.insert(&second) }
        #expect(error.resultCode == .constraintUnique)
        #expect(second == before)
        #expect(try db.count(Account.self) == 1)
    }

    @Test func filteredFetchBindsParameters() throws {
        let db = try database()
        for text in ["apple", "banana", "avocado"] {
            var note = Note(id: nil, createdAt: date, content: text)
            try db.insert(&note)
        }
        let notes = try db.fetchAll(Note.self, where: "content LIKE :prefix", parameters: ["prefix": "a%"])
        #expect(notes.map(\.content) == ["apple", "avocado"])
        #expect(try db.fetchOne(Note.self, where: "content = :c", parameters: ["c": "banana"])?.id == 2)
        #expect(try db.count(Note.self, where: "content LIKE 'a%'") == 2)
    }

    @Test func snakeCaseModelsUseTheExampleSchema() throws {
        let db = try Database()
        try db.execute(
            query:
                "CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL, updated_at TEXT)"
        )
        var note = SnakeNote(id: nil, createdAt: date, content: "hi", updatedAt: nil)
        try db.insert(&note)
        #expect(note.id == 1)
        #expect(try db.fetchOne(String.self, query: "SELECT created_at FROM note") == "2023-11-14 22:13:20.000")
        note.updatedAt = date
        try db.update(note)
        #expect(try db.find(SnakeNote.self, id: 1) == note)
    }

    @Test func batchInsertsReuseOneStatement() throws {
        let db = try database()
        try db.transaction { db in
            for index in 0..<1000 {
                var note = Note(id: nil, createdAt: date, content: "n\(index)")
                try db.insert(&note)
                #expect(note.id == Int64(index + 1))
            }
        }
        #expect(try db.count(Note.self) == 1000)
    }

    /// A record type's statement keeps its encoder from one insert to the next: a change of the
    /// database's date strategy, a failed insert and a nil key must each still be honoured.
    @Test func theKeptEncoderFollowsEachInsert() throws {
        struct Event: Model, Equatable {
            static let tableName = "event"
            var id: Int64?
            var at: Date
            var label: String
        }
        let db = try Database()
        // `at` has no declared type, so SQLite keeps the storage class each strategy binds.
        try db.execute(query: "CREATE TABLE event (id INTEGER PRIMARY KEY, at, label TEXT NOT NULL)")
        var first = Event(id: nil, at: date, label: "text")
        try db.insert(&first)
        db.dateStrategy = .integer
        var second = Event(id: nil, at: date, label: "integer")
        try db.insert(&second)
        var duplicate = Event(id: second.id, at: date, label: "duplicate")
        #expect(throws: DatabaseError.self) { try db.insert(&duplicate) }
        #expect(duplicate.id == second.id)
        var third = Event(id: nil, at: date, label: "after the failure")
        try db.insert(&third)

        #expect([first.id, second.id, third.id] == [1, 2, 3])
        let stored = try db.fetchAll(String.self, query: "SELECT typeof(at) || ' ' || label FROM event ORDER BY id")
        #expect(stored == ["text text", "integer integer", "integer after the failure"])
        #expect(try db.fetchAll(Event.self).map(\.at) == [date, date, date])
    }

    @Test func identifiersAreQuotedSoTableNamesCannotInject() throws {
        struct Evil: Model {
            static let tableName = "note\" UNION SELECT 1, 2, 3 --"
            var id: Int64?
            var content: String
        }
        let db = try database()
        var evil = Evil(id: nil, content: "x")
        let error = try #require(throws: DatabaseError.self) { try db.insert(&evil) }
        #expect(error.message.contains("no such table"))
        let fetchError = try #require(throws: DatabaseError.self) { try db.fetchAll(Evil.self) }
        #expect(fetchError.message.contains("no such table"))
    }

    @Test func valuesAreStoredLiterally() throws {
        let db = try database()
        var note = Note(id: nil, createdAt: date, content: "'); DROP TABLE note; --")
        try db.insert(&note)
        #expect(try db.find(Note.self, id: note.id)?.content == "'); DROP TABLE note; --")
        #expect(try db.count(Note.self, where: "content = :c", parameters: ["c": "' OR 1=1 --"]) == 0)
    }

    @Test func aModelWithoutItsPrimaryKeyThrows() throws {
        struct NoKey: Model {
            static let tableName = "note"
            var content: String
        }
        let db = try database()
        var value = NoKey(content: "x")
        let error = try #require(throws: DatabaseError.self) { try db.insert(&value) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("primary key"))
    }

    @Test func aCustomEncodeThatOmitsNilValuesLosesNothing() throws {
        struct Sparse: Model, Equatable {
            static let tableName = "setting"
            static let primaryKey = "key"
            var key: String
            var value: String?
            enum CodingKeys: CodingKey { case key, value }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(key, forKey: .key)
                if let value { try container.encode(value, forKey: .value) }
            }
        }
        let db = try database()
        // The first insert has no value key, so the cached SQL starts without the column.
        try db.insert(Sparse(key: "a", value: nil))
        try db.insert(Sparse(key: "b", value: "x"))
        try db.insert(Sparse(key: "c", value: nil))
        #expect(
            try db.fetchAll(Sparse.self) == [
                Sparse(key: "a", value: nil), Sparse(key: "b", value: "x"), Sparse(key: "c", value: nil),
            ])
    }
}

@Suite("Records with mixed parameters")
struct ModelMixedParameterTests {
    @Test func filteredFetchesTakeMixedDictionaries() throws {
        let db = try Database()
        try db.execute(
            query: "CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, content TEXT NOT NULL)")
        for (index, text) in ["apple", "banana"].enumerated() {
            var note = Note(id: nil, createdAt: Date(timeIntervalSince1970: Double(index)), content: text)
            try db.insert(&note)
        }
        let since = Date(timeIntervalSince1970: 0.5)
        let notes = try db.fetchAll(
            Note.self, where: "content LIKE :q AND createdAt > :since", parameters: ["q": "b%", "since": since])
        #expect(notes.map(\.content) == ["banana"])
        #expect(
            try db.fetchOne(Note.self, where: "id = :id AND content = :c", parameters: ["id": 1, "c": "apple"])?.content
                == "apple")
        #expect(try db.count(Note.self, where: "id > :id AND content <> :c", parameters: ["id": 0, "c": "x"]) == 2)
    }
}
