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

    @Test(arguments: badBodies)
    func postWithoutContentIs400(body: String) async throws {
        try await withTestServer { server in
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"], body: json(body))
                #expect(response.status == .badRequest)
                #expect(!(try errorMessage(of: response)).isEmpty)
                #expect(try await server.store.count() == 0)
            }
        }
    }

    @Test(arguments: badBodies)
    func putWithoutContentIs400(body: String) async throws {
        try await withTestServer { server in
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

    @Test func emptyContentSaysWhy() async throws {
        try await withTestServer { server in
            try await server.test(.router) { client in
                let response = try await client.execute(
                    uri: "/notes", method: .post, headers: [.contentType: "application/json"],
                    body: json(#"{"content": ""}"#))
                #expect(try errorMessage(of: response) == "content must not be empty")
            }
        }
    }

    @Test(arguments: [(HTTPRequest.Method.get, false), (.put, true), (.delete, false)])
    func unknownIdIs404(method: HTTPRequest.Method, hasBody: Bool) async throws {
        try await withTestServer { server in
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

    @Test(arguments: ["abc", "0", "-1", "1.5", "99999999999999999999", "%20"])
    func badIdIs400(id: String) async throws {
        try await withTestServer { server in
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

    @Test(arguments: ["0", "101", "-3", "ten", ""])
    func badLimitIs400(limit: String) async throws {
        try await withTestServer { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes?limit=\(limit)", method: .get)
                #expect(response.status == .badRequest)
                #expect(try errorMessage(of: response).hasPrefix("limit must be an integer from 1 to 100"))
            }
        }
    }

    @Test func tooLargeBodyIs413() async throws {
        try await withTestServer { server in
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

    @Test func bodyOfExactlyTheLimitIsAccepted() async throws {
        try await withTestServer { server in
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

    @Test func unknownRouteIs404() async throws {
        try await withTestServer { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/nope", method: .get)
                #expect(response.status == .notFound)
            }
        }
    }
}
