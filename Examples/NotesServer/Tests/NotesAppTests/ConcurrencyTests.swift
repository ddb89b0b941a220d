import Foundation
import Hummingbird
import HummingbirdTesting
import NotesApp
import Strata
import Testing

/// Many clients writing at once through a live server: the writes queue on SQLite's one writer, or run side by side
/// on PostgreSQL's connections, and none is lost.
@Suite struct ConcurrencyTests {
    static let clients = 8
    static let postsPerClient = 50

    @Test(arguments: TestBackend.all) func concurrentPostsThroughALiveServerLoseNothing(backend: TestBackend)
        async throws
    {
        try await withTestServer(backend) { server in
            try await server.test(.live) { client in
                let port = try #require(client.port)
                // Each task has its own connection: the `.live` client is one connection, used by one task at a time.
                try await withThrowingTaskGroup(of: [Int64].self) { group in
                    for clientIndex in 0..<Self.clients {
                        group.addTask {
                            try await TestClient.withClient(host: "localhost", port: port) { http in
                                var ids: [Int64] = []
                                for postIndex in 0..<Self.postsPerClient {
                                    let response = try await http.post(
                                        "/notes", headers: [.contentType: "application/json"],
                                        body: try contentBody("client \(clientIndex) post \(postIndex)"))
                                    if response.head.status == .created, let body = response.body {
                                        let note = try JSONDecoder().decode(
                                            IdOnly.self, from: Data(body.readableBytesView))
                                        ids.append(note.id)
                                    }
                                }
                                return ids
                            }
                        }
                    }
                    var ids: [Int64] = []
                    for try await batch in group { ids += batch }
                    // Every POST answered 201 is a row, and each row is one POST: no write lost, none doubled.
                    let rows = try await server.store.count()
                    #expect(ids.count == Self.clients * Self.postsPerClient)
                    #expect(rows == ids.count)
                    #expect(Set(ids).count == ids.count)
                }
            }
        }
    }

    struct IdOnly: Decodable {
        var id: Int64
    }
}
