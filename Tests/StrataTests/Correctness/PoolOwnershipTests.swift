import Foundation
import Strata
import Testing

@Suite("Correctness: a pool's connections stay the pool's")
struct PoolOwnershipTests {
    @Test func closeInsideAPoolBlockIsRefusedAndThePoolGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 1)
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                db.close()
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(String(describing: error).contains("pool owns its connections"))
        await #expect(throws: DatabaseError.self) { try await pool.read { db in db.close() } }
        await #expect(throws: DatabaseError.self) { try await pool.writeWithoutTransaction { db in db.close() } }
        // Nothing the refused write did was committed, and every connection still works.
        try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
        let values = try await pool.read { db in try db.fetchAll(Int.self, query: "SELECT x FROM t") }
        #expect(values == [2])
        await pool.close()
        #expect(pool.isClosed)
    }

    @Test func closeInsideAQueueBlockIsRefusedAndTheQueueGoesOn() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        await #expect(throws: DatabaseError.self) {
            try await queue.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                db.close()
            }
        }
        // An in-memory database closed for good would have lost its table.
        let count = try await queue.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") }
        #expect(count == 0)
        await queue.close()
    }

    @Test func aConfigureThatClosesTheConnectionThrows() throws {
        #expect(throws: DatabaseError.self) { _ = try DatabaseQueue { db in db.close() } }
    }
}
