import Foundation
import Hummingbird
import HummingbirdTesting
import NotesApp
import Strata
import Testing

/// The app owns the pool's end: it closes it at graceful shutdown, after the server has stopped.
@Suite struct LifecycleTests {
    @Test(arguments: ["router", "live"])
    func thePoolIsClosedAfterGracefulShutdown(setup: String) async throws {
        try await withTestServer { server in
            try await server.test(setup == "live" ? .live : .router) { client in
                _ = try await client.createNote("before shutdown")
                #expect(!server.pool.isClosed)
            }
            // `test` returns once the service group has finished: the app triggered a graceful shutdown at the end
            // of the closure, and the pool, a service of the app, closed itself.
            #expect(server.pool.isClosed)
            let error = await #expect(throws: DatabaseError.self) {
                try await server.pool.read { db in try db.userVersion }
            }
            #expect(error?.code == .connectionClosed)
        }
    }

    @Test func aClosedDatabaseAnswers503InJSON() async throws {
        try await withTestServer { server in
            await server.pool.close()
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes", method: .get)
                #expect(response.status == .serviceUnavailable)
                #expect(try errorMessage(of: response) == "the server is shutting down")
            }
        }
    }

    @Test func aDatabaseFailureAnswers500WithoutItsDetails() async throws {
        try await withTestServer { server in
            try await server.pool.writeWithoutTransaction { db in
                try db.execute(query: "DROP TABLE note_tag; DROP TABLE note")
            }
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes", method: .get)
                #expect(response.status == .internalServerError)
                #expect(try errorMessage(of: response) == "internal server error")
            }
        }
    }
}
