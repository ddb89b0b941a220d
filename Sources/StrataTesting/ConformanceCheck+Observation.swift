import Foundation
import StrataCore
import Testing

/// The check `observation`: `observe` emits the current result at once, then the result after each commit that
/// changes it, once, however the commit was written, by the writer or by another client; a rolled-back write and a
/// commit elsewhere emit nothing, and a result that is not `Equatable` is read again only after a commit to a table
/// it reads; a burst ends on its last state; leaving the loop stops listening; closing the writer ends the loop. A backend that cannot see commits passes by refusing: `observe` throws its `DatabaseError` before
/// any result.
enum ObservationChecks {
    static func run<Backend: ConformanceBackend>(_ pool: Backend.Writer, of backend: Backend) async throws {
        do {
            _ = try await pool.commitNotifications()
        } catch let refusal as DatabaseError {
            try await refused(pool, with: refusal)
            return
        }
        try await pool.writeWithoutTransaction { session in
            try await session.execute("CREATE TABLE conformance_other (id BIGINT PRIMARY KEY, label TEXT NOT NULL)")
        }
        try await backend.makeObservable(["conformance_note", "conformance_other"], on: pool)
        try await followsCommits(pool)
        try await followsTablesRead(pool)
        try await otherClient(pool, of: backend)
        try await burst(pool)
        try await leavingTheLoop(pool)
        try await closing(pool)
    }

    /// What the observations of these checks read: the contents of the notes, in key order.
    private static let contents: @Sendable (any DatabaseSession) async throws -> [String] = { session in
        try await session.fetchAll(ConformanceNote.all().order(Column("id"))).map(\.content)
    }

    private struct Rollback: Error {}

    private static func note(_ content: String) -> ConformanceNote {
        ConformanceNote(id: nil, content: content, mood: "happy", score: 1)
    }

    private static func refused(_ pool: some DatabaseWriter, with refusal: DatabaseError) async throws {
        let results = ResultLog<Int>()
        let error = await #expect(throws: DatabaseError.self) {
            for try await count in pool.observe({ session in try await session.fetchCount(ConformanceNote.all()) }) {
                results.append(count)
            }
        }
        #expect(error?.code == refusal.code)
        #expect(results.values.isEmpty, "a refused observation emits nothing")
    }

    private static func followsCommits(_ pool: some DatabaseWriter) async throws {
        let results = ResultLog<[String]>()
        let observing = results.follow(pool.observe({ session in try await contents(session) }))
        defer { observing.cancel() }
        // The current result first, at once.
        try await results.wait(for: [[]])
        try await pool.write { session in try await session.insert(note("one")) }
        try await results.wait(for: [[], ["one"]])
        // A commit elsewhere, a read, and a write that rolls back change nothing: nothing is emitted for them, so the
        // next result is the next commit's.
        try await pool.write { session in try await session.execute("INSERT INTO conformance_other VALUES (1, 'x')") }
        _ = try await pool.read { session in try await contents(session) }
        await #expect(throws: Rollback.self) {
            try await pool.write { session in
                try await session.insert(note("rolled back"))
                throw Rollback()
            }
        }
        try await pool.write { session in try await session.insert(note("two")) }
        try await results.wait(for: [[], ["one"], ["one", "two"]])
        // Each way of writing is seen: a statement committing on its own, a batch, updateAll, deleteAll.
        try await pool.writeWithoutTransaction { session in
            try await session.execute("INSERT INTO conformance_note (content, mood, score) VALUES ('three', 'sad', 1)")
        }
        try await results.wait(until: { $0.last == ["one", "two", "three"] })
        try await pool.write { session in
            var batch = [note("four"), note("five")]
            try await session.insert(contentsOf: &batch)
        }
        try await results.wait(until: { $0.last == ["one", "two", "three", "four", "five"] })
        try await pool.write { session in
            try await session.updateAll(
                ConformanceNote.filter(Column("content") == "one"), Column("content").set(to: "uno"))
        }
        try await results.wait(until: { $0.last == ["uno", "two", "three", "four", "five"] })
        try await pool.write { session in
            try await session.deleteAll(ConformanceNote.filter(Column("mood") == "sad"))
        }
        try await results.wait(until: { $0.last == ["uno", "two", "four", "five"] })
        // Consecutive results always differ: an equal result is not emitted again.
        let values = results.values
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "\(values)")
    }

    /// An observation reads again after a commit to a table its last read used, and only then: seen with results
    /// that are not `Equatable`, which are emitted after every read.
    private static func followsTablesRead(_ pool: some DatabaseWriter) async throws {
        let otherCount: @Sendable (any DatabaseSession) async throws -> Int = { session in
            try await session.fetchOne(Int.self, "SELECT count(*) FROM conformance_other") ?? 0
        }
        let notes = try await pool.read { session in try await session.fetchCount(ConformanceNote.all()) }
        let others = try await pool.read { session in try await otherCount(session) }
        // The read counts the notes, and the rows of the other table only once three more notes are there.
        let results = ResultLog<Counts>()
        let observing = results.follow(
            pool.observe({ session in
                let count = try await session.fetchCount(ConformanceNote.all())
                return Counts(notes: count, others: count >= notes + 3 ? try await otherCount(session) : nil)
            }))
        defer { observing.cancel() }
        // A witness that follows the other table: once it has seen a commit there, so would have the observation.
        let witnessed = ResultLog<Int>()
        let witness = witnessed.follow(pool.observe({ session in try await otherCount(session) }))
        defer { witness.cancel() }
        try await results.wait(until: { $0.count == 1 })
        try await witnessed.wait(for: [others])
        // A commit to the other table is not a commit the result depends on: the next result is the next note's.
        try await pool.write { session in try await session.execute("INSERT INTO conformance_other VALUES (100, 'x')") }
        try await witnessed.wait(for: [others, others + 1])
        try await pool.write { session in try await session.insert(note("tables one")) }
        try await results.wait(until: { $0.count == 2 })
        #expect(results.values.map(\.notes) == [notes, notes + 1], "read again for the other table's commit")
        // Once a read uses the other table, its commits count too.
        try await pool.write { session in
            var batch = [note("tables two"), note("tables three")]
            try await session.insert(contentsOf: &batch)
        }
        try await results.wait(until: { $0.last?.others == others + 1 })
        try await pool.write { session in try await session.execute("INSERT INTO conformance_other VALUES (101, 'y')") }
        try await results.wait(until: { $0.last?.others == others + 2 })
        #expect(results.values.map(\.notes) == [notes, notes + 1, notes + 3, notes + 3])
        try await pool.write { session in
            try await session.execute("DELETE FROM conformance_other WHERE id >= 100")
            try await session.deleteAll(ConformanceNote.filter(Column("content").like("tables %")))
        }
    }

    /// A commit by another client of the database (another process's connection to the file, another PostgreSQL
    /// client), which the writer's own commits do not tell of, is seen.
    private static func otherClient<Backend: ConformanceBackend>(_ pool: Backend.Writer, of backend: Backend)
        async throws
    {
        guard let other = try await backend.makeOtherClient(of: pool) else { return }
        let results = ResultLog<Int>()
        let observing = results.follow(pool.observe({ session in try await session.fetchCount(ConformanceNote.all()) }))
        defer { observing.cancel() }
        do {
            let before = try await pool.read { session in try await session.fetchCount(ConformanceNote.all()) }
            try await results.wait(for: [before])
            try await other.write { session in try await session.insert(note("from another client")) }
            try await results.wait(for: [before, before + 1])
        } catch {
            await other.close()
            throw error
        }
        await other.close()
    }

    private static func burst(_ pool: some DatabaseWriter) async throws {
        try await pool.write { session in try await session.deleteAll(ConformanceNote.all()) }
        let results = ResultLog<Int>()
        let observing = results.follow(pool.observe({ session in try await session.fetchCount(ConformanceNote.all()) }))
        defer { observing.cancel() }
        try await results.wait(for: [0])
        for index in 1...1000 {
            try await pool.write { session in try await session.insert(note("burst \(index)")) }
        }
        // However the commits coalesced, the last result is the last commit's, and the counts only grow.
        try await results.wait(until: { $0.last == 1000 })
        let values = results.values
        #expect(values == values.sorted() && Set(values).count == values.count, "\(values)")
    }

    private static func leavingTheLoop(_ pool: some DatabaseWriter) async throws {
        var first: Int?
        for try await count in pool.observe({ session in try await session.fetchCount(ConformanceNote.all()) }) {
            first = count
            break
        }
        #expect(first == 1000)
        // The writer and the readers go on as before.
        try await pool.write { session in try await session.deleteAll(ConformanceNote.all()) }
        #expect(try await pool.read { session in try await session.fetchCount(ConformanceNote.all()) } == 0)
    }

    private static func closing(_ pool: some DatabaseWriter) async throws {
        let results = ResultLog<Int>()
        // Its own loop, not `results.follow`: the error that ends it is what this check looks at.
        let observing = Task {
            for try await count in pool.observe({ session in try await session.fetchCount(ConformanceNote.all()) }) {
                results.append(count)
            }
        }
        try await results.wait(for: [0])
        await pool.close()
        // The loop ends: at once when it was waiting for a commit, or with connectionClosed when a read was starting.
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                switch await observing.result {
                case .success: return true
                case .failure(let error): return (error as? DatabaseError)?.code == .connectionClosed
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(hangBound))
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        #expect(ended, "closing the writer ends an observation, with completion or connectionClosed")
    }
}

