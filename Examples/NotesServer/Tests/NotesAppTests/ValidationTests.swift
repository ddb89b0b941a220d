import Foundation
import Hummingbird
import HummingbirdTesting
import NotesApp
import Testing

/// What a client can get wrong: each is an HTTP error with a JSON message, and changes nothing.
@Suite struct ValidationTests {
    /// Bodies without usable content: empty, blank, missing, null, not a string, not JSON, no body at all.
    static let badBodies: [String] = [
        #"{"content": ""}"#,
        #"{"content": "  \n\t "}"#,
        #"{}"#,
        #"{"content": null}"#,
        #"{"content": 42}"#,
        #"{"content": "#,
        "content=hello",
        "",
    ]

    @Test(arguments: TestBackend.all, badBodies)
    func postWithoutContentIs400(backend: TestBackend, body: String) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"], body: json(body))
                #expect(response.status == .badRequest)
                #expect(!(try errorMessage(of: response)).isEmpty)
                #expect(try await server.store.count() == 0)
            }
        }
    }

    @Test(arguments: TestBackend.all, badBodies)
    func putWithoutContentIs400(backend: TestBackend, body: String) async throws {
        try await withTestServer(backend) { server in
            let id = try #require(try await server.store.create(content: "kept").id)
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes/\(id)", method: .put, headers: [.contentType: "application/json"], body: json(body))
                #expect(response.status == .badRequest)
                #expect(!(try errorMessage(of: response)).isEmpty)
                #expect(try await server.store.note(id: id)?.content == "kept")
            }
        }
    }

    @Test(arguments: TestBackend.all) func emptyContentSaysWhy(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"],
                    body: json(#"{"content": ""}"#))
                #expect(try errorMessage(of: response) == "content must not be empty")
            }
        }
    }

    @Test(arguments: TestBackend.all, [(HTTPRequest.Method.get, false), (.put, true), (.delete, false)])
    func unknownIdIs404(backend: TestBackend, request: (method: HTTPRequest.Method, hasBody: Bool)) async throws {
        let (method, hasBody) = request
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes/4242", method: method, headers: [.contentType: "application/json"],
                    body: hasBody ? try contentBody("nobody home") : nil)
                #expect(response.status == .notFound)
                #expect(try errorMessage(of: response) == "no note has the id 4242")
                #expect(try await server.store.count() == 0)
            }
        }
    }

    @Test(arguments: TestBackend.all, ["abc", "0", "-1", "1.5", "99999999999999999999", "%20"])
    func badIdIs400(backend: TestBackend, id: String) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                for method in [HTTPRequest.Method.get, .put, .delete] {
                    let response = try await client.execute(
                        uri: "/notes/\(id)", method: method, headers: [.contentType: "application/json"],
                        body: method == .put ? try contentBody("x") : nil)
                    #expect(response.status == .badRequest, "\(method) /notes/\(id)")
                    #expect(try errorMessage(of: response).hasPrefix("the note id must be a positive integer"))
                }
            }
        }
    }

    @Test(arguments: TestBackend.all, ["0", "101", "-3", "ten", ""])
    func badLimitIs400(backend: TestBackend, limit: String) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes?limit=\(limit)", method: .get)
                #expect(response.status == .badRequest)
                #expect(try errorMessage(of: response).hasPrefix("limit must be an integer from 1 to 100"))
            }
        }
    }

    @Test(arguments: TestBackend.all) func tooLargeBodyIs413(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let content = String(repeating: "a", count: NotesRequestContext.maxBodySize)
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"],
                    body: try contentBody(content))
                #expect(response.status == .contentTooLarge)
                #expect(try errorMessage(of: response) == "the request body is larger than 65536 bytes")
                #expect(try await server.store.count() == 0)
            }
        }
    }

    @Test(arguments: TestBackend.all) func bodyOfExactlyTheLimitIsAccepted(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                // {"content":"aaa..."}: 14 bytes around the content.
                let content = String(repeating: "a", count: NotesRequestContext.maxBodySize - 14)
                let body = try contentBody(content)
                #expect(body.readableBytes == NotesRequestContext.maxBodySize)
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"], body: body)
                #expect(response.status == .created)
                #expect(try decode(Note.self, from: response).content.count == content.count)
            }
        }
    }

    @Test(arguments: TestBackend.all) func unknownRouteIs404(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/nope", method: .get)
                #expect(response.status == .notFound)
            }
        }
    }
}
