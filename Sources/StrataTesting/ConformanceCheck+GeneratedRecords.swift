import StrataCore
import Testing

/// The generated-records check: a ``GeneratedRecord`` (what `@Table` writes) is read and bound by its generated
/// code on every backend, through every call that reads or writes a record, with the values and errors of its
/// `Codable` conformance.
enum GeneratedRecordChecks {
    /// A ``GeneratedRecord`` written by hand as `@Table` writes one, whose generated reader and writer tell
    /// themselves apart from its `Codable` conformance: `reader` says which one read the row, the `writer` column which
    /// one bound the parameters. Everything else reads and writes the same way on both paths.
    struct Probe: GeneratedRecord, Equatable, Sendable {
        static let tableName = "conformance_probe"
        static var recordKeys: [String] { ["id", "name", "score", "ratio", "flag", "small", "note", "writer"] }

        var id: Int64?
        var name: String
        var score: Int64
        var ratio: Double
        var flag: Bool
        var small: Int32
        var note: String?
        /// "generated" after `init(row:)`, "codable" after `init(from:)`, "new" otherwise; not compared.
        var reader = "new"

        enum CodingKeys: String, CodingKey {
            case id, name, score, ratio, flag, small, note, writer
        }

        init(name: String, score: Int64, note: String? = nil) {
            self.name = name
            self.score = score
            ratio = Double(score) / 4
            flag = score.isMultiple(of: 2)
            small = Int32(truncatingIfNeeded: score)
            self.note = note
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            score = try container.decode(Int64.self, forKey: .score)
            ratio = try container.decode(Double.self, forKey: .ratio)
            flag = try container.decode(Bool.self, forKey: .flag)
            small = try container.decode(Int32.self, forKey: .small)
            note = try container.decodeIfPresent(String.self, forKey: .note)
            reader = "codable"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(score, forKey: .score)
            try container.encode(ratio, forKey: .ratio)
            try container.encode(flag, forKey: .flag)
            try container.encode(small, forKey: .small)
            try container.encodeIfPresent(note, forKey: .note)
            try container.encode("codable", forKey: .writer)
        }

        init(row: some RecordRow) throws {
            let value0 = try row.decode(Int64?.self, 0)
            let value1 = try row.decode(String.self, 1)
            let value2 = try row.decode(Int64.self, 2)
            let value3 = try row.decode(Double.self, 3)
            let value4 = try row.decode(Bool.self, 4)
            let value5 = try row.decode(Int32.self, 5)
            let value6 = try row.decode(String?.self, 6)
            (id, name, score, ratio, flag, small, note) = (value0, value1, value2, value3, value4, value5, value6)
            reader = "generated"
        }

        func encode(to parameters: some RecordParameters) throws {
            try parameters.encode(id, 0)
            try parameters.encode(name, 1)
            try parameters.encode(score, 2)
            try parameters.encode(ratio, 3)
            try parameters.encode(flag, 4)
            try parameters.encode(small, 5)
            try parameters.encode(note, 6)
            try parameters.encode("generated", 7)
        }

        static func == (lhs: Probe, rhs: Probe) -> Bool {
            (lhs.id, lhs.name, lhs.score, lhs.ratio) == (rhs.id, rhs.name, rhs.score, rhs.ratio)
                && (lhs.flag, lhs.small, lhs.note) == (rhs.flag, rhs.small, rhs.note)
        }
    }

    /// The same columns for a type with no generated code, to compare errors with.
    struct Twin: Decodable, Sendable {
        var id: Int64?
        var name: String
        var score: Int64
        var small: Int32
        var note: String?
    }

