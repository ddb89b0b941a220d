import Dispatch
import Foundation
import Testing

@testable import Strata

@Suite(.timeLimit(.minutes(2)))
struct DatabaseQueueTests {
    @Test func anInMemoryQueueKeepsItsDataBetweenCalls() async throws {
        let queue = try DatabaseQueue()
        #expect(queue.path == ":memory:")
        try await queue.write { db in
            try db.execute(query: "CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('a')")
        }
        let name = try await queue.read { db -> String in
            try #require(try db.prepare(query: "SELECT name FROM t").next())[0]
        }
        #expect(name == "a")
        let mode = try await queue.read { db in try db.journalMode }
        #expect(mode == .memory)
        await queue.close()
    }

    @Test func aFileQueueCommitsToTheFileInWALMode() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("queue.sqlite")
        let queue = try DatabaseQueue(path: path)
        #expect(queue.path == path)
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        let mode = try await queue.read { db in try db.journalMode }
        #expect(mode == .wal)
        let other = try Database(path: path, readOnly: true)
        #expect(try countRows(other) == 1)
        other.close()
        await queue.close()
        withExtendedLifetime(directory) {}
    }

    @Test func aWriteRunsInATransactionAndAFailedWriteRollsBack() async throws {
        let queue = try DatabaseQueue()
        let isInTransaction = try await queue.write { db in
            try db.execute(query: "CREATE TABLE t (x INTEGER)")
            return db.isInTransaction
        }
        #expect(isInTransaction)
        await #expect(throws: IntendedFailure()) {
            try await queue.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                throw IntendedFailure()
            }
        }
        #expect(try await queue.read { db in try countRows(db) } == 0)
        try await queue.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
        #expect(try await queue.read { db in try countRows(db) } == 1)
        await queue.close()
    }

    @Test func aReadRefusesWritesAndTheNextWriteWorks() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        let error = await expectPoolError(.readOnly) {
            try await queue.read { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
        }
        #expect(error?.resultCode?.primary == .readOnly)
        let isInTransaction = try await queue.read { db in db.isInTransaction }
        #expect(isInTransaction)
        try await queue.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
        try await queue.writeWithoutTransaction { db in try db.execute(query: "INSERT INTO t VALUES (3)") }
        #expect(try await queue.read { db in try countRows(db) } == 2)
        await queue.close()
    }

    @Test func writeWithoutTransactionRunsOutsideATransaction() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("vacuum.sqlite"))
        let wasInTransaction = try await queue.writeWithoutTransaction { db in
            try db.execute(query: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
            try db.vacuum()  // fails inside a transaction
            return db.isInTransaction
        }
        #expect(wasInTransaction == false)
        let error = await expectPoolError(.invalidArgument) {
            try await queue.writeWithoutTransaction { db in
                try db.beginTransaction()
                try db.execute(query: "INSERT INTO t VALUES (2)")
            }
        }
        #expect(error?.message.contains("rolled back") == true)
        #expect(try await queue.read { db in try countRows(db) } == 1)
        await queue.close()
        withExtendedLifetime(directory) {}
    }

    @Test func callsAreSerialized() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in
            try db.execute(query: "CREATE TABLE counter (value INTEGER NOT NULL); INSERT INTO counter VALUES (0)")
        }
        let writes = 200
        let reads = try await withThrowingTaskGroup(of: Int?.self) { group in
            for task in 0..<(2 * writes) {
                group.addTask {
                    guard task.isMultiple(of: 2) else {
                        return try await queue.read { db -> Int in
                            try #require(try db.prepare(query: "SELECT value FROM counter").next())[0]
                        }
                    }
                    // Read, then write what was read plus one: two writes overlapping would lose an increment.
                    try await queue.write { db in
                        let value: Int = try #require(try db.prepare(query: "SELECT value FROM counter").next())[0]
                        let update = try db.prepare(query: "UPDATE counter SET value = ?")
                        try update.bind(value: value + 1, at: 1)
                        try update.perform()
                    }
                    return nil
                }
            }
            var reads: [Int] = []
            for try await value in group {
                if let value { reads.append(value) }
            }
            return reads
        }
        #expect(reads.count == writes)
        #expect(reads.allSatisfy { (0...writes).contains($0) })
        let final = try await queue.read { db -> Int in
            try #require(try db.prepare(query: "SELECT value FROM counter").next())[0]
        }
        #expect(final == writes)
        await queue.close()
    }

    @Test func closeWaitsForWorkInFlightThenRefusesNewWork() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        // Timeline:
        //   connection                        | test                           | closer
        //   INSERT; writeStarted.fire() ----> | starts the closer -----------> | close(): refuses new work,
        //   waits for finishWrite             | waits until isClosed           |   waits for the write
        //                          <--------- | finishWrite.signal()           |
        //   COMMIT; logs "write finished"     |                                | closes; logs "closed"
        let log = TestEventLog()
        let writeStarted = TestSignal()
        let finishWrite = DispatchSemaphore(value: 0)
        async let writerTimedOut = queue.write { db in
            try db.execute(query: "INSERT INTO t VALUES (1)")
            writeStarted.fire()
            let timedOut = finishWrite.wait(timeout: .now() + poolTestTimeout) == .timedOut
            log.append("write finished")
            return timedOut
        }
        await writeStarted.wait()
        let closer = Task {
            await queue.close()
            log.append("closed")
        }
        var spins = 0
        while !queue.isClosed && spins < 1_000_000 {
            await Task.yield()
            spins += 1
        }
        #expect(queue.isClosed)
        #expect(log.all.isEmpty)
        await expectPoolError(.connectionClosed) { try await queue.read { db in try countRows(db) } }
        await expectPoolError(.connectionClosed) { try await queue.write { _ in } }
        await expectPoolError(.connectionClosed) { try await queue.writeWithoutTransaction { _ in } }
        finishWrite.signal()
        #expect(try await writerTimedOut == false)
        await closer.value
        #expect(log.all == ["write finished", "closed"])
        await queue.close()
        await expectPoolError(.connectionClosed) { try await queue.write { _ in } }
    }

    @Test func aTaskCancelledWhileWaitingThrowsCancellationError() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        // Timeline:
        //   connection (held by a write)      | test                     | waiting task
        //   writeStarted.fire() ------------> | starts the waiting task  | read: waits for its turn
        //   waits for finishWrite             | cancels it               | throws CancellationError
        //                          <--------- | finishWrite.signal()     |
        //   INSERT; COMMIT                    |                          |
        let log = TestEventLog()
        let writeStarted = TestSignal()
        let finishWrite = DispatchSemaphore(value: 0)
        async let writerTimedOut = queue.write { db in
            writeStarted.fire()
            let timedOut = finishWrite.wait(timeout: .now() + poolTestTimeout) == .timedOut
            try db.execute(query: "INSERT INTO t VALUES (1)")
            return timedOut
        }
        await writeStarted.wait()
        let waiting = Task {
            try await queue.read { db in
                log.append("cancelled read ran")
                return try countRows(db)
            }
        }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        finishWrite.signal()
        #expect(try await writerTimedOut == false)
        #expect(try await queue.read { db in try countRows(db) } == 1)
        #expect(log.all.isEmpty)
        await queue.close()
    }

    @Test func configureRunsOnTheConnection() async throws {
        let configured = LockedValue(0)
        let queue = try DatabaseQueue { db in
            db.busyTimeout = 3
            configured.withLock { $0 += 1 }
        }
        #expect(configured.withLock { $0 } == 1)
        #expect(try await queue.read { db in db.busyTimeout } == 3)
        await queue.close()
    }

    @Test func aBlockCanChangeTheCallersVariables() async throws {
        let queue = try DatabaseQueue()
        var count = 0
        try await queue.write { _ in count = 1 }
        #expect(count == 1)
        var insertedID: Int64 = 0
        try await queue.write { db in
            try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
            try db.execute(query: "INSERT INTO t (x) VALUES (10)")
            insertedID = try db.lastInsertedId
        }
        #expect(insertedID == 1)
        var seen: [Int] = []
        try await queue.read { db in seen.append(try countRows(db)) }
        #expect(seen == [1])
        await queue.close()
    }
}
