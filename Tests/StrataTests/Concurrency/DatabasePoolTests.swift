import Dispatch
import Foundation
import Testing

@testable import Strata

@Suite(.timeLimit(.minutes(2)))
struct DatabasePoolTests {
    // MARK: Writes

    @Test func aWriteCommitsAndAReadSeesIt() async throws {
        try await withTemporaryPool { pool, path in
            let inserted = try await pool.write { db in
                try db.execute(query: "CREATE TABLE t (name TEXT)")
                try db.execute(query: "INSERT INTO t VALUES ('a'), ('b')")
                return try db.changes
            }
            #expect(inserted == 2)
            let names = try await pool.read { db in
                let statement = try db.prepare(query: "SELECT name FROM t ORDER BY name")
                var names: [String] = []
                while let row = try statement.next() { names.append(try row[0]) }
                return names
            }
            #expect(names == ["a", "b"])
            let isInTransactionAfterwards = try await pool.writeWithoutTransaction { db in db.isInTransaction }
            #expect(isInTransactionAfterwards == false)
            // Committed to the file: another connection sees it.
            let other = try Database(path: path, readOnly: true)
            #expect(try countRows(other) == 2)
            other.close()
        }
    }

    @Test func aWriteRunsInATransaction() async throws {
        try await withTemporaryPool { pool, _ in
            let isInTransaction = try await pool.write { db in db.isInTransaction }
            #expect(isInTransaction)
        }
    }

