import Foundation
import StrataRecord
import Testing

@testable import Strata

/// The `Codable` conformance `@Table` declares (`CodingKeys`, `init(from:)`, `encode(to:)`) against the one Swift
/// synthesizes for a twin declared without `@Table`: the same calls on the coder in the same order, the same JSON,
/// the same rows through Strata.
@Suite("Generated records: the Codable conformance @Table declares")
struct GeneratedCodableTests {
    @Test("init(from:) and encode(to:) make the calls of synthesized Codable, in the same order, for any input")
    func sameCalls() throws {
        try compare((0..<12).map { (CShapes(seed: $0), CShapesTwin(seed: $0)) })
        try compare([
            (CKeyed(id: 1, title: "t", count: 2, ratio: 0.5), CKeyedTwin(id: 1, title: "t", count: 2, ratio: 0.5)),
            (CKeyed(id: nil, title: "", count: -1, ratio: 0), CKeyedTwin(id: nil, title: "", count: -1, ratio: 0)),
        ])
        try compare([(CStringValue(id: 4, displayName: "Ada"), CStringValueTwin(id: 4, displayName: "Ada"))])
        try compare([
            (CGeneric<Int?>(id: 1, value: nil, maybe: nil), CGenericTwin<Int?>(id: 1, value: nil, maybe: nil)),
            (CGeneric(id: 2, value: 3, maybe: .some(nil)), CGenericTwin(id: 2, value: 3, maybe: .some(nil))),
            (CGeneric(id: 3, value: 4, maybe: 5), CGenericTwin(id: 3, value: 4, maybe: 5)),
        ])
        try compare([
            (CGeneric<GMood>(id: 1, value: .sad, maybe: .happy), CGenericTwin<GMood>(id: 1, value: .sad, maybe: .happy))
        ])
        try compare([
            (
                CConditional(id: 1, active: "a", tail: 2, keyed: "k2"),
                CConditionalTwin(id: 1, active: "a", tail: 2, keyed: "k2")
            ),
            (
                CConditional(id: nil, active: "", tail: 0, keyed: ""),
                CConditionalTwin(id: nil, active: "", tail: 0, keyed: "")
            ),
        ])
        try compare([
            (
                CConditionalImplicit(id: 1, note: "n", platformNote: "p"),
                CConditionalImplicitTwin(id: 1, note: "n", platformNote: "p")
            )
        ])
        try compare([
            (COuter<String>.Inner(id: 1, u: "u", maybe: nil), COuter<String>.InnerTwin(id: 1, u: "u", maybe: nil))
        ])
    }

