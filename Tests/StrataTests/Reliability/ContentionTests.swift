import Dispatch
import Foundation
import Strata
import Testing

/// Many connections writing one file: the busy timeout absorbs SQLITE_BUSY, and a lock held past a
/// zero timeout fails at once with a typed busy error instead of hanging.
@Suite("Reliability: contention")
struct ContentionTests {
    /// Collects what the writer threads report.
    private final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [String] = []
        private var inserted = 0

        func record(inserted count: Int, error: (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            inserted += count
            if let error { errors.append(String(describing: error)) }
        }

        var snapshot: (inserted: Int, errors: [String]) {
            lock.lock()
            defer { lock.unlock() }
            return (inserted, errors)
        }
    }

    @Test("8 connections × 1,000 inserts on one file: 8,000 rows and no SQLITE_BUSY surfaced")
    func eightWritersOneFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("contention.sqlite")
        let setup = try Database(path: path)
        try setup.execute(
            query: "CREATE TABLE event (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, n INTEGER NOT NULL)")
        let writers = 8
        let insertsPerWriter = 1_000
        let outcomes = Outcomes()
        let ready = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()

        // Timeline: each thread opens its own connection and signals `ready`; once all 8 are ready
        // the test releases `start` 8 times, so the inserts of every connection overlap; `finished`
        // joins them. Threads, not tasks: each blocks in SQLite's busy handler, and the cooperative
        // pool of a 2-core machine would run only 2 of them at a time.
        for writer in 0..<writers {
            finished.enter()
            let thread = Thread {
                defer { finished.leave() }
                var count = 0
                do {
                    let db = try Database(path: path)
                    // Under the default synchronous = FULL each autocommit insert fsyncs the WAL; NORMAL
                    // keeps the test fast and changes nothing about locking, which is what it is about.
                    try db.execute(query: "PRAGMA synchronous = NORMAL")
                    let insert = try db.prepare(query: "INSERT INTO event (writer, n) VALUES (?, ?)")
                    ready.signal()
                    start.wait()
                    for n in 0..<insertsPerWriter {
                        try insert.bind(value: writer, at: 1)
                        try insert.bind(value: n, at: 2)
                        try insert.perform()
                        count += 1
                    }
                    db.close()
                    outcomes.record(inserted: count, error: nil)
                } catch {
                    ready.signal()
                    outcomes.record(inserted: count, error: error)
                }
            }
            thread.start()
        }
        for _ in 0..<writers { ready.wait() }
        for _ in 0..<writers { start.signal() }
        finished.wait()

        let (inserted, errors) = outcomes.snapshot
        #expect(errors.isEmpty, "\(errors)")
        #expect(inserted == writers * insertsPerWriter)
        #expect(try setup.fetchOne(Int.self, query: "SELECT count(*) FROM event") == 8_000)
        // Every writer's 1,000 rows, each n once.
        let perWriter = try setup.fetchAll(
            Int.self, query: "SELECT count(DISTINCT n) FROM event GROUP BY writer ORDER BY writer")
        #expect(perWriter == Array(repeating: insertsPerWriter, count: writers))
        #expect(try setup.integrityCheck() == ["ok"])
    }

    @Test("A held write lock and a zero busy timeout give a typed busy error at once")
    func busyErrorIsTypedAndQuick() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let holder = try Database(path: path)
        try holder.execute(query: "CREATE TABLE t (n INTEGER)")
        let waiter = try Database(path: path)
        waiter.busyTimeout = 0

        // Block 1: the holder takes the write lock and keeps it.
        try holder.beginTransaction(.immediate)
        try holder.execute(query: "INSERT INTO t VALUES (1)")

        // Block 2: the waiter's writes fail at once with SQLITE_BUSY; its reads still run (WAL).
        // The connection itself waits 0 ms (SQLite's own record of the handler), so the errors below come at once.
        #expect(try waiter.fetchOne(Int.self, query: "PRAGMA busy_timeout") == 0)
        let insert = #expect(throws: DatabaseError.self) { try waiter.execute(query: "INSERT INTO t VALUES (2)") }
        #expect(insert?.resultCode?.primary == .busy, "\(String(describing: insert))")
        #expect(insert?.code == .busy)
        let begin = #expect(throws: DatabaseError.self) { try waiter.beginTransaction(.immediate) }
        #expect(begin?.resultCode?.primary == .busy)
        #expect(!waiter.isInTransaction)
        #expect(try waiter.fetchOne(Int.self, query: "SELECT count(*) FROM t") == 0)

        // Block 1 commits; block 2 can write now.
        try holder.commitTransaction()
        try waiter.execute(query: "INSERT INTO t VALUES (2)")
        #expect(try waiter.fetchAll(Int.self, query: "SELECT n FROM t ORDER BY n") == [1, 2])
    }

    @Test("A short busy timeout waits about that long, then throws busy")
    func shortTimeoutBoundsTheWait() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("timeout.sqlite")
        let holder = try Database(path: path)
        try holder.execute(query: "CREATE TABLE t (n INTEGER)")
        let waiter = try Database(path: path)
        waiter.busyTimeout = 0.2
        try holder.beginTransaction(.exclusive)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let error = #expect(throws: DatabaseError.self) { try waiter.execute(query: "INSERT INTO t VALUES (1)") }
            #expect(error?.resultCode?.primary == .busy)
        }
        // It waited: a lower bound, which a loaded machine cannot break (no upper one, which it could).
        #expect(elapsed >= .milliseconds(150), "waited \(elapsed)")
        try holder.rollbackTransaction()
    }
}
