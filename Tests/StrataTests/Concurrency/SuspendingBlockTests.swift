import Foundation
import StrataTesting
import Testing

@testable import Strata

/// Blocks that may suspend (`read`, `write`, `writeWithoutTransaction` with `await` in them): the `DatabaseReader`
/// and `DatabaseWriter` requirements, on SQLite's pool and queue.
@Suite("Concurrency: blocks that suspend run on the connection's own thread and keep it until they return")
struct SuspendingBlockTests {
    @Test("the code of a suspending block runs on the connection's queue, before and after each suspension")
    func bodyRunsOnTheConnectionQueue() async throws {
        try await withTemporaryPool { pool, _ in
            #expect(!SerialConnection.isOnConnectionQueue)
            let places = try await pool.write { db in
                var places = [SerialConnection.isOnConnectionQueue]
                try db.execute(query: "CREATE TABLE t (a)")
                await Task.yield()
                places.append(SerialConnection.isOnConnectionQueue)
                try await Task.sleep(for: .milliseconds(1))
                places.append(SerialConnection.isOnConnectionQueue)
                try db.execute(query: "INSERT INTO t VALUES (1)")
                return places
            }
            #expect(places == [true, true, true])
            let read = try await pool.read { db in
                await Task.yield()
                return (SerialConnection.isOnConnectionQueue, try db.fetchOne(Int.self, query: "SELECT a FROM t"))
            }
            #expect(read.0 && read.1 == 1)
            #expect(!SerialConnection.isOnConnectionQueue)
        }
    }

    @Test("a write that suspends keeps the writer: the next write waits until it returns", arguments: [true, false])
    func suspendedWriteKeepsTheWriter(pool usesPool: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("suspending.sqlite")
        let writer: any DatabaseWriter<Database> =
            usesPool ? try DatabasePool(path: path) : try DatabaseQueue(path: path)
        try await writer.write { db in try db.execute(query: "CREATE TABLE log (event TEXT)") }
        let held = TestSignal()
        let proceed = TestSignal()
        let first = Task {
            try await writer.write { db in
                try db.execute(query: "INSERT INTO log VALUES ('first begins')")
                held.fire()
                await proceed.wait()
                try db.execute(query: "INSERT INTO log VALUES ('first ends')")
            }
        }
        await held.wait()
        let second = Task {
            try await writer.write { db in try db.execute(query: "INSERT INTO log VALUES ('second')") }
        }
        // The second write is queued behind the suspended first one.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(hangBound)
        while writerWaiting(writer) == 0 && clock.now < deadline { await Task.yield() }
        #expect(writerWaiting(writer) == 1)
        proceed.fire()
        try await first.value
        try await second.value
        let events = try await writer.read { db in try db.fetchAll(String.self, query: "SELECT event FROM log") }
        #expect(events == ["first begins", "first ends", "second"])
        await writer.close()
    }

    @Test("a suspending write rolls back when it throws, and a suspending read refuses writes")
    func suspendingBlocksKeepTheirMeaning() async throws {
        struct Failure: Error {}
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (a)") }
        await #expect(throws: Failure.self) {
            try await queue.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                await Task.yield()
                throw Failure()
            }
        }
        let error = await #expect(throws: DatabaseError.self) {
            try await queue.read { db in
                await Task.yield()
                try db.execute(query: "INSERT INTO t VALUES (2)")
            }
        }
        #expect(error?.resultCode?.primary == .readOnly)
        #expect(try await queue.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM t") } == 0)
        await queue.close()
    }

    private func writerWaiting(_ writer: any DatabaseWriter<Database>) -> Int {
        switch writer {
        case let pool as DatabasePool: pool.writerWaitingCount
        case let queue as DatabaseQueue: queue.writerWaitingCount
        default: 0
        }
    }
}
