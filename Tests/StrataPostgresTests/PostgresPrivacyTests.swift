import Foundation
import Logging
import Strata
import StrataPostgres
import Testing

/// A log handler that keeps every message and its metadata as text.
private final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    /// The recorded lines, shared by the copies of the handler that `Logger` makes.
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(lines: Lines) { self.lines = lines }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(merged)")
    }
}

@Suite("PostgreSQL errors and logs keep values private", .postgresServer)
struct PostgresPrivacyTests {
    @Test("the description leaves out the DETAIL line, which quotes row values; detail keeps it")
    func detailNotInDescription() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE u (email text UNIQUE, n int NOT NULL CHECK (n > 0))")
                try await db.execute(
                    query: "INSERT INTO u VALUES (:email, 1)", parameters: ["email": "ada.secret@example.com"])
            }
            let unique = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(
                        query: "INSERT INTO u VALUES (:email, 1)", parameters: ["email": "ada.secret@example.com"])
                }
            }
            #expect(unique?.detail == "Key (email)=(ada.secret@example.com) already exists.")
            #expect(
                unique?.description
                    == "PostgreSQL error 23505: duplicate key value violates unique constraint \"u_email_key\" - "
                    + "while executing `INSERT INTO u VALUES ($1, 1)`")
            let check = await #expect(throws: PostgresError.self) {
                try await pool.write { db in
                    try await db.execute(
                        query: "INSERT INTO u VALUES (:email, -1)", parameters: ["email": "bob.secret@example.com"])
                }
            }
            #expect(check?.detail?.contains("bob.secret@example.com") == true)
            #expect(check?.description.contains("bob.secret") == false, "\(String(describing: check))")
        }
    }

    @Test("a data exception's message quotes the value: the description shows it as \"…\", message keeps it")
    func dataExceptionValuesHidden() async throws {
        try await PostgresTestServer.withPool(connections: 1) { pool in
            try await pool.write { db in try await db.execute(query: "CREATE TYPE mood AS ENUM ('happy')") }
            let cases: [(sql: String, value: any DatabaseValueConvertible, state: String, text: String)] = [
                ("SELECT CAST(:v AS integer)", "12secret", "22P02", "invalid input syntax for type integer: \"…\""),
                ("SELECT CAST(:v AS integer)", "99999999999", "22003", "value \"…\" is out of range for type integer"),
                ("SELECT CAST(:v AS mood)", "secret-mood", "22P02", "invalid input value for enum mood: \"…\""),
                (
                    "SELECT convert_from(:v, 'UTF8')", Data([0x73, 0xff, 0xfe]), "22021",
                    "invalid byte sequence for encoding \"…\": 0x…"
                ),
            ]
            for (sql, value, state, text) in cases {
                let error = await #expect(throws: PostgresError.self) {
                    try await pool.read { db in
                        _ = try await db.fetchAll(String.self, query: sql, parameters: ["v": value])
                    }
                }
                #expect(error?.sqlState == state)
                #expect(
                    error?.description.hasPrefix("PostgreSQL error \(state): \(text) - while") == true,
                    "\(String(describing: error))")
                for secret in ["12secret", "99999999999", "secret-mood", "0xff"] {
                    #expect(error?.description.contains(secret) == false)
                }
            }
            let kept = await #expect(throws: PostgresError.self) {
                try await pool.read { db in
                    _ = try await db.fetchAll(query: "SELECT CAST(:v AS integer)", parameters: ["v": "12secret"])
                }
            }
            #expect(kept?.message == "invalid input syntax for type integer: \"12secret\"")
        }
    }

    @Test("a Date out of timestamptz's range fails without the date in the error")
    func dateOutOfRangeHidden() async throws {
        struct Moment: Encodable {
            var at: Date
        }
        let date = Date(timeIntervalSince1970: 1e16)
        try await PostgresTestServer.withPool(connections: 1) { pool in
            let errors: [any Error] = [
                await #expect(throws: (any Error).self) {
                    try await pool.read { db in
                        _ = try await db.fetchOne(Date.self, query: "SELECT :at::timestamptz", parameters: ["at": date])
                    }
                },
                await #expect(throws: (any Error).self) {
                    try await pool.read { db in
                        _ = try await db.fetchOne(
                            Date.self, query: "SELECT :at::timestamptz", parameters: Moment(at: date))
                    }
                },
            ].compactMap { $0 }
            #expect(errors.count == 2)
            for error in errors {
                let description = String(describing: error)
                #expect(description.contains("could not store a Date as a timestamptz: out of range"), "\(description)")
                #expect(!description.contains("\(date)"), "\(description)")
            }
        }
    }

    @Test("a failing migration's message leaves out the values PostgreSQL quotes")
    func migrationErrorHidesValues() async throws {
        let folder = try MigrationFolder(["0001_bad_cast.sql": "SELECT CAST('12secret' AS integer);"])
        try await PostgresTestServer.withPool { pool in
            let error = await #expect(throws: DatabaseError.self) { try await folder.migrator().migrate(pool) }
            #expect(
                error?.message
                    == "migration 1 \"bad_cast\" (0001_bad_cast.sql) failed: PostgreSQL error 22P02: invalid input "
                    + "syntax for type integer: \"…\"")
        }
    }

    @Test("a trace-level logger sees no bound value, row value or DETAIL line")
    func loggerSeesNoValues() async throws {
        let lines = RecordingLogHandler.Lines()
        var logger = Logger(label: "strata.test", factory: { _ in RecordingLogHandler(lines: lines) })
        logger.logLevel = .trace
        let secret = "s3cr3t-value"
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 1, logger: logger)
        // A table of its own, not a temporary one: the pool resets a connection that created one.
        let table = "secrets_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await pool.write { db in
            try await db.execute(query: "CREATE TABLE \(table) (s text UNIQUE)")
            try await db.execute(query: "INSERT INTO \(table) VALUES (:s)", parameters: ["s": secret])
        }
        await #expect(throws: PostgresError.self) {
            try await pool.write { db in
                try await db.execute(query: "INSERT INTO \(table) VALUES (:s)", parameters: ["s": secret])
            }
        }
        let read = try await pool.read { db in try await db.fetchAll(String.self, query: "SELECT s FROM \(table)") }
        #expect(read == [secret])
        try await pool.write { db in try await db.execute(query: "DROP TABLE \(table)") }
        await pool.close()
        let hex = secret.utf8.map { String($0, radix: 16) }
        let forms = [secret, hex.joined(), hex.joined(separator: " ")]
        let leaking = lines.all.filter { line in forms.contains { line.contains($0) } }
        #expect(leaking.isEmpty, "\(leaking.prefix(3))")
    }
}
