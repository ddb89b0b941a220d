import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NotesApp
import Strata
import StrataPostgres
import Testing

/// The backends every suite runs on: the same test bodies, once on SQLite and once on PostgreSQL.
enum TestBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL when `STRATA_POSTGRES_URL` names a server, or in CI (`CI=true`), where a missing
    /// server fails the PostgreSQL tests instead of skipping them.
    static var all: [TestBackend] {
        PostgresTestServer.shouldRun ? [.sqlite, .postgres] : [.sqlite]
    }
}

/// The PostgreSQL server of the tests: `STRATA_POSTGRES_URL`, as in the main package's tests (`.ci/run` starts one).
enum PostgresTestServer {
    static var url: String? {
        ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether the PostgreSQL tests run: a server is named, or this is CI, where a missing server is a failure.
    static var shouldRun: Bool { url != nil || isCI }

    /// The server's URL, or a recorded failure.
    static func requireURL() throws -> String {
        try #require(url, "STRATA_POSTGRES_URL is not set: CI=true needs a PostgreSQL server (see .ci/run)")
    }

    /// Runs `body` with a URL whose connections all use a fresh schema of their own (the URL's
    /// `options=-c search_path=...`), so that tests running in parallel never see each other's tables; the schema is
    /// dropped afterwards.
    static func withSchema<Value>(_ body: (String) async throws -> Value) async throws -> Value {
        let url = try requireURL()
        let schema = "notes_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var components = try #require(URLComponents(string: url))
        components.queryItems =
            (components.queryItems ?? []) + [URLQueryItem(name: "options", value: "-c search_path=\(schema)")]
        let scoped = try #require(components.string)
        let admin = try PostgresPool(url: url, connections: 1)
        let result: Result<Value, any Error>
        do {
            try await admin.write { session in try await session.execute("CREATE SCHEMA \(identifier: schema)") }
            result = .success(try await body(scoped))
        } catch {
            result = .failure(error)
        }
        do {
            try await admin.write { session in
                try await session.execute("DROP SCHEMA IF EXISTS \(identifier: schema) CASCADE")
            }
        } catch {
            if case .success = result {
                await admin.close()
                throw error
            }
        }
        await admin.close()
        return try result.get()
    }
}

/// What the tests call on a ``NoteStore`` of either backend.
protocol NoteStoring: Sendable {
    func note(id: Int64) async throws -> Note?
    func create(content: String, at date: Date) async throws -> Note
    func count() async throws -> Int
    func schemaVersion() async throws -> Int
}

extension NoteStoring {
    func create(content: String) async throws -> Note {
        try await create(content: content, at: Date())
    }
}

extension NoteStore: NoteStoring {}

/// The open database of a test server, by backend.
enum TestDatabase: Sendable {
    case sqlite(DatabasePool)
    case postgres(PostgresPool)

    /// Opens and migrates the database `configuration` names, as the server does.
    static func open(_ configuration: NotesConfiguration, logger: Logger) async throws -> TestDatabase {
        switch configuration.backend {
        case .sqlite(let path):
            return .sqlite(try await NotesDatabase.openSQLite(path: path, configuration, logger: logger))
        case .postgres(let url):
            return .postgres(try await NotesDatabase.openPostgres(url: url, configuration, logger: logger))
        }
    }

    var writer: any DatabaseWriter {
        switch self {
        case .sqlite(let pool): pool
        case .postgres(let pool): pool
        }
    }

    var store: any NoteStoring {
        switch self {
        case .sqlite(let pool): NoteStore(database: pool)
        case .postgres(let pool): NoteStore(database: pool)
        }
    }

    func close() async {
        await writer.close()
    }
}

/// A notes app on a fresh database, migrated from the repository's migrations for its backend: a new SQLite file in
/// its own temporary folder, or a new schema on the PostgreSQL server.
///
/// The app closes its database at the graceful shutdown that ends `test(_:_:)`: run the app once per `TestServer`.
struct TestServer: Sendable {
    let backend: TestBackend
    let configuration: NotesConfiguration
    let database: TestDatabase
    let logger: Logger

    /// The store of the app, on the same database.
    var store: any NoteStoring { database.store }

    /// The app's database, as the shared protocol: `isClosed`, `close()`.
    var writer: any DatabaseWriter { database.writer }

    /// Runs `body` with the app under `setup` (`.router` or `.live`), then shuts it down.
    func test<Value: Sendable>(
        _ setup: TestingSetup, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        switch database {
        case .sqlite(let pool):
            return try await buildApplication(configuration, database: pool, logger: logger).test(setup, body)
        case .postgres(let pool):
            return try await buildApplication(configuration, database: pool, logger: logger).test(setup, body)
        }
    }

