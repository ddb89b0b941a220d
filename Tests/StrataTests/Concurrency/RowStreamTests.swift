import Foundation
import Synchronization
import Testing

@testable import Strata

/// A note of the stream tests: `id` 1...n, `content` "note <id>", `mood` "happy" for every third id.
struct StreamedNote: Model, Equatable, Sendable {
    static let tableName = "note"
    var id: Int64
    var content: String
    var mood: String
}

/// Creates the `note` table with `count` rows (see ``StreamedNote``), in one write.
func insertStreamedNotes(_ count: Int, into pool: some DatabaseWriter<Database>) async throws {
    try await pool.write { db in
        try db.execute(query: "CREATE TABLE IF NOT EXISTS note (id INTEGER PRIMARY KEY, content TEXT, mood TEXT)")
        try db.execute(
            query: """
                WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :count)
                INSERT INTO note (id, content, mood)
                SELECT x, 'note ' || x, CASE x % 3 WHEN 0 THEN 'happy' ELSE 'sad' END FROM n
                """,
            parameters: ["count": count])
    }
}

/// What a stream yields: everything, in order, as an array.
func collect<Element>(_ stream: RowStream<Element>) async throws -> [Element] {
    var elements: [Element] = []
    for try await element in stream {
        elements.append(element)
    }
    return elements
}

/// A stream yields the rows `fetchAll` returns, in the same order, for every overload.
@Suite(.timeLimit(.minutes(2)))
struct RowStreamContentTests {
    @Test func streamingTenThousandRowsEqualsFetchAll() async throws {
        try await withTemporaryPool(readers: 2) { pool, _ in
            try await insertStreamedNotes(10_000, into: pool)
            let request = StreamedNote.all().order(Column("id"))
            let fetched = try await pool.read { db in try db.fetchAll(request) }
            let streamed = try await collect(pool.stream(request))
            #expect(fetched.count == 10_000)
            #expect(streamed == fetched)
            let typed = try await collect(pool.stream(StreamedNote.self, request))
            #expect(typed == fetched)
        }
    }

    @Test func aRequestWithFilterOrderAndLimitStreamsWhatItSelects() async throws {
        try await withTemporaryPool { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            let request = StreamedNote.filter(Column("mood") == "happy" && Column("id") > 100)
                .order(Column("id").desc)
                .limit(200, offset: 10)
            let fetched = try await pool.read { db in try db.fetchAll(request) }
            let streamed = try await collect(pool.stream(request))
            #expect(streamed == fetched)
            #expect(streamed.count == 200)
            #expect(streamed.first.map(\.id) == 969)  // the eleventh multiple of 3 from 999 down
            #expect(streamed.allSatisfy { $0.mood == "happy" && $0.id > 100 })
            #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $0.id > $1.id })
        }
    }

    @Test func aSelectionDecodesIntoAnotherTypeAndScalars() async throws {
        struct Headline: Decodable, Equatable, Sendable {
            var id: Int64
            var content: String
        }
        try await withTemporaryPool { pool, _ in
            try await insertStreamedNotes(300, into: pool)
            let headlines = try await collect(
                pool.stream(Headline.self, StreamedNote.select(Column("id"), Column("content")).order(Column("id"))))
            #expect(headlines == (1...300).map { Headline(id: Int64($0), content: "note \($0)") })
            let ids = try await collect(pool.stream(Int64.self, StreamedNote.select(Column("id")).order(Column("id"))))
            #expect(ids == (1...300).map(Int64.init))
        }
    }

    @Test func sqlStreamsBindTheirParameters() async throws {
        try await withTemporaryPool { pool, _ in
            try await insertStreamedNotes(300, into: pool)
            let notes = try await collect(
                pool.stream(
                    StreamedNote.self, query: "SELECT * FROM note WHERE id <= :last AND mood = :mood ORDER BY id",
                    parameters: ["last": "150", "mood": "happy"]))
            #expect(notes.map(\.id) == Array(stride(from: 3, through: 150, by: 3)))
            let contents = try await collect(
                pool.stream(String.self, query: "SELECT content FROM note WHERE id > ? ORDER BY id", parameters: [298]))
            #expect(contents == ["note 299", "note 300"])
            let empty = try await collect(pool.stream(Int.self, query: "SELECT id FROM note WHERE id < 0"))
            #expect(empty.isEmpty)
        }
    }

    @Test func aQueueStreamsToo() async throws {
        let queue = try DatabaseQueue()
        try await insertStreamedNotes(1_000, into: queue)
        let request = StreamedNote.filter(Column("mood") == "sad").order(Column("id"))
        let fetched = try await queue.read { db in try db.fetchAll(request) }
        #expect(try await collect(queue.stream(request)) == fetched)
        #expect(try await collect(queue.stream(Int.self, query: "SELECT count(*) FROM note")) == [1_000])
        await queue.close()
    }

    @Test func eachLoopOverOneStreamIsAnIterationOfItsOwn() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(100, into: pool)
            let stream = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id")
            let first = try await collect(stream)
            try await pool.write { db in try db.execute(query: "DELETE FROM note WHERE id > 50") }
            let second = try await collect(stream)
            #expect(first == (1...100).map(Int64.init))
            #expect(second == (1...50).map(Int64.init))
        }
    }
}

