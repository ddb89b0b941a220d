import Foundation
import StrataTesting
import Synchronization
import Testing

@testable import Strata

/// Counts commits from any task, and lets a task wait, suspended, until the count reaches a number.
private final class CommitCounter: Sendable {
    private typealias Waiter = (target: Int, continuation: CheckedContinuation<Void, Never>)
    private let state = LockedValue<(count: Int, waiters: [Waiter])>((0, []))

    var count: Int { state.withLock { $0.count } }

    func increment() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.target <= count } }
            return state.waiters.filter { $0.target <= count }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    func wait(until target: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if state.count < target { state.waiters.append((target, continuation)) }
                return state.count >= target
            }
            if reached { continuation.resume() }
        }
    }
}

/// A flag that tells the writer tasks to stop.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func set() { flag.store(true, ordering: .relaxed) }
}

/// Progress reports collected from the backup's task.
private final class ProgressLog: Sendable {
    private let reports = LockedValue<[BackupProgress]>([])

    /// Records `progress` and returns how many reports there are now.
    func append(_ progress: BackupProgress) -> Int {
        reports.withLock { reports in
            reports.append(progress)
            return reports.count
        }
    }

    var all: [BackupProgress] { reports.withLock { $0 } }
}

/// The files in the folder of `path`, sorted.
private func files(beside path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        .sorted()
}

/// Fills `item` with `rows` rows of 200 bytes: about 60 to a 4 KiB page.
private func fill(_ writer: some DatabaseWriter<Database>, rows: Int = 1200) async throws {
    try await writer.write { db in
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        let insert = try db.prepare(query: "INSERT INTO item (payload) VALUES (randomblob(200))")
        for _ in 0..<rows { try insert.perform() }
    }
}

/// `DatabasePool.backup(to:)` and `DatabaseQueue.backup(to:)`: backups that run while the pool or queue is in use.
@Suite(.timeLimit(.minutes(2)))
struct PoolBackupTests {
    @Test func writesThatCommitMeanwhileAreNotInTheCopyAndNoWriteWaitsForTheBackup() async throws {
        try await withTemporaryPool { pool, path in
            try await fill(pool)
            let destination = path + ".backup"
            let log = ProgressLog()
            // Backup: step 1 (the snapshot of 1,200 rows is pinned) | a write commits, and returns | steps 2... | done.
            // Had the write waited for the backup, it would wait for this very closure: a deadlock, not a pass.
            let result = try await pool.backup(to: destination, pagesPerStep: 4) { progress in
                if log.append(progress) == 1 {
                    try await pool.write { db in
                        try db.execute(query: "INSERT INTO item (payload) VALUES (x'00')")
                    }
                }
            }
            let reports = log.all
            #expect(reports.count > 2)
            #expect(reports.last == BackupProgress(totalPages: result.totalPages, remainingPages: 0))
            #expect(reports.map(\.copiedPages) == reports.indices.map { min(4 * ($0 + 1), result.totalPages) })
            let copy = try Database(path: destination)
            #expect(try copy.integrityCheck() == ["ok"])
            #expect(try countRows(copy, in: "item") == 1200)
            #expect(try await pool.read { db in try countRows(db, in: "item") } == 1201)
        }
    }

    @Test func fourWritersDuringABackupGiveACopyAsOfOneCommit() async throws {
        try await withTemporaryPool { pool, path in
            // Each write inserts one entry (writer, seq) and bumps the counter in the same transaction: in a copy as of
            // one commit, the counter equals the number of entries and each writer's seqs run from 1 without a gap.
            try await pool.write { db in
                try db.execute(
                    query: """
                        CREATE TABLE entry (writer INTEGER, seq INTEGER, payload BLOB, PRIMARY KEY (writer, seq));
                        CREATE TABLE counter (n INTEGER NOT NULL);
                        INSERT INTO counter VALUES (0);
                        """)
                let insert = try db.prepare(query: "INSERT INTO entry VALUES (0, ?, randomblob(200))")
                for seq in 1...1500 {
                    try insert.bind(value: seq, at: 1)
                    try insert.perform()
                    insert.reset()
                }
                try db.execute(query: "UPDATE counter SET n = 1500")
            }
            let commits = CommitCounter()
            let stop = StopFlag()
            let destination = path + ".backup"
            let log = ProgressLog()
            let (before, during, after) = try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 1...4 {
                    group.addTask {
                        var seq = 1
                        while !stop.isSet {
                            try await pool.write { db in
                                let insert = try db.prepare(query: "INSERT INTO entry VALUES (?, ?, randomblob(100))")
                                try insert.bind(value: writer, at: 1)
                                try insert.bind(value: seq, at: 2)
                                try insert.perform()
                                try db.execute(query: "UPDATE counter SET n = n + 1")
                            }
                            seq += 1
                            commits.increment()
                        }
                    }
                }
                defer { stop.set() }
                await commits.wait(until: 20)  // the writers are running
                let before = try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT n FROM counter") }
                // Step 1 (snapshot pinned) | 40 more commits | the other steps, while the writers go on.
                var during = 0
                try await pool.backup(to: destination, pagesPerStep: 8) { progress in
                    if log.append(progress) == 1 {
                        during = commits.count
                        await commits.wait(until: during + 40)
                    }
                }
                let after = try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT n FROM counter") }
                stop.set()
                try await group.waitForAll()
                return (try #require(before), during, try #require(after))
            }

            #expect(log.all.count > 2)
            #expect(log.all.last?.remainingPages == 0)
            let copy = try Database(path: destination)
            #expect(try copy.integrityCheck() == ["ok"])
            let counter = try #require(try copy.fetchOne(Int.self, query: "SELECT n FROM counter"))
            #expect(try countRows(copy, in: "entry") == counter)
            let gaps = try copy.fetchAll(
                Int.self, query: "SELECT writer FROM entry GROUP BY writer HAVING count(*) != max(seq) OR min(seq) != 1"
            )
            #expect(gaps == [])
            // The copy is as of a commit after the backup began and before the 40 commits of step 1 ended. A writer counts
            // its commit once `write` has returned, so each of the four may have one commit in the database that
            // `during` does not count yet.
            #expect(counter >= before)
            #expect(counter <= 1500 + during + 4)
            #expect(counter + 40 <= after)
        }
    }

