import Foundation
import Hummingbird
import HummingbirdTesting
import NotesApp
import Strata
import Testing

/// Each route's status and JSON body, through the router.
@Suite struct RouteTests {
    @Test(arguments: TestBackend.all) func healthReportsTheSchemaVersion(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/health", method: .get)
                #expect(response.status == .ok)
                #expect(try decode(Health.self, from: response) == Health(status: "ok", schemaVersion: 3))
            }
        }
    }

    @Test(arguments: TestBackend.all) func postCreatesANoteAndReturnsItWithItsId(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let before = Date()
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"],
                    body: json(#"{"content": "Hello, Strata"}"#))
                #expect(response.status == .created)
                let note = try decode(Note.self, from: response)
                let id = try #require(note.id)
                #expect(id > 0)
                #expect(response.headers[.location] == "/notes/\(id)")
                #expect(note.content == "Hello, Strata")
                #expect(note.updatedAt == nil)
                // JSON dates are whole seconds.
                #expect(note.createdAt >= before.addingTimeInterval(-1) && note.createdAt <= Date())

                let stored = try #require(try await server.store.note(id: id))
                #expect(stored.content == "Hello, Strata")
                #expect(try await server.store.count() == 1)
            }
        }
    }

    @Test(arguments: TestBackend.all) func getReturnsTheNoteAsPosted(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let created = try await client.createNote("one")
                let id = try #require(created.id)
                let response = try await client.execute(uri: "/notes/\(id)", method: .get)
                #expect(response.status == .ok)
                #expect(try decode(Note.self, from: response) == created)
            }
        }
    }

    @Test(arguments: TestBackend.all) func listReturnsTheNewestNotesFirstUpToTheLimit(backend: TestBackend) async throws
    {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                var ids: [Int64] = []
                for index in 1...5 {
                    ids.append(try #require(try await client.createNote("note \(index)").id))
                }
                let limited = try await client.execute(uri: "/notes?limit=3", method: .get)
                #expect(limited.status == .ok)
                let three = try decode(NoteList.self, from: limited).notes
                #expect(three.map(\.id) == ids.reversed().prefix(3).map { $0 })
                #expect(three.map(\.content) == ["note 5", "note 4", "note 3"])

                let all = try await client.execute(uri: "/notes", method: .get)
                #expect(try decode(NoteList.self, from: all).notes.map(\.id) == ids.reversed().map { $0 })
            }
        }
    }

    @Test(arguments: TestBackend.all) func listOfAnEmptyDatabaseIsEmpty(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes", method: .get)
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"notes":[]}"#)
            }
        }
    }

    @Test(arguments: TestBackend.all) func putReplacesTheContentAndSetsUpdatedAt(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let created = try await client.createNote("draft")
                let id = try #require(created.id)
                let response = try await client.execute(
                    uri: "/notes/\(id)", method: .put, headers: [.contentType: "application/json"],
                    body: try contentBody("final"))
                #expect(response.status == .ok)
                let updated = try decode(Note.self, from: response)
                #expect(updated.id == id)
                #expect(updated.content == "final")
                #expect(updated.createdAt == created.createdAt)
                #expect(updated.updatedAt != nil)

                let fetched = try await client.execute(uri: "/notes/\(id)", method: .get)
                #expect(try decode(Note.self, from: fetched) == updated)
            }
        }
    }

    @Test(arguments: TestBackend.all) func deleteRemovesTheNote(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let id = try #require(try await client.createNote("short-lived").id)
                let deleted = try await client.execute(uri: "/notes/\(id)", method: .delete)
                #expect(deleted.status == .noContent)
                #expect(deleted.body.readableBytes == 0)

                let fetched = try await client.execute(uri: "/notes/\(id)", method: .get)
                #expect(fetched.status == .notFound)
                let again = try await client.execute(uri: "/notes/\(id)", method: .delete)
                #expect(again.status == .notFound)
                #expect(try await server.store.count() == 0)
            }
        }
    }

    @Test(arguments: TestBackend.all) func snakeCaseColumnsHoldTheCamelCaseProperties(backend: TestBackend) async throws
    {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let id = try #require(try await client.createNote("edited").id)
                _ = try await client.execute(
                    uri: "/notes/\(id)", method: .put, headers: [.contentType: "application/json"],
                    body: try contentBody("edited twice"))
                // The stored types: SQLite's storage class (Strata writes a Date as text), PostgreSQL's column type.
                let sql: SQL =
                    switch backend {
                    case .sqlite:
                        "SELECT typeof(created_at) AS created, typeof(updated_at) AS updated FROM note WHERE id = \(id)"
                    case .postgres:
                        """
                        SELECT pg_typeof(created_at)::text AS created, pg_typeof(updated_at)::text AS updated
                        FROM note WHERE id = \(id) AND updated_at IS NOT NULL
                        """
                    }
                let columns = try await server.fetchAll(Columns.self, sql).first
                let expected = backend == .sqlite ? "text" : "timestamp with time zone"
                #expect(columns?.created == expected)
                #expect(columns?.updated == expected)
            }
        }
    }

    struct Columns: Decodable, Sendable {
        var created: String
        var updated: String
    }
}
