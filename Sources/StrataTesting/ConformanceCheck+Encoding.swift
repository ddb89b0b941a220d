import Foundation
import StrataCore
import Testing

/// The encoding check: StrataCore's one parameter encoder binds the same values, and fails with the same errors, on
/// every backend, whatever each backend's binds are.
enum EncodingChecks {
    /// A row of `conformance_note` whose score is unsigned: a `UInt64` above `Int64.max` fits no column.
    struct UnsignedNote: Model, Sendable {
        static let tableName = "conformance_note"
        var id: Int64?
        var content: String
        var mood: String
        var score: UInt64
    }

    /// A row of `conformance_note` whose `encode(to:)` asks for a nested container under `mood`.
    struct NestingNote: Model, Sendable {
        static let tableName = "conformance_note"
        enum CodingKeys: String, CodingKey {
            case id, content, mood, score
        }
        enum MoodKeys: String, CodingKey {
            case name
        }

        var id: Int64?
        var content: String
        var score: Int64

        init(id: Int64?, content: String, score: Int64) {
            self.id = id
            self.content = content
            self.score = score
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            content = try container.decode(String.self, forKey: .content)
            score = try container.decode(Int64.self, forKey: .score)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(content, forKey: .content)
            var mood = container.nestedContainer(keyedBy: MoodKeys.self, forKey: .mood)
            try mood.encode("happy", forKey: .name)
            try container.encode(score, forKey: .score)
        }
    }

    /// A value whose `encode(to:)` encodes nothing.
    struct Silent: Codable, Sendable {
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
    }

    /// A row of `conformance_note` whose mood encodes nothing.
    struct SilentNote: Model, Sendable {
        static let tableName = "conformance_note"
        var id: Int64?
        var content: String
        var mood: Silent
        var score: Int64
    }

    /// A record that a superclass encodes in part, through `superEncoder()`: its keys bind the same statement.
    class BaseNote: Encodable, @unchecked Sendable {
        enum CodingKeys: String, CodingKey {
            case content, mood
        }

        let content: String
        let mood: String

        init(content: String, mood: String) {
            self.content = content
            self.mood = mood
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(content, forKey: .content)
            try container.encode(mood, forKey: .mood)
        }
    }

    final class DerivedNote: BaseNote, Model, Decodable, @unchecked Sendable {
        static let tableName = "conformance_note"
        enum DerivedKeys: String, CodingKey {
            case id, score
        }

        var id: Int64?
        let score: Int64

        init(content: String, mood: String, score: Int64) {
            self.score = score
            super.init(content: content, mood: mood)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: DerivedKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            score = try container.decode(Int64.self, forKey: .score)
            let base = try decoder.container(keyedBy: CodingKeys.self)
            super.init(
                content: try base.decode(String.self, forKey: .content),
                mood: try base.decode(String.self, forKey: .mood))
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DerivedKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(score, forKey: .score)
            try super.encode(to: container.superEncoder())
        }
    }

    static func run(_ pool: some DatabaseWriter) async throws {
        // A value that no column can hold: an EncodingError naming the parameter, never the value.
        let tooLarge = await encodingError(in: pool, UnsignedNote(id: nil, content: "big", mood: "m", score: .max))
        #expect(tooLarge.map(codingPath)?.map(\.stringValue) == ["score"])
        #expect(tooLarge.map(message)?.contains(":score") == true)
        #expect(tooLarge.map(message)?.contains(String(UInt64.max)) == false)
        // Nor in the error's description, where `EncodingError` prints the value it holds.
        #expect(tooLarge.map { String(describing: $0) }?.contains(String(UInt64.max)) == false)
        #expect(tooLarge.map { String(reflecting: $0) }?.contains(String(UInt64.max)) == false)
        #expect(tooLarge.flatMap(underlying) != nil)

        // A nested container in a parameter: an EncodingError at the key's coding path.
        let nested = await encodingError(in: pool, NestingNote(id: nil, content: "nested", score: 1))
        #expect(nested.map(codingPath)?.map(\.stringValue) == ["mood"])
        #expect(nested.map(message)?.contains("nested container") == true)

        // A value that encodes nothing: an EncodingError at its key, never a NULL bound in its place.
        let silent = await encodingError(in: pool, SilentNote(id: nil, content: "silent", mood: Silent(), score: 1))
        #expect(silent.map(codingPath)?.map(\.stringValue) == ["mood"])
        #expect(silent.map(message)?.contains("encoded no value") == true)

        // None wrote a row.
        let count = try await pool.read { session in try await session.fetchCount(ConformanceNote.all()) }
        #expect(count == 0)

        // `superEncoder()` binds the same statement: the superclass's keys are the row's.
        let derived = DerivedNote(content: "derived", mood: "calm", score: 3)
        try await pool.write { session in try await session.insert(derived) }
        let stored = try await pool.read { session in
            try await session.fetchAll(ConformanceNote.filter(Column("content") == "derived"))
        }
        #expect(stored.map(\.mood) == ["calm"])
        #expect(stored.map(\.score) == [3])
    }

    /// The `EncodingError` that inserting `model` throws; nil, recorded as an issue, when it throws another error or
    /// none.
    static func encodingError<T: Model & Sendable>(in pool: some DatabaseWriter, _ model: T) async -> EncodingError? {
        do {
            try await pool.write { session in try await session.insert(model) }
            Issue.record("\(T.self): inserted without an error")
        } catch let error as EncodingError {
            return error
        } catch {
            Issue.record("\(T.self): \(error), not an EncodingError")
        }
        return nil
    }

    static func context(_ error: EncodingError) -> EncodingError.Context? {
        switch error {
        case .invalidValue(_, let context): context
        @unknown default: nil
        }
    }

    static func codingPath(_ error: EncodingError) -> [any CodingKey] { context(error)?.codingPath ?? [] }

    static func message(_ error: EncodingError) -> String { context(error)?.debugDescription ?? "" }

    static func underlying(_ error: EncodingError) -> DatabaseError? {
        context(error)?.underlyingError as? DatabaseError
    }
}
