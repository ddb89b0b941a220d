import Foundation
import Logging
import ServiceLifecycle
import Strata
import StrataPostgres
import Testing

@Suite("PostgreSQL pool as a service", .postgresServer, .timeLimit(.minutes(1)))
struct PostgresServiceTests {
    @Test("a pool runs in a ServiceGroup and its run() returns on graceful shutdown; a second run() throws")
    func serviceGroup() async throws {
        let pool = try PostgresPool(url: try PostgresTestServer.requireURL(), connections: 2)
        let group = ServiceGroup(
            services: [pool], logger: Logger(label: "strata.test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let run = Task { try await group.run() }
        // The pool serves while the group runs.
        let answer = try await pool.read { db in try await db.fetchOne(Int.self, query: "SELECT 41 + 1") }
        #expect(answer == 42)
        await group.triggerGracefulShutdown()
        try await run.value

        let again = await #expect(throws: DatabaseError.self) { try await pool.run() }
        #expect(again?.code == .invalidArgument)
    }
}