    @Test func cancellingTheTaskStopsTheBackupBeforeItsNextStep() async throws {
        try await withTemporaryPool(readers: 1) { pool, path in
            try await fill(pool)
            let destination = path + ".backup"
            let log = ProgressLog()
            let backup = Task {
                try await pool.backup(to: destination, pagesPerStep: 2) { progress in
                    if log.append(progress) == 1 {
                        withUnsafeCurrentTask { $0?.cancel() }
                    }
                }
            }
            await #expect(throws: CancellationError.self) { try await backup.value }
            #expect(log.all.count == 1)
            #expect(try files(beside: path).filter { !$0.hasPrefix("pool.sqlite") } == [])
            #expect(!FileManager.default.fileExists(atPath: destination))
            try await expectReaderIsBackAndSeesNewWrites(pool)
        }
    }

    @Test func aBackupThatProgressStopsGivesItsReaderBack() async throws {
        try await withTemporaryPool(readers: 1) { pool, path in
            try await fill(pool)
            let destination = path + ".backup"
            let log = ProgressLog()
            await #expect(throws: IntendedFailure.self) {
                try await pool.backup(to: destination, pagesPerStep: 2) { progress in
                    if log.append(progress) == 3 { throw IntendedFailure() }
                }
            }
            #expect(log.all.count == 3)
            #expect(try files(beside: path).filter { !$0.hasPrefix("pool.sqlite") } == [])
            try await expectReaderIsBackAndSeesNewWrites(pool)
        }
    }

    /// With one reader: the backup gave it back, and ended its transaction, so a read sees a write made after.
    private func expectReaderIsBackAndSeesNewWrites(
        _ pool: DatabasePool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await pool.write { db in try db.execute(query: "DELETE FROM item WHERE id > 7") }
        let rows = try await pool.read { db in try countRows(db, in: "item") }
        #expect(rows == 7, sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true])
    func thePoolsOwnFileIsRefused(overwrite: Bool) async throws {
        try await withTemporaryPool { pool, path in
            try await fill(pool, rows: 10)
            let error = await expectPoolError(.invalidArgument) {
                try await pool.backup(to: path, overwrite: overwrite)
            }
            #expect(error.text.contains("is the source database file"))
            #expect(try await pool.read { db in try countRows(db, in: "item") } == 10)
        }
    }

    @Test func aBackupAfterCloseThrowsConnectionClosed() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("closed.sqlite"))
        await pool.close()
        await expectPoolError(.connectionClosed) { try await pool.backup(to: directory.path("copy.sqlite")) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("copy.sqlite")))
    }

    @Test func anInMemoryQueueBacksUpToAFile() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue()
        try await fill(queue, rows: 300)
        let result = try await queue.backup(to: directory.path("memory.sqlite"), pagesPerStep: 1)
        #expect(result.isComplete)
        #expect(result.totalPages > 5)
        let copy = try Database(path: directory.path("memory.sqlite"))
        #expect(try copy.integrityCheck() == ["ok"])
        #expect(try countRows(copy, in: "item") == 300)
        await queue.close()
    }

    @Test func theBackupHoldsTheQueuesConnectionUntilItEnds() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("queue.sqlite"))
        try await fill(queue, rows: 300)
        let events = TestEventLog()
        let log = ProgressLog()
        var write: Task<Void, any Error>?
        // Step 1 | a write is asked for, and queued behind the backup | steps 2... | the backup ends | the write runs.
        try await queue.backup(to: directory.path("copy.sqlite"), pagesPerStep: 2) { progress in
            events.append("step \(log.append(progress))")
            if log.all.count == 1 {
                write = Task {
                    try await queue.write { db in try db.execute(query: "DELETE FROM item") }
                    events.append("write")
                }
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(hangBound)
                while queue.writerWaitingCount < 1 && clock.now < deadline { await Task.yield() }
                #expect(queue.writerWaitingCount == 1)
            }
        }
        try await write?.value
        let steps = log.all.indices.map { "step \($0 + 1)" }
        #expect(steps.count > 2)
        #expect(events.all == steps + ["write"])
        #expect(try countRows(try Database(path: directory.path("copy.sqlite")), in: "item") == 300)
        await queue.close()
    }
}