    /// Runs `sql` on the database, outside the app.
    func execute(_ sql: SQL) async throws {
        switch database {
        case .sqlite(let pool): try await Self.execute(sql, on: pool)
        case .postgres(let pool): try await Self.execute(sql, on: pool)
        }
    }

    /// The rows of `sql`, each decoded as `T`, read outside the app.
    func fetchAll<T: Decodable & Sendable>(_ type: T.Type, _ sql: SQL) async throws -> [T] {
        switch database {
        case .sqlite(let pool): try await Self.fetchAll(type, sql, on: pool)
        case .postgres(let pool): try await Self.fetchAll(type, sql, on: pool)
        }
    }

    private static func execute(_ sql: SQL, on writer: some DatabaseWriter) async throws {
        try await writer.write { session in try await session.execute(sql) }
    }

    private static func fetchAll<T: Decodable & Sendable>(
        _ type: T.Type, _ sql: SQL, on reader: some DatabaseReader
    ) async throws -> [T] {
        try await reader.read { session in try await session.fetchAll(type, sql) }
    }
}

extension TestServer {
    /// Runs `body` with a store on the server's database, with or without the SQLite fast path.
    func withStore<Value>(
        usesSQLiteFastPath: Bool, _ body: (any FullNoteStoring) async throws -> Value
    ) async throws -> Value {
        switch database {
        case .sqlite(let pool): try await body(NoteStore(database: pool, usesSQLiteFastPath: usesSQLiteFastPath))
        case .postgres(let pool): try await body(NoteStore(database: pool, usesSQLiteFastPath: usesSQLiteFastPath))
        }
    }
}

/// Every method of a ``NoteStore``, whatever its backend.
protocol FullNoteStoring: NoteStoring {
    func latest(limit: Int) async throws -> [Note]
    func update(id: Int64, content: String, at date: Date) async throws -> Note?
    func delete(id: Int64) async throws -> Bool
}

extension NoteStore: FullNoteStoring {}

/// Runs `body` with a `TestServer` on a new database of `backend`, then closes the database and removes it.
func withTestServer<Value>(
    _ backend: TestBackend,
    configure: (inout NotesConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> Value
) async throws -> Value {
    var logger = Logger(label: "NotesServerTests")
    logger.logLevel = .critical
    func run(_ configuration: NotesConfiguration) async throws -> Value {
        let database = try await TestDatabase.open(configuration, logger: logger)
        do {
            let value = try await body(
                TestServer(backend: backend, configuration: configuration, database: database, logger: logger))
            await database.close()
            return value
        } catch {
            await database.close()
            throw error
        }
    }
    var configuration = NotesConfiguration()
    configuration.port = 0
    switch backend {
    case .sqlite:
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        configuration.database = folder.appendingPathComponent("notes.sqlite").path
        configure(&configuration)
        return try await run(configuration)
    case .postgres:
        return try await PostgresTestServer.withSchema { url in
            configuration.database = url
            configuration.connections = 4
            configure(&configuration)
            return try await run(configuration)
        }
    }
}

/// Whether `error` is the error of work asked of a closed database: a `DatabaseError` with the code
/// `connectionClosed`, on either backend.
func isConnectionClosed(_ error: (any Error)?) -> Bool {
    (error as? DatabaseError)?.code == .connectionClosed
}

/// A JSON request body.
func json(_ text: String) -> ByteBuffer {
    ByteBuffer(string: text)
}

/// `{"content": ...}`, encoded.
func contentBody(_ content: String) throws -> ByteBuffer {
    ByteBuffer(bytes: try JSONEncoder().encode(NoteInput(content: content)))
}

/// Hummingbird's error body: `{"error":{"message":"..."}}`.
struct ErrorBody: Decodable {
    struct Detail: Decodable { var message: String }
    var error: Detail
}

/// Decodes a response body as the app's encoder wrote it (ISO 8601 dates).
func decode<T: Decodable>(_ type: T.Type, from response: TestResponse) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(T.self, from: Data(response.body.readableBytesView))
}

/// The message of an error response, which must be JSON.
func errorMessage(of response: TestResponse) throws -> String {
    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
    return try decode(ErrorBody.self, from: response).error.message
}

extension TestClientProtocol {
    /// `POST /notes` with `content`; the created note.
    func createNote(_ content: String) async throws -> Note {
        let response = try await execute(
            uri: "/notes", method: .post, headers: [.contentType: "application/json"], body: try contentBody(content))
        #expect(response.status == .created)
        return try decode(Note.self, from: response)
    }
}
