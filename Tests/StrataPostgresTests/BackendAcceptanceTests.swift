import Foundation
import Strata
import StrataPostgres
import Testing

/// A model that exercises the mapping rules both backends share: snake_case columns, a date, a UUID, a nested
/// value and an array stored as JSON, an optional.
struct Entry: Model, Equatable {
    static let tableName = "entry"
    static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy { .convertToSnakeCase }

    struct Details: Codable, Equatable {
        var author: String
        var ratings: [Int]
    }

    var id: Int64?
    var createdAt: Date
    var externalID: UUID
    var details: Details
    var tags: [String]
    var archivedAt: Date?
}

/// The `entry` table of each backend.
enum EntrySchema {
    static let sqlite = """
        CREATE TABLE entry (
            id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, external_id BLOB NOT NULL, details TEXT NOT NULL,
            tags TEXT NOT NULL, archived_at TEXT)
        """

    static let postgres = """
        CREATE TABLE entry (
            id bigserial PRIMARY KEY, created_at timestamptz NOT NULL, external_id uuid NOT NULL,
            details jsonb NOT NULL, tags jsonb NOT NULL, archived_at timestamptz)
        """
}

@Suite("Acceptance: one round trip on SQLite and on PostgreSQL", .postgresServer)
struct BackendAcceptanceTests {
    /// The shared body, written once against `DatabaseWriter`: records, nested JSON, dates (whole milliseconds,
    /// which both keep) and UUIDs round-trip, and requests give the same rows.
    static func roundTrip(_ pool: some DatabaseWriter) async throws {
        func insert(_ entry: Entry) async throws -> Entry {
            try await pool.write { db in
                var entry = entry
                try await db.insert(&entry)
                return entry
            }
        }
        func find(id: Int64) async throws -> Entry? {
            try await pool.read { db in try await db.find(Entry.self, id: id) }
        }
        func fetchAll(_ request: QueryRequest<Entry>) async throws -> [Entry] {
            try await pool.read { db in try await db.fetchAll(request) }
        }
        let base = Date(timeIntervalSince1970: 1_790_000_000.125)
        var first = try await insert(
            Entry(
                id: nil, createdAt: base, externalID: UUID(), details: .init(author: "Ada", ratings: [5, 4]),
                tags: ["swift", "sql"], archivedAt: nil))
        let second = try await insert(
            Entry(
                id: nil, createdAt: base.addingTimeInterval(60), externalID: UUID(),
                details: .init(author: "Grace", ratings: []), tags: [], archivedAt: base))
        #expect(first.id == 1)
        #expect(second.id == 2)
        #expect(try await find(id: 1) == first)
        #expect(try await find(id: 2) == second)

        first.details.ratings.append(3)
        first.archivedAt = base.addingTimeInterval(120)
        try await pool.write { db in try await db.update(first) }
        #expect(try await find(id: 1) == first)

        let archived = try await fetchAll(
            Entry.filter(Column("archived_at") != nil).order(Column("created_at").desc))
        #expect(archived == [second, first])
        #expect(try await pool.read { db in try await db.fetchCount(Entry.filter(Column("created_at") > base)) } == 1)
        #expect(try await fetchAll(Entry.filter(Column("external_id") == second.externalID)) == [second])
    }

    @Test("SQLite")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-acceptance-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        try await pool.write { db in try db.execute(query: EntrySchema.sqlite) }
        try await Self.roundTrip(pool)
    }

    @Test("PostgreSQL")
    func postgres() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in try await db.execute(query: EntrySchema.postgres) }
            try await Self.roundTrip(pool)
        }
    }
}