    /// Compares the coding of `@Table` values and their twins: the encoding of each pair, then the decoding of their
    /// JSON and of inputs made from it (each key left out, set to null, set to a value of another type, an unknown
    /// key added), through the recorder and through `JSONDecoder`.
    private func compare<Generated: Codable, Twin: Codable>(
        _ pairs: [(Generated, Twin)], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var inputs: [String] = ["{}"]
        for (value, twin) in pairs {
            let json = try CodingRecorder.json(twin)
            inputs.append(json)
            #expect(
                CodingRecorder.encode(value) == CodingRecorder.encode(twin), "encode(to:) of \(json)",
                sourceLocation: sourceLocation)
            #expect(try CodingRecorder.json(value) == json, sourceLocation: sourceLocation)

            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                sourceLocation: sourceLocation)
            for key in object.keys.sorted() {
                var changed = object
                changed[key] = nil
                inputs.append(try Self.text(changed))
                changed[key] = NSNull()
                inputs.append(try Self.text(changed))
                changed[key] = object[key] is String ? 12 : "x"
                inputs.append(try Self.text(changed))
            }
            var extra = object
            extra["unknown"] = 1
            inputs.append(try Self.text(extra))
        }
        for input in inputs {
            let left = CodingRecorder.decode(Generated.self, from: input)
            let right = CodingRecorder.decode(Twin.self, from: input)
            #expect(left.calls == right.calls, "init(from:) of \(input)", sourceLocation: sourceLocation)
            #expect(left.outcome == right.outcome, "init(from:) of \(input)", sourceLocation: sourceLocation)
            // And through JSONDecoder, errors included.
            let viaJSON = outcome {
                try CodingRecorder.json(JSONDecoder().decode(Generated.self, from: Data(input.utf8)))
            }
            let twinViaJSON = outcome {
                try CodingRecorder.json(JSONDecoder().decode(Twin.self, from: Data(input.utf8)))
            }
            expectSameOutcome(viaJSON, twinViaJSON, "JSONDecoder of \(input)", sourceLocation: sourceLocation)
        }
    }

    private static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    // MARK: Through Strata

    @Test("Strata stores and reads a @Table type as it does its twin without @Table, both ways")
    func sameRows() throws {
        try compareRows(
            (0..<12).map(CShapesTwin.init(seed:)), as: CShapes.self, createTable: CShapes.createTable("c_shapes"))
        try compareRows(
            [CKeyedTwin(id: nil, title: "t", count: 2, ratio: 0.5), CKeyedTwin(id: 9, title: "", count: -1, ratio: 0)],
            as: CKeyed.self, createTable: CKeyed.createTable)
        try compareRows(
            [CStringValueTwin(id: nil, displayName: "Ada")], as: CStringValue.self,
            createTable: CStringValue.createTable)
        try compareRows(
            [CGenericTwin<Int?>(id: nil, value: 3, maybe: .some(nil)), CGenericTwin(id: nil, value: 4, maybe: 5)],
            as: CGeneric<Int?>.self, createTable: CGeneric<Int?>.createTable)
        try compareRows(
            [CConditionalTwin(id: nil, active: "a", tail: 2, keyed: "k2")], as: CConditional.self,
            createTable: CConditional.createTable)
        try compareRows(
            [
                CConditionalImplicitTwin(id: nil, note: "n", platformNote: "p"),
                CConditionalImplicitTwin(id: nil, note: nil, platformNote: "none"),
            ], as: CConditionalImplicit.self,
            createTable: CConditionalImplicit.createTable)
    }

    /// Inserts `samples` through the twin's synthesized conformance, and the same values as `Generated` through its
    /// generated writer and through its `Codable` conformance, each in a database of its own; then compares the
    /// stored rows, and the values read back each way.
    private func compareRows<Twin: Model, Generated: GeneratedRecord & Equatable>(
        _ samples: [Twin], as generated: Generated.Type, createTable: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let twinDB = try makeDatabase()
        let generatedDB = try makeDatabase()
        let codableDB = try makeDatabase()
        for db in [twinDB, generatedDB, codableDB] { try db.execute(query: createTable) }
        for sample in samples {
            // Through JSON, as the @Table values are, so that both hold what JSON keeps (`.some(nil)` is nil).
            var twin = try JSONDecoder().decode(Twin.self, from: JSONEncoder().encode(sample))
            try twinDB.insert(&twin)
            var value = try JSONDecoder().decode(Generated.self, from: JSONEncoder().encode(sample))
            try generatedDB.insert(&value)
            var codable = CodableTwin(try JSONDecoder().decode(Generated.self, from: JSONEncoder().encode(sample)))
            try codableDB.insert(&codable)
            #expect(try CodingRecorder.json(value) == CodingRecorder.json(twin), sourceLocation: sourceLocation)
            #expect(try CodingRecorder.json(codable.base) == CodingRecorder.json(twin), sourceLocation: sourceLocation)
        }
        let table = Twin.tableName
        let stored = try storedRows(twinDB, table)
        #expect(stored.count == samples.count, sourceLocation: sourceLocation)
        expectSameStoredRows(
            try storedRows(generatedDB, table), stored, "generated writer", sourceLocation: sourceLocation)
        expectSameStoredRows(
            try storedRows(codableDB, table), stored, "Codable conformance", sourceLocation: sourceLocation)

        let twins = try twinDB.fetchAll(Twin.self).map { try CodingRecorder.json($0) }
        #expect(
            try generatedDB.fetchAll(Generated.self).map { try CodingRecorder.json($0) } == twins,
            sourceLocation: sourceLocation)
        #expect(
            try generatedDB.fetchAll(CodableTwin<Generated>.self).map { try CodingRecorder.json($0.base) } == twins,
            sourceLocation: sourceLocation)
    }

    @Test("A stored property inside #if is written and read (it was stored as NULL and never read)")
    func conditionalProperty() throws {
        let db = try makeDatabase()
        try db.execute(query: CConditionalImplicit.createTable)
        var value = CConditionalImplicit(id: nil, note: "kept", platformNote: "also kept")
        try db.insert(&value)
        let rows = try storedRows(db, "c_conditional_implicit")
        #expect(rows == [["id": .integer(1), "note": .text("kept"), "platformNote": .text("also kept")]])
        #expect(try db.find(CConditionalImplicit.self, id: 1) == value)
        #expect(CConditionalImplicit.recordKeys == ["id", "note", "platformNote"])
        #expect(CConditional.recordKeys == ["id", "active_column", "tail", "keyed"])
    }

    @Test("The keys come from CodingKeys' stringValue, however CodingKeys computes it")
    func stringValueKeys() throws {
        #expect(CStringValue.recordKeys == ["id", "display_name"])
        #expect(CStringValue.columns.displayName.name == "display_name")
        let db = try makeDatabase()
        try db.execute(query: CStringValue.createTable)
        var value = CStringValue(id: nil, displayName: "Ada")
        try db.insert(&value)
        #expect(try storedRows(db, "c_string_value") == [["id": .integer(1), "display_name": .text("Ada")]])
        #expect(try db.fetchAll(CStringValue.self) == [value])
    }

    @Test("Columns are read in the order of CodingKeys, so the first bad column is the one Codable reports")
    func codingKeysOrder() throws {
        #expect(CKeyed.recordKeys == ["ratio", "the_count", "version", "title_text", "id"])
        let db = try makeDatabase()
        let query = "SELECT 1 AS id, 't' AS title_text, 'not a count' AS the_count, 3 AS version, 'x' AS ratio"
        let generated = outcome { try db.fetchAll(CKeyed.self, query: query) }
        let twin = outcome { try db.fetchAll(CKeyedTwin.self, query: query) }
        expectSameOutcome(generated.map { $0.map(\.id) }, twin.map { $0.map(\.id) }, "two bad columns")
        #expect(ErrorShape(try #require(generated.failure)).codingPath == ["ratio"])
    }
}