/// What the observation of ``ObservationChecks/followsTablesRead(_:)`` reads: not `Equatable`, so that every read is
/// emitted.
private struct Counts: Sendable {
    var notes: Int
    var others: Int?
}

/// The results an observation emitted, appended from its task, read by the check.
private final class ResultLog<Value: Sendable>: Sendable {
    private let state = LockedValue<[Value]>([])
    /// The error that ended the observation ``follow(_:)`` iterates, if one did.
    private let failure = LockedValue<(any Error)?>(nil)

    func append(_ value: Value) {
        state.withLock { $0.append(value) }
    }

    /// Appends each result of `observation`, in a task of its own. An error that ends it is kept, for a wait to report
    /// at once, where a wait for a result that never comes would fail at `hangBound` without it.
    func follow<Observation: AsyncSequence & Sendable>(_ observation: Observation) -> Task<Void, Never>
    where Observation.Element == Value {
        Task {
            do {
                for try await value in observation { append(value) }
            } catch is CancellationError {
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    var values: [Value] {
        state.withLock { $0 }
    }

    /// Waits until the results are exactly `expected`, and fails when they are not within `hangBound` seconds.
    func wait(for expected: [Value], sourceLocation: SourceLocation = #_sourceLocation) async throws
    where Value: Equatable {
        try await wait(until: { $0 == expected }, sourceLocation: sourceLocation)
    }

    /// Waits until `condition` holds for the results, and fails when it does not within `hangBound` seconds: only a
    /// broken observation takes that long (a first result on PostgreSQL opens a connection for `LISTEN`, which in the
    /// full parallel test run took far longer than alone).
    func wait(until condition: ([Value]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(hangBound)
        while !condition(values) {
            if let error = failure.withLock({ $0 }) {
                Issue.record("the observation ended, its results \(values): \(error)", sourceLocation: sourceLocation)
                throw error
            }
            guard ContinuousClock.now < deadline else {
                Issue.record("the observation's results are \(values)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
