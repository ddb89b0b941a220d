import Dispatch
import Foundation
import StrataTesting
import Synchronization
import Testing

@testable import Strata

/// `pausableWrite` on pools and queues, and `Database.pausableTransaction`: long writes in large transactions that
/// give way to other writes.
///
/// The tests hold a step of the long write on a semaphore until other work is queued (`writerWaitingCount`), so what
/// is waiting at each step boundary is known, not a matter of timing.
@Suite(.timeLimit(.minutes(2)))
struct PausableWriteTests {
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case pool, queue
        var testDescription: String { rawValue }
    }

    // MARK: Giving way

    @Test(arguments: Writer.allCases)
    func aWaitingWriteRunsBetweenTwoStepsAndItsRowLiesBetweenImportRows(_ kind: Writer) async throws {
        try await withPausableFixture(kind) { fixture in
            // Timeline:
            //   import (writer connection)            | test
            //   steps 0..<10: INSERT 'import'         |
            //   step 10: fires atStep10, then waits ->| starts the small write, waits until it is queued
            //                                    <----| proceed.signal()
            //   step 10 ends: a write waits: COMMIT,  |
            //   gives way; the small write runs       | small write: INSERT 'small'
            //   step 11, isNewTransaction: INSERT ... |
            //   ... until step 20
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            async let smallWriteID = fixture.whenQueued(after: atStep10, proceed: proceed) {
                try await fixture.writer.write { db in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('small')")
                    return try db.lastInsertedId
                }
            }
            var newTransactionSteps: [Int] = []
            var step = 0
            try await fixture.writer.pausableWrite { db, stop, isNewTransaction in
                if isNewTransaction { newTransactionSteps.append(step) }
                try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                if step == 10 { hold(firing: atStep10, until: proceed) }
                step += 1
                stop = step == 20
            }
            #expect(try await smallWriteID == 12)
            #expect(newTransactionSteps == [0, 11])
            let sources = try await fixture.writer.read { db in
                try db.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
            }
            #expect(sources == Array(repeating: "import", count: 11) + ["small"] + Array(repeating: "import", count: 9))
        }
    }

    @Test func onAQueueAWaitingReadRunsBetweenTwoSteps() async throws {
        try await withPausableFixture(.queue) { fixture in
            // As above, with a read: on a queue, reads wait for the one connection too. It sees the 11 rows of the
            // first transaction, committed.
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            async let countRead = fixture.whenQueued(after: atStep10, proceed: proceed) {
                try await fixture.writer.read { db in try countRows(db, in: "item") }
            }
            var step = 0
            try await fixture.writer.pausableWrite { db, stop, _ in
                try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                if step == 10 { hold(firing: atStep10, until: proceed) }
                step += 1
                stop = step == 20
            }
            #expect(try await countRead == 11)
            #expect(try await fixture.writer.read { db in try countRows(db, in: "item") } == 20)
        }
    }

    @Test func aPausableWriteDoesNotGiveWayToAnotherPausableWrite() async throws {
        try await withPausableFixture(.pool) { fixture in
            // Two imports at once do not take turns step by step: the second waits for the first to finish.
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            async let second: Void = fixture.whenQueued(after: atStep10, proceed: proceed) {
                let secondSteps = TestCounter()
                try await fixture.writer.pausableWrite { db, stop, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('second')")
                    stop = secondSteps.increment() == 5
                }
            }
            var firstTransactions = 0
            var firstSteps = 0
            try await fixture.writer.pausableWrite { db, stop, isNewTransaction in
                if isNewTransaction { firstTransactions += 1 }
                try db.execute(query: "INSERT INTO item (source) VALUES ('first')")
                if firstSteps == 10 { hold(firing: atStep10, until: proceed) }
                firstSteps += 1
                stop = firstSteps == 20
            }
            try await second
            #expect(firstTransactions == 1)
            let sources = try await fixture.writer.read { db in
                try db.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
            }
            #expect(sources == Array(repeating: "first", count: 20) + Array(repeating: "second", count: 5))
        }
    }

    // MARK: Failures

    @Test(arguments: Writer.allCases)
    func aThrowingStepRollsBackOnlyTheCurrentTransaction(_ kind: Writer) async throws {
        try await withPausableFixture(kind) { fixture in
            // The first transaction (steps 0...10) commits when the small write waits; the second (steps 11...14)
            // rolls back when step 15 throws.
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            async let smallWrite: Void = fixture.whenQueued(after: atStep10, proceed: proceed) {
                try await fixture.writer.write { db in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('small')")
                }
            }
            var step = 0
            await #expect(throws: IntendedFailure()) {
                try await fixture.writer.pausableWrite { db, _, _ in
                    if step == 15 { throw IntendedFailure() }
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    if step == 10 { hold(firing: atStep10, until: proceed) }
                    step += 1
                }
            }
            try await smallWrite
            let sources = try await fixture.writer.read { db in
                try db.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
            }
            #expect(sources == Array(repeating: "import", count: 11) + ["small"])
            // The writer is free and out of any transaction.
            let isInTransaction = try await fixture.writer.writeWithoutTransaction { db in db.isInTransaction }
            #expect(isInTransaction == false)
        }
    }

    @Test func aCommitThatFailsThrowsAndKeepsEarlierTransactions() async throws {
        try await withPausableFixture(.pool) { fixture in
            // A deferred foreign key is checked at COMMIT: the last transaction's commit fails.
            try await fixture.writer.write { db in
                try db.execute(
                    query: """
                        CREATE TABLE parent (id INTEGER PRIMARY KEY);
                        CREATE TABLE child (
                            parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)
                        """)
            }
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            async let smallWrite: Void = fixture.whenQueued(after: atStep10, proceed: proceed) {
                try await fixture.writer.write { _ in }
            }
            var step = 0
            let error = await expectPoolError(.foreignKeyViolation) {
                try await fixture.writer.pausableWrite { db, stop, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    if step == 10 { hold(firing: atStep10, until: proceed) }
                    if step == 12 {
                        try db.execute(query: "INSERT INTO child (parent) VALUES (42)")
                    }
                    step += 1
                    stop = step == 15
                }
            }
            try await smallWrite
            #expect(error?.resultCode == .constraintForeignKey)
            #expect(step == 15)
            #expect(try await fixture.writer.read { db in try countRows(db, in: "item") } == 11)
            #expect(try await fixture.writer.read { db in try countRows(db, in: "child") } == 0)
            try await fixture.writer.write { db in try db.execute(query: "INSERT INTO item (source) VALUES ('after')") }
            #expect(try await fixture.writer.read { db in try countRows(db, in: "item") } == 12)
        }
    }

    @Test func transactionControlInsideAStepIsRefusedAndRollsBackTheStep() async throws {
        try await withPausableFixture(.pool) { fixture in
            var step = 0
            let error = await expectPoolError(.invalidArgument) {
                try await fixture.writer.pausableWrite { db, _, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    step += 1
                    if step == 3 { try db.execute(query: "COMMIT") }
                }
            }
            #expect(error?.message.contains("COMMIT") == true)
            let rows = try await fixture.writer.read { db in try countRows(db, in: "item") }
            #expect(rows == 0)
        }
    }

    @Test func closeInsideAStepIsRefusedAndThePoolGoesOn() async throws {
        try await withPausableFixture(.pool) { fixture in
            let error = await expectPoolError(.invalidArgument) {
                try await fixture.writer.pausableWrite { db, _, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    db.close()
                }
            }
            #expect(error?.message.contains("close()") == true)
            try await fixture.writer.write { db in try db.execute(query: "INSERT INTO item (source) VALUES ('after')") }
            #expect(try await fixture.writer.read { db in try countRows(db, in: "item") } == 1)
        }
    }

    // MARK: Bad input

    @Test func aPausableTransactionInsideAWriteThrowsAndRunsNothing() async throws {
        try await withPausableFixture(.pool) { fixture in
            var calls = 0
            let error = await expectPoolError(.invalidArgument) {
                try await fixture.writer.write { db in
                    try db.pausableTransaction(maxDuration: .seconds(1)) { _, stop, _ in
                        calls += 1
                        stop = true
                    }
                }
            }
            #expect(error?.message.contains("inside another transaction") == true)
            #expect(calls == 0)
            // Inside a pausable write's own step, too.
            await expectPoolError(.invalidArgument) {
                try await fixture.writer.pausableWrite { db, stop, _ in
                    try db.pausableTransaction(maxDuration: .seconds(1)) { _, innerStop, _ in
                        calls += 1
                        innerStop = true
                    }
                    stop = true
                }
            }
            #expect(calls == 0)
        }
    }

    @Test func aPausableTransactionInsideATransactionThrows() throws {
        let db = try Database()
        try db.transaction { db in
            #expect(throws: DatabaseError.self) {
                try db.pausableTransaction(maxDuration: .seconds(1)) { _, stop, _ in stop = true }
            }
        }
    }

    @Test(arguments: [Duration.zero, .milliseconds(-5)])
    func aDurationThatIsNotPositiveThrows(_ duration: Duration) async throws {
        let db = try Database()
        #expect(throws: DatabaseError.self) {
            try db.pausableTransaction(maxDuration: duration) { _, stop, _ in stop = true }
        }
        try await withPausableFixture(.pool) { fixture in
            var calls = 0
            let error = await expectPoolError(.invalidArgument) {
                try await fixture.writer.pausableWrite(maxTransactionDuration: duration) { _, stop, _ in
                    calls += 1
                    stop = true
                }
            }
            #expect(error?.message.contains("must be positive") == true)
            #expect(calls == 0)
        }
    }

    // MARK: Commits by duration

    @Test func aPausableTransactionCommitsEachTimeItsDurationPasses() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("duration.sqlite")
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT)")
        let observer = try Database(path: path, readOnly: true)
        let clock = ContinuousClock()
        let maxDuration = Duration.milliseconds(20)
        var transactionStarts: [ContinuousClock.Instant] = []
        var rowsSeenByAnotherConnection: [Int] = []
        var rowsWrittenBefore: [Int] = []
        var step = 0
        try db.pausableTransaction(maxDuration: maxDuration) { db, stop, isNewTransaction in
            if isNewTransaction {
                transactionStarts.append(clock.now)
                // Another connection sees every row of the earlier transactions: they are committed.
                rowsSeenByAnotherConnection.append(try countRows(observer, in: "item"))
                rowsWrittenBefore.append(step)
                #expect(db.isInTransaction)
            }
            try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
            step += 1
            stop = transactionStarts.count == 4
        }
        #expect(rowsSeenByAnotherConnection == rowsWrittenBefore)
        #expect(rowsWrittenBefore.count == 4)
        #expect(rowsWrittenBefore == rowsWrittenBefore.sorted() && Set(rowsWrittenBefore).count == 4)
        for (earlier, later) in zip(transactionStarts, transactionStarts.dropFirst()) {
            #expect(later - earlier >= maxDuration)
        }
        #expect(try countRows(db, in: "item") == step)
        #expect(db.isInTransaction == false)
        observer.close()
        db.close()
    }

    @Test func aWriterOnAnotherConnectionGetsInAfterACommitOnDuration() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other-writer.sqlite")
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT)")
        // Another connection, on its own thread as another process would be, starts its insert once the loop holds
        // the write lock, and waits in its busy handler. The loop stops once it sees that row, or after 3 s, which
        // the test counts as a failure: with the lock free for 20 ms after each commit, the waiter, which retries
        // at least every 100 ms, gets in within about 1 s. (With no gap between COMMIT and the next BEGIN, it took
        // 7 s in one run, by luck.)
        let lockHeld = DispatchSemaphore(value: 0)
        let otherFinished = TestSignal()
        let otherErrors = TestEventLog()
        let otherThread = Thread {
            if lockHeld.wait(timeout: .now() + poolTestTimeout) == .success {
                do {
                    let other = try Database(path: path, busyTimeout: 20)
                    defer { other.close() }
                    try other.execute(query: "INSERT INTO item (source) VALUES ('other')")
                } catch {
                    otherErrors.append("\(error)")
                }
            }
            otherFinished.fire()
        }
        otherThread.start()
        let clock = ContinuousClock()
        let start = clock.now
        var sawOtherRow = false
        var steps = 0
        try db.pausableTransaction(maxDuration: .milliseconds(200)) { db, stop, isNewTransaction in
            if isNewTransaction {
                sawOtherRow = try db.fetchOne(Int.self, query: "SELECT count(*) FROM item WHERE source = 'other'") == 1
            }
            try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
            steps += 1
            if steps == 1 { lockHeld.signal() }
            stop = sawOtherRow || clock.now - start > .seconds(3)
        }
        await otherFinished.wait()
        #expect(otherErrors.all.isEmpty)
        #expect(sawOtherRow)
        let sources = try db.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
        #expect(sources.first == "import")
        #expect(sources.last == "import")
        #expect(sources.filter { $0 == "other" }.count == 1)
        db.close()
    }

    @Test func aPoolCommitsOnDurationWithNoOtherWork() async throws {
        try await withPausableFixture(.pool) { fixture in
            var transactions = 0
            try await fixture.writer.pausableWrite(maxTransactionDuration: .milliseconds(10)) {
                db, stop, isNewTransaction in
                if isNewTransaction { transactions += 1 }
                try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                stop = transactions == 3
            }
            #expect(transactions == 3)
        }
    }

    // MARK: Cancellation

    @Test(arguments: Writer.allCases)
    func cancellingTheTaskCommitsWhatIsDoneAndThrows(_ kind: Writer) async throws {
        try await withPausableFixture(kind) { fixture in
            // The body never sets stop: only cancellation ends the loop.
            let atStep10 = TestSignal()
            let calls = TestCounter()
            let writer = fixture.writer
            let importTask = Task {
                try await writer.pausableWrite { db, _, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    if calls.increment() == 10 { atStep10.fire() }
                }
            }
            await atStep10.wait()
            importTask.cancel()
            await #expect(throws: CancellationError.self) { try await importTask.value }
            let rows = try await fixture.writer.read { db in try countRows(db, in: "item") }
            #expect(rows >= 10)
            #expect(rows == calls.value)
        }
    }

    @Test func cancellingWhileGivingWayThrowsAndLeavesTheWriterToOthers() async throws {
        try await withPausableFixture(.pool) { fixture in
            // Timeline:
            //   import                        | small write                      | test
            //   step 10 waits for proceed     |                                  | queues the small write
            //   COMMIT, gives way ----------> | runs, fires smallRunning, waits  |
            //   waits to come back            |                                  | cancels the import
            //   throws CancellationError      |                                  | finishSmall.signal()
            //                                 | commits                          | a later write runs
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            let smallRunning = TestSignal()
            let finishSmall = DispatchSemaphore(value: 0)
            let writer = fixture.writer
            let steps = TestCounter()
            let importTask = Task {
                try await writer.pausableWrite { db, _, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    if steps.increment() == 11 { hold(firing: atStep10, until: proceed) }
                }
            }
            await atStep10.wait()
            async let smallWrite: Void = writer.write { db in
                try db.execute(query: "INSERT INTO item (source) VALUES ('small')")
                smallRunning.fire()
                #expect(finishSmall.wait(timeout: .now() + poolTestTimeout) == .success)
            }
            await fixture.waitForQueuedWriters(1)
            proceed.signal()
            await smallRunning.wait()
            await fixture.waitForQueuedWriters(1)  // the import, waiting to come back
            importTask.cancel()
            await #expect(throws: CancellationError.self) { try await importTask.value }
            #expect(fixture.writerWaitingCount == 0)
            finishSmall.signal()
            try await smallWrite
            try await writer.write { db in try db.execute(query: "INSERT INTO item (source) VALUES ('later')") }
            let sources = try await writer.read { db in
                try db.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
            }
            #expect(sources == Array(repeating: "import", count: 11) + ["small", "later"])
        }
    }

    @Test func cancellingTheTaskStopsAPausableTransaction() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("cancel.sqlite")
        let atStep10 = TestSignal()
        let loop = Task.detached { () -> Int in
            let db = try Database(path: path)
            defer { db.close() }
            try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT)")
            var steps = 0
            do {
                try db.pausableTransaction(maxDuration: .seconds(60)) { db, _, _ in
                    try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                    steps += 1
                    if steps == 10 { atStep10.fire() }
                }
            } catch is CancellationError {
                // What the steps did is committed.
                #expect(try countRows(db, in: "item") == steps)
                return steps
            }
            return -1
        }
        await atStep10.wait()
        loop.cancel()
        #expect(try await loop.value >= 10)
    }

    // MARK: Closing

    @Test(arguments: Writer.allCases)
    func closeWaitsForAPausableWriteWhichStillGivesWayToWorkAskedBefore(_ kind: Writer) async throws {
        try await withPausableFixture(kind, closes: false) { fixture in
            // Timeline:
            //   import                          | test
            //   step 10 waits for proceed       | queues a write, then close (which waits behind it)
            //   COMMIT, gives way to the write  |
            //   comes back before the close     |
            //   steps until it saw isClosed + 5 |
            //   commits                         | close closes
            let atStep10 = TestSignal()
            let proceed = DispatchSemaphore(value: 0)
            let log = TestEventLog()
            let writer = fixture.writer
            async let closer: Task<Void, Never> = {
                await atStep10.wait()
                let smallWrite = Task {
                    try await writer.write { db in
                        try db.execute(query: "INSERT INTO item (source) VALUES ('small')")
                        log.append("small write")
                    }
                }
                await fixture.waitForQueuedWriters(1)
                let closer = Task {
                    await writer.close()
                    log.append("closed")
                }
                await fixture.waitForQueuedWriters(2)
                #expect(writer.isClosed)
                await expectPoolError(.connectionClosed) { try await writer.write { _ in } }
                proceed.signal()
                await #expect(throws: Never.self) { try await smallWrite.value }
                return closer
            }()
            var step = 0
            var stepsAfterClose = 0
            try await writer.pausableWrite { db, stop, _ in
                try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                if step == 10 { hold(firing: atStep10, until: proceed) }
                step += 1
                if writer.isClosed { stepsAfterClose += 1 }
                stop = stepsAfterClose == 5
                if stop { log.append("import finished") }
            }
            await closer.value
            #expect(log.all == ["small write", "import finished", "closed"])
            let database = try Database(path: fixture.path, readOnly: true)
            #expect(try countRows(database, in: "item") == step + 1)
            database.close()
        }
    }

    @Test func aPausableWriteAfterCloseThrows() async throws {
        try await withPausableFixture(.pool) { fixture in
            await fixture.writer.close()
            var calls = 0
            await expectPoolError(.connectionClosed) {
                try await fixture.writer.pausableWrite { _, stop, _ in
                    calls += 1
                    stop = true
                }
            }
            #expect(calls == 0)
        }
    }

    // MARK: Readers

    @Test func readersSeeConsistentSnapshotsWhileAPausableWriteRuns() async throws {
        try await withPausableFixture(.pool) { fixture in
            // Each step inserts one row into each of two tables: a read sees both or neither, whichever
            // transactions have committed, and the same counts for the whole read. Reads do not wait for the
            // import, so they finish while it still runs.
            try await fixture.writer.write { db in try db.execute(query: "CREATE TABLE twin (id INTEGER PRIMARY KEY)") }
            let readsDone = TestCounter()
            let pool = fixture.writer
            async let counts = withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var seen: [Int] = []
                        for _ in 0..<50 {
                            let (items, twins, itemsAgain) = try await pool.read { db in
                                (
                                    try countRows(db, in: "item"), try countRows(db, in: "twin"),
                                    try countRows(db, in: "item")
                                )
                            }
                            #expect(items == twins)
                            #expect(items == itemsAgain)
                            seen.append(items)
                            readsDone.increment()
                        }
                        return seen
                    }
                }
                var counts: Set<Int> = []
                for try await seen in group {
                    #expect(seen == seen.sorted())  // one reader never goes back in time
                    counts.formUnion(seen)
                }
                return counts
            }
            var transactions = 0
            try await pool.pausableWrite(maxTransactionDuration: .milliseconds(5)) { db, stop, isNewTransaction in
                if isNewTransaction { transactions += 1 }
                try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
                try db.execute(query: "INSERT INTO twin DEFAULT VALUES")
                stop = readsDone.value >= 200
            }
            let final = try await pool.read { db in try countRows(db, in: "item") }
            let seen = try await counts
            #expect(seen.allSatisfy { $0 <= final })
            #expect(transactions > 1)
        }
    }
}

