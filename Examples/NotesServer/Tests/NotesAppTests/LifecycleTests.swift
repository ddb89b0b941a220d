import Foundation
import Hummingbird
import HummingbirdTesting
import NotesApp
import Strata
import Testing

/// The app owns the database's end: it closes the pool at graceful shutdown, after the server has stopped.
@Suite struct LifecycleTests {
    @Test(arguments: TestBackend.all, ["router", "live"])
    func thePoolIsClosedAfterGracefulShutdown(backend: TestBackend, setup: String) async throws {
        try await withTestServer(backend) { server in
            try await server.test(setup == "live" ? .live : .router) { client in
                _ = try await client.createNote("before shutdown")
                #expect(!server.writer.isClosed)
            }
            // `test` returns once the service group has finished: the app triggered a graceful shutdown at the end
            // of the closure, and the pool, a service of the app, closed itself.
            #expect(server.writer.isClosed)
            let error = await #expect(throws: (any Error).self) {
                try await server.store.count()
            }
            #expect(isConnectionClosed(error), "\(String(describing: error))")
        }
    }

    @Test(arguments: TestBackend.all) func aClosedDatabaseAnswers503InJSON(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            await server.writer.close()
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes", method: .get)
                #expect(response.status == .serviceUnavailable)
                #expect(try errorMessage(of: response) == "the server is shutting down")
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aDatabaseFailureAnswers500WithoutItsDetails(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.execute("DROP TABLE note_tag")
            try await server.execute("DROP TABLE note")
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes", method: .get)
                #expect(response.status == .internalServerError)
                #expect(try errorMessage(of: response) == "internal server error")
            }
        }
    }
}