/// **An iteration sees one consistent snapshot**: the database as committed when its first `next()` began.
@Suite(.timeLimit(.minutes(2)))
struct RowStreamSnapshotTests {
    @Test func anIterationSeesOneConsistentSnapshotWhileAWriterCommits() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(1_000, into: pool)
            // Timeline: the stream takes its first batch (its snapshot); then, while it goes on row by row, a writer
            // task commits 20 transactions that insert, update and delete; the stream sees none of them. Each write
            // waits for the stream to have taken one more row, so writes and reads interleave.
            let snapshotTaken = TestSignal()
            let rowsTaken = RowCounter()
            let writer = Task {
                await snapshotTaken.wait()
                for round in 1...20 {
                    await waitUntil { rowsTaken.value >= 1 + round * 40 }
                    try await pool.write { db in
                        try db.execute(
                            query: "INSERT INTO note (content, mood) VALUES ('new', 'happy'), ('new', 'sad')")
                        try db.execute(query: "UPDATE note SET content = 'changed' WHERE id = ?", parameters: [round])
                        try db.execute(query: "DELETE FROM note WHERE id = ?", parameters: [1_000 - round])
                    }
                }
            }
            // Fired on the way out too, so that a broken stream fails the test instead of leaving the writer waiting.
            defer { snapshotTaken.fire() }
            var streamed: [StreamedNote] = []
            for try await note in pool.stream(StreamedNote.all().order(Column("id"))) {
                streamed.append(note)
                rowsTaken.increment()
                if streamed.count == 1 { snapshotTaken.fire() }
            }
            try await writer.value
            #expect(streamed.count == 1_000)
            #expect(streamed.map(\.id) == (1...1_000).map(Int64.init))
            #expect(streamed.allSatisfy { $0.content == "note \($0.id)" })
            let countAfter = try await pool.read { db in try countRows(db, in: "note") }
            #expect(countAfter == 1_000 + 20 * 2 - 20)
        }
    }

    @Test func theSnapshotIsTakenAtTheFirstNextNotWhenTheStreamIsMade() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(10, into: pool)
            let stream = pool.stream(Int64.self, query: "SELECT id FROM note ORDER BY id")
            try await pool.write { db in
                try db.execute(query: "INSERT INTO note (id, content, mood) VALUES (11, 'x', 'y')")
            }
            #expect(try await collect(stream) == (1...11).map(Int64.init))
        }
    }
}

/// **Errors come out of `next()`**, after the rows before them; then the iteration is over.
@Suite(.timeLimit(.minutes(2)))
struct RowStreamErrorTests {
    @Test func aRowThatDoesNotDecodeThrowsFromNextNamingTheColumnAfterTheRowsBeforeIt() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(500, into: pool)
            try await pool.write { db in try db.execute(query: "UPDATE note SET content = NULL WHERE id = 300") }
            var iterator = pool.stream(StreamedNote.all().order(Column("id"))).makeAsyncIterator()
            var ids: [Int64] = []
            var failure: (any Error)?
            do {
                while let note = try await iterator.next() { ids.append(note.id) }
            } catch {
                failure = error
            }
            #expect(ids == (1...299).map(Int64.init))
            // The decoder's error, as `fetchAll` throws it: a `DecodingError` whose description names the column.
            let error = try #require(failure)
            #expect(error is DecodingError)
            #expect("\(error)".contains("could not decode String from NULL - column \"content\" (index 1)"))
            let sameFromFetchAll = await #expect(throws: DecodingError.self) {
                try await pool.read { db in try db.fetchAll(StreamedNote.all().order(Column("id"))) }
            }
            #expect("\(error)" == sameFromFetchAll.map { "\($0)" })
            #expect(try await iterator.next() == nil)
            #expect(pool.idleReaderCount == 1)
        }
    }

    @Test func anSQLErrorThrowsFromTheFirstNext() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            var iterator = pool.stream(Int.self, query: "SELECT id FROM missing_table").makeAsyncIterator()
            let error = await expectPoolError(.sqlite) { try await iterator.next() }
            #expect(error?.description.contains("no such table: missing_table") == true)
            let afterError = try await iterator.next()
            #expect(afterError == nil)
            #expect(pool.idleReaderCount == 1)
        }
    }

    @Test func aStreamOnlyReads() async throws {
        try await withTemporaryPool(readers: 1) { pool, _ in
            try await insertStreamedNotes(3, into: pool)
            let write = pool.stream(Int.self, query: "DELETE FROM note RETURNING id")
            let error = await expectPoolError(.readOnly) { try await collect(write) }
            #expect(error?.resultCode?.primary == .readOnly)
            let commit = pool.stream(Int.self, query: "COMMIT")
            await expectPoolError(.invalidArgument) { try await collect(commit) }
            let queue = try DatabaseQueue()
            try await insertStreamedNotes(3, into: queue)
            let queueWrite = queue.stream(Int.self, query: "DELETE FROM note RETURNING id")
            let queueError = await expectPoolError(.readOnly) { try await collect(queueWrite) }
            #expect(queueError?.resultCode?.primary == .readOnly)
            // The queue's connection writes again once the stream is over.
            try await queue.write { db in try db.execute(query: "DELETE FROM note WHERE id = 1") }
            #expect(try await queue.read { db in try countRows(db, in: "note") } == 2)
            await queue.close()
            #expect(try await pool.read { db in try countRows(db, in: "note") } == 3)
        }
    }
}

/// A counter shared by a consumer and a task that watches it. An atomic, not a `Mutex`: the thread sanitizer reports
/// false races through `Mutex` on Linux.
final class RowCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func increment() {
        count.add(1, ordering: .releasing)
    }
}
