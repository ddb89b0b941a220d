import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NotesApp
import Strata
import Testing

/// A notes app on a fresh database file in its own temporary folder, migrated from the repository's `Migrations/`.
///
/// The app closes its pool at the graceful shutdown that ends `test(_:_:)`: run the app once per `TestServer`.
struct TestServer: Sendable {
    let configuration: NotesConfiguration
    let pool: DatabasePool
    let logger: Logger

    var store: NoteStore { NoteStore(pool: pool) }

    /// Runs `body` with the app under `setup` (`.router` or `.live`), then shuts it down.
    func test<Value: Sendable>(
        _ setup: TestingSetup, _ body: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        let app = buildApplication(configuration, pool: pool, logger: logger)
        return try await app.test(setup, body)
    }
}

/// Runs `body` with a `TestServer` on a new database file, then closes the pool and removes the folder.
func withTestServer<Value>(
    configure: (inout NotesConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> Value
) async throws -> Value {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var configuration = NotesConfiguration()
    configuration.databasePath = folder.appendingPathComponent("notes.sqlite").path
    configuration.port = 0
    configure(&configuration)
    var logger = Logger(label: "NotesServerTests")
    logger.logLevel = .critical
    let pool = try await NotesDatabase.open(configuration, logger: logger)
    do {
        let value = try await body(TestServer(configuration: configuration, pool: pool, logger: logger))
        await pool.close()
        return value
    } catch {
        await pool.close()
        throw error
    }
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