/// Holds a step of a pausable write: fires `signal`, then waits until `proceed` is signalled.
private func hold(firing signal: TestSignal, until proceed: DispatchSemaphore) {
    signal.fire()
    #expect(proceed.wait(timeout: .now() + poolTestTimeout) == .success)
}

/// A count shared between threads. An atomic, not a `Mutex`: the thread sanitizer reports false races through
/// `Synchronization.Mutex` on Linux (see `LockedValue`).
final class TestCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds one, and returns the new count.
    @discardableResult
    func increment() -> Int {
        count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
    }

    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

/// A pool or queue on a file with an `item` table, for the tests above.
struct PausableFixture {
    let writer: any DatabaseWriter<Database>
    let path: String
    let kind: PausableWriteTests.Writer

    var writerWaitingCount: Int {
        switch writer {
        case let pool as DatabasePool: pool.writerWaitingCount
        case let queue as DatabaseQueue: queue.writerWaitingCount
        default: 0
        }
    }

    /// Once the pausable write holds a step (`held` fired), starts `work`, waits until it is queued for the
    /// connection, lets the step go on, and returns what `work` returns.
    func whenQueued<Output: Sendable>(
        after held: TestSignal,
        proceed: DispatchSemaphore,
        _ work: @escaping @Sendable () async throws -> Output
    ) async throws -> Output {
        await held.wait()
        let task = Task { try await work() }
        await waitForQueuedWriters(1)
        proceed.signal()
        return try await task.value
    }

    /// Waits, suspended, until `count` tasks wait for the writer connection.
    func waitForQueuedWriters(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(hangBound)
        while writerWaitingCount < count && clock.now < deadline {
            await Task.yield()
        }
        #expect(writerWaitingCount == count, sourceLocation: sourceLocation)
    }
}

func withPausableFixture(
    _ kind: PausableWriteTests.Writer,
    closes: Bool = true,
    _ body: (PausableFixture) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("pausable.sqlite")
    let writer: any DatabaseWriter<Database> =
        switch kind {
        case .pool: try DatabasePool(path: path)
        case .queue: try DatabaseQueue(path: path)
        }
    try await writer.write { db in
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT NOT NULL)")
    }
    do {
        try await body(PausableFixture(writer: writer, path: path, kind: kind))
    } catch {
        await writer.close()
        throw error
    }
    await writer.close()
    withExtendedLifetime(directory) {}
}