    @Test func aFailedWriteRollsBackAndThePoolGoesOn() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            await #expect(throws: IntendedFailure()) {
                try await pool.write { db in
                    try db.execute(query: "INSERT INTO t VALUES (1)")
                    throw IntendedFailure()
                }
            }
            #expect(try await pool.read { db in try countRows(db) } == 0)
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
            #expect(try await pool.read { db in try countRows(db) } == 1)
        }
    }

    @Test func aFailedStatementRollsBackTheWholeWrite() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER UNIQUE)") }
            let error = await expectPoolError(.uniqueViolation) {
                try await pool.write { db in
                    try db.execute(query: "INSERT INTO t VALUES (1)")
                    try db.execute(query: "INSERT INTO t VALUES (1)")
                }
            }
            #expect(error?.resultCode == .constraintUnique)
            #expect(try await pool.read { db in try countRows(db) } == 0)
        }
    }

    @Test func writesAreSerialized() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in
                try db.execute(query: "CREATE TABLE counter (value INTEGER NOT NULL); INSERT INTO counter VALUES (0)")
            }
            let writes = 100
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writes {
                    group.addTask {
                        // Read, then write what was read plus one: two writes overlapping would lose an increment.
                        try await pool.write { db in
                            let value: Int = try #require(try db.prepare(query: "SELECT value FROM counter").next())[0]
                            let update = try db.prepare(query: "UPDATE counter SET value = ?")
                            try update.bind(value: value + 1, at: 1)
                            try update.perform()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let final = try await pool.read { db -> Int in
                try #require(try db.prepare(query: "SELECT value FROM counter").next())[0]
            }
            #expect(final == writes)
        }
    }

    @Test func twoHundredConcurrentWritersAndReadersLoseNothing() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (task INTEGER NOT NULL)") }
            let writers = 200
            let readers = 200
            let counts = try await withThrowingTaskGroup(of: Int?.self) { group in
                for task in 0..<(writers + readers) {
                    group.addTask {
                        if task.isMultiple(of: 2) {
                            try await pool.write { db in
                                let insert = try db.prepare(query: "INSERT INTO t VALUES (?)")
                                try insert.bind(value: task, at: 1)
                                try insert.perform()
                            }
                            return nil
                        }
                        return try await pool.read { db in try countRows(db) }
                    }
                }
                var counts: [Int] = []
                for try await count in group {
                    if let count { counts.append(count) }
                }
                return counts
            }
            #expect(counts.count == readers)
            #expect(counts.allSatisfy { (0...writers).contains($0) })
            let (total, distinct) = try await pool.read { db in
                (try countRows(db), try countRows(db, in: "(SELECT DISTINCT task FROM t)"))
            }
            #expect(total == writers)
            #expect(distinct == writers)
        }
    }

    // MARK: Reads

    @Test func aReadNeitherSeesNorWaitsForAWriteInProgress() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            // Timeline:
            //   writer                                 | test
            //   BEGIN IMMEDIATE; INSERT a row          |
            //   rowInserted.fire() ------------------> | read: count(*) is 0, the row is not committed,
            //   waits for readFinished                 |   and the read returns while the writer is blocked
            //                               <--------- | readFinished.signal()
            //   COMMIT                                 |
            //                                          | read: count(*) is 1
            // A read that waited for the writer would block until the writer's wait timed out, then see 1 row.
            let rowInserted = TestSignal()
            let readFinished = DispatchSemaphore(value: 0)
            async let writerTimedOut = pool.write { db in
                try db.execute(query: "INSERT INTO t VALUES (1)")
                rowInserted.fire()
                return readFinished.wait(timeout: .now() + poolTestTimeout) == .timedOut
            }
            await rowInserted.wait()
            let countDuringWrite = try await pool.read { db in try countRows(db) }
            readFinished.signal()
            #expect(try await writerTimedOut == false)
            #expect(countDuringWrite == 0)
            #expect(try await pool.read { db in try countRows(db) } == 1)
        }
    }

    @Test func allStatementsOfAReadSeeOneSnapshot() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            // Timeline:
            //   reader                                 | test
            //   BEGIN; count(*) is 0 (snapshot taken)  |
            //   firstCountDone.fire() ---------------> | write: INSERT a row, COMMIT
            //   waits for writeCommitted   <---------- | writeCommitted.signal()
            //   count(*) is 0 again: same snapshot     |
            //   COMMIT                                 | read: count(*) is 1
            let firstCountDone = TestSignal()
            let writeCommitted = DispatchSemaphore(value: 0)
            async let counts = pool.read { db in
                let first = try countRows(db)
                firstCountDone.fire()
                let waited = writeCommitted.wait(timeout: .now() + poolTestTimeout)
                return (first: first, second: try countRows(db), timedOut: waited == .timedOut)
            }
            await firstCountDone.wait()
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
            writeCommitted.signal()
            let (first, second, timedOut) = try await counts
            #expect(first == 0)
            #expect(second == 0)
            #expect(timedOut == false)
            #expect(try await pool.read { db in try countRows(db) } == 1)
        }
    }

    @Test func readsRunInParallel() async throws {
        try await withTemporaryPool(readers: 2) { pool, _ in
            // Timeline: each read signals that it started, then waits for the other to have started.
            //   read A                  | read B
            //   started[0].signal()     | started[1].signal()
            //   waits for started[1]    | waits for started[0]
            //   returns true            | returns true
            // Serialized reads would deadlock: the first would wait until its timeout and return false.
            let started = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            async let first = pool.read { _ in
                started[0].signal()
                return started[1].wait(timeout: .now() + poolTestTimeout) == .success
            }
            async let second = pool.read { _ in
                started[1].signal()
                return started[0].wait(timeout: .now() + poolTestTimeout) == .success
            }
            let (firstSawSecond, secondSawFirst) = try await (first, second)
            #expect(firstSawSecond)
            #expect(secondSawFirst)
        }
    }

    @Test func readerConnectionsRefuseWrites() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            let insertError = await expectPoolError(.readOnly) {
                try await pool.read { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
            }
            #expect(insertError?.resultCode?.primary == .readOnly)
            let schemaError = await expectPoolError(.readOnly) {
                try await pool.read { db in try db.execute(query: "CREATE TABLE u (x INTEGER)") }
            }
            #expect(schemaError?.resultCode?.primary == .readOnly)
            let isReadOnly = try await pool.read { db in db.isReadOnly }
            #expect(isReadOnly)
            #expect(try await pool.read { db in try countRows(db) } == 0)
        }
    }

    @Test func aReadCanNestATransaction() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
            let count = try await pool.read { db in try db.transaction { db in try countRows(db) } }
            #expect(count == 1)
        }
    }

    @Test func aFailedReadLeavesTheReaderUsable() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            await #expect(throws: IntendedFailure()) {
                try await pool.read { _ in throw IntendedFailure() }
            }
            let isInTransaction = try await pool.read { db in db.isInTransaction }
            #expect(isInTransaction)
            // The one reader's earlier read ended its transaction: this one sees the new row.
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
            #expect(try await pool.read { db in try countRows(db) } == 1)
        }
    }

    // MARK: Writing outside a transaction

    @Test func writeWithoutTransactionRunsOutsideATransaction() async throws {
        try await withTemporaryPool { pool, _ in
            let wasInTransaction = try await pool.writeWithoutTransaction { db in
                try db.execute(query: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
                try db.vacuum()  // fails inside a transaction
                try db.setUserVersion(3)
                return db.isInTransaction
            }
            #expect(wasInTransaction == false)
            #expect(try await pool.read { db in try db.userVersion } == 3)
            #expect(try await pool.read { db in try countRows(db) } == 1)
        }
    }

    @Test func aTransactionLeftOpenByWriteWithoutTransactionIsRolledBack() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            let error = await expectPoolError(.invalidArgument) {
                try await pool.writeWithoutTransaction { db in
                    try db.beginTransaction()
                    try db.execute(query: "INSERT INTO t VALUES (1)")
                }
            }
            #expect(error?.message.contains("rolled back") == true)
            await #expect(throws: IntendedFailure()) {
                try await pool.writeWithoutTransaction { db in
                    try db.beginTransaction()
                    try db.execute(query: "INSERT INTO t VALUES (2)")
                    throw IntendedFailure()
                }
            }
            let isInTransaction = try await pool.writeWithoutTransaction { db in db.isInTransaction }
            #expect(isInTransaction == false)
            #expect(try await pool.read { db in try countRows(db) } == 0)
        }
    }

    // MARK: Opening

    @Test func thePoolIsInWALMode() async throws {
        try await withTemporaryPool { pool, _ in
            let writerMode = try await pool.write { db in try db.journalMode }
            let readerMode = try await pool.read { db in try db.journalMode }
            #expect(writerMode == .wal)
            #expect(readerMode == .wal)
            #expect(pool.readerCount == 4)
        }
    }

    @Test func configureRunsOnEveryConnection() async throws {
        let directory = try TemporaryDirectory()
        let configured = LockedValue(0)
        let pool = try DatabasePool(path: directory.path("configured.sqlite"), readers: 3) { db in
            db.busyTimeout = 7
            db.dateStrategy = .integer
            configured.withLock { $0 += 1 }
        }
        #expect(configured.withLock { $0 } == 4)
        #expect(try await pool.write { db in db.busyTimeout } == 7)
        #expect(try await pool.read { db in db.busyTimeout } == 7)
        #expect(try await pool.read { db in db.dateStrategy } == .integer)
        await pool.close()
        withExtendedLifetime(directory) {}
    }

    @Test func aConfigureThatThrowsFailsTheInit() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: IntendedFailure()) {
            _ = try DatabasePool(path: directory.path("failing.sqlite")) { _ in throw IntendedFailure() }
        }
    }

    @Test(arguments: [":memory:", ""])
    func anInMemoryPathThrows(path: String) async throws {
        let error = await expectPoolError(.invalidArgument) { try DatabasePool(path: path) }
        #expect(error?.message.contains("DatabaseQueue") == true)
    }

    @Test func fewerThanOneReaderThrows() async throws {
        let directory = try TemporaryDirectory()
        await expectPoolError(.invalidArgument) { try DatabasePool(path: directory.path("none.sqlite"), readers: 0) }
    }

    @Test func aFileThatIsNotADatabaseThrows() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("text.sqlite")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = await expectPoolError(.sqlite) { try DatabasePool(path: path) }
        #expect(error?.resultCode == .notADatabase)
    }

    // MARK: Closing

    @Test func closeWaitsForWorkInFlightThenRefusesNewWork() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("closing.sqlite")
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        // Timeline:
        //   writer                            | test                           | closer
        //   INSERT; writeStarted.fire() ----> | starts the closer -----------> | close(): refuses new work,
        //   waits for finishWrite             | waits until isClosed           |   waits for the writer
        //                          <--------- | finishWrite.signal()           |
        //   COMMIT; logs "write finished"     |                                | closes all; logs "closed"
        let log = TestEventLog()
        let writeStarted = TestSignal()
        let finishWrite = DispatchSemaphore(value: 0)
        async let writerTimedOut = pool.write { db in
            try db.execute(query: "INSERT INTO t VALUES (1)")
            writeStarted.fire()
            let timedOut = finishWrite.wait(timeout: .now() + poolTestTimeout) == .timedOut
            log.append("write finished")
            return timedOut
        }
        await writeStarted.wait()
        let closer = Task {
            await pool.close()
            log.append("closed")
        }
        var spins = 0
        while !pool.isClosed && spins < 1_000_000 {
            await Task.yield()
            spins += 1
        }
        #expect(pool.isClosed)
        #expect(log.all.isEmpty)
        await expectPoolError(.connectionClosed) { try await pool.read { db in try countRows(db) } }
        await expectPoolError(.connectionClosed) { try await pool.write { _ in } }
        await expectPoolError(.connectionClosed) { try await pool.writeWithoutTransaction { _ in } }
        finishWrite.signal()
        #expect(try await writerTimedOut == false)
        await closer.value
        #expect(log.all == ["write finished", "closed"])
        await expectPoolError(.connectionClosed) { try await pool.read { db in try countRows(db) } }
        // The write in flight committed.
        let database = try Database(path: path, readOnly: true)
        #expect(try countRows(database) == 1)
        database.close()
        withExtendedLifetime(directory) {}
    }

    @Test func closeCanBeCalledTwiceAndConcurrently() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            async let first: Void = pool.close()
            async let second: Void = pool.close()
            _ = await (first, second)
            await pool.close()
            #expect(pool.isClosed)
            await expectPoolError(.connectionClosed) { try await pool.read { _ in 0 } }
        }
    }

    @Test func closingTheLastConnectionCheckpointsTheWAL() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("checkpoint.sqlite")
        let pool = try DatabasePool(path: path)
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)") }
        _ = try await pool.read { db in try countRows(db) }
        await pool.close()
        #expect(FileManager.default.fileExists(atPath: path + "-wal") == false)
        let database = try Database(path: path, readOnly: true)
        #expect(try countRows(database) == 1)
        database.close()
        // Also when the pool did nothing at all.
        let idlePath = directory.path("idle.sqlite")
        try await DatabasePool(path: idlePath).close()
        #expect(FileManager.default.fileExists(atPath: idlePath) == true)
        #expect(FileManager.default.fileExists(atPath: idlePath + "-wal") == false)
        withExtendedLifetime(directory) {}
    }

    // MARK: Cancellation

    @Test func aTaskCancelledWhileWaitingForTheWriterThrowsCancellationError() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            // Timeline:
            //   writer (holds the lease)          | test                     | waiting task
            //   writeStarted.fire() ------------> | starts the waiting task  | write: waits for the writer
            //   waits for finishWrite             | cancels it               | throws CancellationError
            //                          <--------- | finishWrite.signal()     |
            //   INSERT; COMMIT                    |                          |
            let log = TestEventLog()
            let writeStarted = TestSignal()
            let finishWrite = DispatchSemaphore(value: 0)
            async let writerTimedOut = pool.write { db in
                writeStarted.fire()
                let timedOut = finishWrite.wait(timeout: .now() + poolTestTimeout) == .timedOut
                try db.execute(query: "INSERT INTO t VALUES (1)")
                return timedOut
            }
            await writeStarted.wait()
            let waiting = Task {
                try await pool.write { db in
                    log.append("cancelled write ran")
                    try db.execute(query: "INSERT INTO t VALUES (2)")
                }
            }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            finishWrite.signal()
            #expect(try await writerTimedOut == false)
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (3)") }
            #expect(log.all.isEmpty)
            #expect(try await pool.read { db in try countRows(db) } == 2)
        }
    }

    @Test func aTaskCancelledWhileWaitingForAReaderThrowsCancellationError() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            let readStarted = TestSignal()
            let finishRead = DispatchSemaphore(value: 0)
            async let readerTimedOut = pool.read { _ in
                readStarted.fire()
                return finishRead.wait(timeout: .now() + poolTestTimeout) == .timedOut
            }
            await readStarted.wait()
            let waiting = Task { try await pool.read { _ in "ran" } }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            finishRead.signal()
            let timedOut = try await readerTimedOut
            let laterRead = try await pool.read { _ in "ran" }
            #expect(timedOut == false)
            #expect(laterRead == "ran")
        }
    }

    // MARK: Closures

    @Test func aBlockCanChangeTheCallersVariables() async throws {
        try await withTemporaryPool { pool, _ in
            var count = 0
            try await pool.write { _ in count = 1 }
            #expect(count == 1)
            var insertedID: Int64 = 0
            try await pool.write { db in
                try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
                try db.execute(query: "INSERT INTO t (x) VALUES (10)")
                insertedID = try db.lastInsertedId
            }
            #expect(insertedID == 1)
            var seen: [Int] = []
            try await pool.read { db in seen.append(try countRows(db)) }
            #expect(seen == [1])
        }
    }

    /// A closure written on the main actor is isolated to it and cannot be sent to the pool's threads; marking it
    /// `@Sendable` makes it nonisolated, which is what a main-actor caller writes (it can then capture only
    /// `Sendable` values, and returns its results instead of assigning them).
    @MainActor
    @Test func aMainActorCallerPassesASendableBlock() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("main.sqlite"), readers: 1)
        let value = 42
        let insertedID = try await pool.write { @Sendable db in
            try db.execute(query: "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
            let insert = try db.prepare(query: "INSERT INTO t (x) VALUES (?)")
            try insert.bind(value: value, at: 1)
            try insert.perform()
            return try db.lastInsertedId
        }
        let count = try await pool.read { @Sendable db in try countRows(db) }
        #expect(insertedID == 1)
        #expect(count == 1)
        await pool.close()
        withExtendedLifetime(directory) {}
    }
}
