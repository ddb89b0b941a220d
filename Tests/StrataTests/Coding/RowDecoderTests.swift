import Foundation
import Strata
import Testing

@Suite("RowDecoder")
struct RowDecoderTests {
    struct Person: Codable, Equatable {
        var name: String
        var age: Int
    }

    func decodeFirst<T: Decodable>(_ type: T.Type, _ sql: String, decoder: RowDecoder = RowDecoder()) throws -> T {
        let db = try Database()
        let statement = try db.prepare(query: sql)
        let row = try #require(try statement.next())
        return try decoder.decode(T.self, from: row)
    }

    @Test func missingColumnIsKeyNotFoundNamingTheColumn() throws {
        let error = try #require(throws: DecodingError.self) { try decodeFirst(Person.self, "SELECT 'Ada' AS name") }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "age")
        #expect(context.debugDescription.contains("\"age\""))
    }

    @Test func nullIntoNonOptionalIsValueNotFound() throws {
        let error = try #require(throws: DecodingError.self) {
            try decodeFirst(Person.self, "SELECT NULL AS name, 1 AS age")
        }
        guard case .valueNotFound(_, let context) = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["name"])
        #expect(context.debugDescription == "could not decode String from NULL - column \"name\" (index 0)")
    }

    @Test func typeMismatchNamesStoredAndExpectedTypes() throws {
        let error = try #require(throws: DecodingError.self) {
            try decodeFirst(Person.self, "SELECT 'Ada' AS name, 'old' AS age")
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(context.debugDescription.contains("Int"))
        #expect(context.debugDescription.contains("TEXT"))
        #expect(context.debugDescription.contains("\"age\""))
    }

    @Test func outOfRangeIntegerIsDataCorrupted() throws {
        struct Small: Decodable { var v: Int8 }
        let error = try #require(throws: DecodingError.self) { try decodeFirst(Small.self, "SELECT 300 AS v") }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.debugDescription.contains("Int8"))
    }

    @Test func malformedNestedJSONIsDataCorruptedNamingTheColumn() throws {
        struct Holder: Decodable { var address: Address }
        let error = try #require(throws: DecodingError.self) {
            try decodeFirst(Holder.self, "SELECT '{not json' AS address")
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.debugDescription.contains("\"address\""))
        #expect(context.codingPath.map(\.stringValue) == ["address"])
    }

    @Test func unknownEnumRawValueThrows() throws {
        struct Holder: Decodable { var mood: Mood }
        #expect(throws: DecodingError.self) { try decodeFirst(Holder.self, "SELECT 'angry' AS mood") }
    }

    @Test func optionalsReadNullAndMissingColumnsAsNil() throws {
        struct Partial: Decodable, Equatable { var name: String; var age: Int?; var nickname: String? }
        let value = try decodeFirst(Partial.self, "SELECT 'Ada' AS name, NULL AS age")
        #expect(value == Partial(name: "Ada", age: nil, nickname: nil))
    }

    @Test func snakeCaseKeyStrategyFindsColumns() throws {
        struct Note: Decodable { var createdAt: Date; var noteID: Int }
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let note = try decodeFirst(
            Note.self, "SELECT '2024-01-02 03:04:05.000' AS created_at, 5 AS note_id", decoder: decoder)
        #expect(note.noteID == 5)
        #expect(note.createdAt == Date(timeIntervalSince1970: 1_704_164_645))
    }

    @Test func customKeyStrategy() throws {
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .custom { "p_" + $0 }
        let person = try decodeFirst(Person.self, "SELECT 'Ada' AS p_name, 36 AS p_age", decoder: decoder)
        #expect(person == Person(name: "Ada", age: 36))
    }

    @Test func scalarsDecodeFromAOneColumnRow() throws {
        #expect(try decodeFirst(String.self, "SELECT 'x'") == "x")
        #expect(try decodeFirst(Mood.self, "SELECT 'happy'") == .happy)
        #expect(try decodeFirst(Int?.self, "SELECT NULL") == nil)
        #expect(throws: DecodingError.self) { try decodeFirst(Mood.self, "SELECT 'happy', 1") }
    }

    @Test func aRowDecodesIntoADictionary() throws {
        let values = try decodeFirst([String: Int].self, "SELECT 1 AS a, 2 AS b")
        #expect(values == ["a": 1, "b": 2])
    }

    @Test func keysAskedInAnotherOrderStillFindTheirColumns() throws {
        struct Forward: Decodable { var a: Int; var b: Int }
        struct Backward: Decodable {
            var a: Int
            var b: Int
            enum CodingKeys: CodingKey { case a, b }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                b = try container.decode(Int.self, forKey: .b)
                a = try container.decode(Int.self, forKey: .a)
            }
        }
        let db = try Database()
        let statement = try db.prepare(query: "SELECT 1 AS a, 2 AS b")
        let row = try #require(try statement.next())
        let decoder = RowDecoder()
        let forward = try decoder.decode(Forward.self, from: row)
        let backward = try decoder.decode(Backward.self, from: row)
        #expect((forward.a, forward.b) == (1, 2))
        #expect((backward.a, backward.b) == (1, 2))
    }

    /// A fetch reuses one keyed container row after row; a value that asks for containers of
    /// several key types, or a subclass that decodes its superclass, must still read every row right.
    @Test func rowsAskingForSeveralKeyTypesEachReadTheirColumns() throws {
        struct Split: Decodable, Equatable {
            var a: Int
            var b: String
            enum First: CodingKey { case a }
            enum Second: CodingKey { case b }
            init(a: Int, b: String) {
                self.a = a
                self.b = b
            }
            init(from decoder: any Decoder) throws {
                a = try decoder.container(keyedBy: First.self).decode(Int.self, forKey: .a)
                b = try decoder.container(keyedBy: Second.self).decode(String.self, forKey: .b)
            }
        }
        class Base: Decodable {
            let a: Int
        }
        final class Derived: Base, @unchecked Sendable {
            let b: String
            enum CodingKeys: CodingKey { case b }
            required init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                b = try container.decode(String.self, forKey: .b)
                try super.init(from: container.superDecoder())
            }
        }
        let db = try Database()
        try db.execute(query: "CREATE TABLE t (a INTEGER, b TEXT)")
        for index in 1...5 {
            try db.execute(query: "INSERT INTO t VALUES (:a, :b)", parameters: ["a": index, "b": "row \(index)"])
        }
        let query = "SELECT a, b FROM t ORDER BY a"

        let expected = (1...5).map { Split(a: $0, b: "row \($0)") }
        #expect(try db.fetchAll(Split.self, query: query) == expected)
        let derived = try db.fetchAll(Derived.self, query: query)
        #expect(derived.map(\.a) == Array(1...5))
        #expect(derived.map(\.b) == expected.map(\.b))
        // One decoder, alternating between two types on one statement.
        var renaming = RowDecoder()
        renaming.keyDecodingStrategy = .custom { $0 == "name" ? "b" : "a" }
        let statement = try db.prepare(query: query)
        var alternating: [String] = []
        while let row = try statement.next() {
            let split = try RowDecoder().decode(Split.self, from: row)
            let person = try renaming.decode(Person.self, from: row)
            alternating.append("\(split.a) \(split.b) \(person.name) \(person.age)")
        }
        #expect(alternating == (1...5).map { "\($0) row \($0) row \($0) \($0)" })
    }

    @Test func aStaleRowThrows() throws {
        let db = try Database()
        let statement = try db.prepare(query: "SELECT 1 AS name, 2 AS age UNION ALL SELECT 3, 4")
        let first = try #require(try statement.next())
        _ = try statement.next()
        let error = try #require(throws: DatabaseError.self) { try RowDecoder().decode(Person.self, from: first) }
        #expect(error.code == .staleRow)
    }
}