    static func run<Backend: ConformanceBackend>(_ pool: Backend.Writer, of backend: Backend) async throws {
        try await pool.writeWithoutTransaction { session in
            try await session.execute(
                """
                CREATE TABLE conformance_probe (
                    \(raw: backend.assignedPrimaryKey("id")),
                    name TEXT NOT NULL,
                    score BIGINT NOT NULL,
                    ratio DOUBLE PRECISION NOT NULL,
                    flag BOOLEAN NOT NULL,
                    small INTEGER,
                    note TEXT,
                    writer TEXT NOT NULL)
                """)
        }

        // Writes: the generated writer binds every write; a nil key is filled in from the row written.
        var ada = Probe(name: "ada", score: 10, note: "first")
        var grace = Probe(name: "grace", score: 7)
        try await pool.write { session in
            try await session.insert(&ada)
            try await session.insert(&grace)
        }
        let adaID = try #require(ada.id)
        #expect(grace.id != nil && grace.id != adaID)
        #expect(try await writers(in: pool) == ["generated"])
        ada.score = 12
        ada.note = nil
        try await pool.write { session in try await session.update(ada) }
        var batch = [Probe(name: "one", score: 1), Probe(name: "two", score: 2)]
        try await pool.write { session in try await session.insert(contentsOf: &batch) }
        #expect(batch.allSatisfy { $0.id != nil })
        #expect(try await writers(in: pool) == ["generated"])

        // Reads: every call that reads a record reads it through the generated reader, with the values written.
        let found = try await pool.read { session in try await session.find(Probe.self, id: adaID) }
        #expect(found == ada)
        #expect(found?.reader == "generated")
        let all = try await pool.read { session in try await session.fetchAll(Probe.self) }
        #expect(all == [ada, grace] + batch)
        #expect(Set(all.map(\.reader)) == ["generated"])
        let requested = try await pool.read { session in
            try await session.fetchAll(Probe.filter(Column("score") > 5).order(Column("score").desc))
        }
        #expect(requested == [ada, grace])
        #expect(Set(requested.map(\.reader)) == ["generated"])
        let bySQL = try await pool.read { session in
            try await session.fetchOne(Probe.self, "SELECT * FROM conformance_probe WHERE name = \("grace")")
        }
        #expect(bySQL == grace)
        #expect(bySQL?.reader == "generated")
        // Columns in another order, and one more: each key still reads its own column.
        let reordered = try await pool.read { session in
            try await session.fetchOne(
                Probe.self,
                """
                SELECT writer, note, 1 AS extra, small, flag, ratio, score, name, id
                FROM conformance_probe WHERE name = \("ada")
                """)
        }
        #expect(reordered == ada)

        // Errors: those of the `Codable` path, for the same rows.
        let missing = "SELECT id, name FROM conformance_probe"
        await expectSameError(in: pool, missing, isKeyNotFound)
        let null = "SELECT id, name, score, ratio, flag, NULL AS small, note, writer FROM conformance_probe"
        await expectSameError(in: pool, null, isValueNotFound)
        let outOfRange =
            "SELECT id, name, score, ratio, flag, 3000000000 AS small, note, writer FROM conformance_probe"
        await expectSameError(in: pool, outOfRange, { _ in true })
    }

    /// The distinct `writer` values of the table: which path bound the rows.
    static func writers(in pool: some DatabaseReader) async throws -> Set<String> {
        Set(
            try await pool.read { session in
                try await session.fetchAll(String.self, "SELECT writer FROM conformance_probe")
            })
    }

    /// Checks that reading `sql` as ``Probe`` (generated) and as ``Twin`` (`Codable`) both throw a `DecodingError`
    /// of the kind `kind` accepts, naming the same column.
    static func expectSameError(
        in pool: some DatabaseWriter, _ sql: String, _ kind: (DecodingError) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let generated = await DecodingChecks.decodingError(in: pool, Probe.self, SQL(sql: sql))
        let codable = await DecodingChecks.decodingError(in: pool, Twin.self, SQL(sql: sql))
        #expect(generated.map(kind) == true, "\(sql): \(String(describing: generated))", sourceLocation: sourceLocation)
        #expect(codable.map(kind) == true, "\(sql): \(String(describing: codable))", sourceLocation: sourceLocation)
        #expect(
            generated.flatMap(DecodingChecks.underlying)?.column == codable.flatMap(DecodingChecks.underlying)?.column,
            sourceLocation: sourceLocation)
        #expect(
            generated.map(codingPath) == codable.map(codingPath), "\(sql): the coding paths differ",
            sourceLocation: sourceLocation)
    }

    static func codingPath(_ error: DecodingError) -> [String] {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.codingPath.map(\.stringValue)
        @unknown default: []
        }
    }

    static func isValueNotFound(_ error: DecodingError) -> Bool { DecodingChecks.isValueNotFound(error) }
    static func isKeyNotFound(_ error: DecodingError) -> Bool { DecodingChecks.isKeyNotFound(error) }
}
