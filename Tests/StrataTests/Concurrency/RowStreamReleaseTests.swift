import Foundation
import Testing

@testable import Strata

/// **The connection goes back as soon as the iteration ends**: at the end, on `break`, on a thrown error, on
/// cancellation, when the iterator is dropped; not when the stream value is released. Each test uses a pool of one
/// reader, so a reader still lent would make the read after the loop wait forever (and the time limit fail it).
@Suite(.timeLimit(.minutes(2)))
struct RowStreamReleaseTests {
    @Test func breakingOutOfTheLoopAfterThreeRowsReleasesTheReaderAtOnce() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            let stream = pool.stream(StreamedNote.all().order(Column("id")))
            var taken: [Int64] = []
            for try await note in stream {
                taken.append(note.id)
                #expect(pool.idleReaderCount == 0)
                if taken.count == 3 { break }
            }
            // The stream value is still alive here: the iterator, not the stream, held the reader.
            #expect(pool.idleReaderCount == 1)
            #expect(taken == [1, 2, 3])
            let count = try await pool.read { db in try countRows(db, in: "note") }
            #expect(count == 1_000)
            withExtendedLifetime(stream) {}
        }
    }

    @Test func aConsumerThatThrowsMidwayReleasesTheReaderAndLeavesTheDatabaseUntouched() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            let before = try await pool.read { db in try db.fetchAll(StreamedNote.all().order(Column("id"))) }
            await #expect(throws: IntendedFailure.self) {
                for try await note in pool.stream(StreamedNote.all().order(Column("id"))) where note.id == 500 {
                    throw IntendedFailure()
                }
            }
            #expect(pool.idleReaderCount == 1)
            let after = try await pool.read { db in try db.fetchAll(StreamedNote.all().order(Column("id"))) }
            #expect(after == before)
            // The reader's transaction ended: a write, then a read on the same reader, see the new state.
            try await pool.write { db in try db.execute(query: "DELETE FROM note WHERE id > 10") }
            #expect(try await pool.read { db in try countRows(db, in: "note") } == 10)
        }
    }

    @Test func droppingAnUnfinishedIteratorReleasesTheReader() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            let stream = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id")
            do {
                var iterator = stream.makeAsyncIterator()
                #expect(pool.idleReaderCount == 1)  // nothing is leased before the first next()
                #expect(try await iterator.next() == 1)
                #expect(pool.idleReaderCount == 0)
            }
            #expect(pool.idleReaderCount == 1)
            #expect(try await collect(stream).count == 1_000)
        }
    }

    @Test func theReaderGoesBackOnceTheLastRowIsReadBeforeTheConsumerTakesIt() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(10, into: pool)
            var iterator = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id").makeAsyncIterator()
            #expect(try await iterator.next() == 1)
            // All ten rows fit in the first batch: the reader is free while nine wait to be taken.
            #expect(pool.idleReaderCount == 1)
            var rest: [Int64] = []
            while let id = try await iterator.next() { rest.append(id) }
            #expect(rest == (2...10).map(Int64.init))
        }
    }

    @Test func cancellingTheConsumingTaskReleasesTheReaderAndNextThrowsCancellationError() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            // Timeline: the consumer takes three rows and waits; the test cancels its task and lets it go on; its
            // next call to next() throws CancellationError, which ends the loop and the task.
            let threeTaken = TestSignal()
            let goOn = TestSignal()
            let consumer = Task {
                // Fired on the way out too, so that a broken stream fails the test instead of hanging it.
                defer { threeTaken.fire() }
                var taken = 0
                for try await _ in pool.stream(StreamedNote.all().order(Column("id"))) {
                    taken += 1
                    if taken == 3 {
                        threeTaken.fire()
                        await goOn.wait()
                    }
                }
                return taken
            }
            await threeTaken.wait()
            #expect(pool.idleReaderCount == 0)
            consumer.cancel()
            goOn.fire()
            await #expect(throws: CancellationError.self) { try await consumer.value }
            #expect(pool.idleReaderCount == 1)
            #expect(try await pool.read { db in try countRows(db, in: "note") } == 1_000)
        }
    }

    @Test func aStreamCancelledWhileItWaitsForAReaderThrowsCancellationError() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(100, into: pool)
            // Timeline: the first stream holds the only reader; a second stream waits for it, and is cancelled while
            // it waits; the first stream then reads on to the end.
            var holder = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id").makeAsyncIterator()
            #expect(try await holder.next() == 1)
            let waiting = Task {
                try await collect(pool.stream(Int64.self, query: "SELECT id FROM note"))
            }
            await waitUntil { pool.readerWaitingCount == 1 }
            #expect(pool.readerWaitingCount == 1)
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(pool.readerWaitingCount == 0)
            var rest: [Int64] = []
            while let id = try await holder.next() { rest.append(id) }
            #expect(rest == (2...100).map(Int64.init))
            #expect(pool.idleReaderCount == 1)
        }
    }

    @Test func aQueueStreamGivesTheConnectionBackOnBreakAndWritesGoOn() async throws {
        let queue = try DatabaseQueue()
        try await insertStreamedNotes(1_000, into: queue)
        for try await id in queue.stream(Int64.self, query: "SELECT id FROM note ORDER BY id") where id == 3 {
            break
        }
        #expect(queue.isConnectionIdle)
        // The stream's read-only transaction and `PRAGMA query_only` are over: the connection writes again.
        try await queue.write { db in try db.execute(query: "DELETE FROM note WHERE id > 3") }
        #expect(try await queue.read { db in try countRows(db, in: "note") } == 3)
        await queue.close()
    }
}

/// A stream is a read for `close()`: **close waits for an iteration in progress, and an iteration that begins after
/// close throws `connectionClosed`**; the pool closes cleanly after streams.
@Suite(.timeLimit(.minutes(2)))
struct RowStreamCloseTests {
    @Test func thePoolClosesCleanlyAfterStreamsThatEndedEveryWay() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pool.sqlite")
        let pool = try DatabasePool(path: path, readers: 2)
        try await insertStreamedNotes(500, into: pool)
        let stream = pool.stream(StreamedNote.all().order(Column("id")))
        #expect(try await collect(stream).count == 500)
        for try await _ in stream { break }
        await #expect(throws: IntendedFailure.self) {
            for try await _ in stream { throw IntendedFailure() }
        }
        await pool.close()
        #expect(pool.isClosed)
        #expect(pool.idleReaderCount == 0)  // every reader closed: none lent, none left idle
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        await expectPoolError(.connectionClosed) { try await collect(stream) }
    }

    @Test func closeWaitsForAnIterationInProgressWhichReadsToTheEnd() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), readers: 1)
        try await insertStreamedNotes(300, into: pool)
        // Timeline: the stream takes its first row; close() begins and waits for the reader; the stream reads on to
        // the end; close() then finishes.
        var iterator = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id").makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        let closing = Task { await pool.close() }
        await waitUntil { pool.readerWaitingCount == 1 }
        #expect(pool.isClosed)
        var rest: [Int64] = []
        while let id = try await iterator.next() { rest.append(id) }
        #expect(rest == (2...300).map(Int64.init))
        await closing.value
        #expect(pool.idleReaderCount == 0)
    }
}
