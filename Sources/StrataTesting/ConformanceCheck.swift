import StrataCore
import Testing

/// One check of the backend conformance suite: what every backend must do the same way, through the shared
/// protocols only (`DatabaseWriter`, `DatabaseReader`, `DatabaseSession`).
///
/// Run each on each backend from a parameterised test:
///
/// ```swift
/// @Test(arguments: ConformanceCheck.allCases)
/// func conformance(_ check: ConformanceCheck) async throws {
///     try await check.run(on: MyBackend())
/// }
/// ```
///
/// A check records its failures with Swift Testing's `#expect`, and throws when it cannot go on.
public enum ConformanceCheck: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The example of DESIGN.md's "One library, two backends": a generic read, a generic write, a count with an
    /// interpolated value.
    case designExample
    /// A write commits when its body returns and rolls back when it throws.
    case writeIsOneTransaction
    /// A statement the database rejects fails the write even when the body catches its error.
    case failedStatementFailsTheWrite
    /// A nested transaction that fails rolls back alone, and the write goes on.
    case nestedTransactionContainsFailure
    /// A read refuses writes.
    case readRefusesWrites
    /// A read sees one snapshot, whatever commits meanwhile.
    case readSeesOneSnapshot
    /// `writeWithoutTransaction` commits each statement on its own.
    case writeWithoutTransactionCommitsEachStatement
    /// A write that suspends inside its body keeps what it holds until it returns: a write of the same row started
    /// meanwhile waits, then sees what the first committed.
    case suspendedWriteHoldsBackTheNextWrite
    /// `insert`, `find`, `update`, `upsert`, `delete`, `fetchAll(Model.self)`.
    case records
    /// `insert(contentsOf:)` writes keys back, and is all or none, naming the element that failed.
    case batchInsert
    /// Requests: filter, order, limit, count, `updateAll`, `deleteAll`, an empty `contains`.
    case requests
    /// `fetchAll`, `fetchOne` and `count` of a model with an SQL condition, with parameters or written with
    /// interpolation (its values bound, never spliced); a request's raw condition written with interpolation.
    case conditions
    /// Joins split each row between its records by one rule, though both tables have an `id`: a join request at
    /// the separator columns its SELECT puts between the tables, a left join's missing side nil; a join written as
    /// SQL by the table each column is read from, a self-join between its two aliases, its values bound; a record
    /// whose table is not in the row is `.unknownColumn`.
    case joins
    /// `SQL` binds interpolated values and quotes identifiers.
    case sqlValues
    /// A text of several statements: `execute` runs each in turn when it binds no values (a `;` in a string or a
    /// comment ends none; outside a transaction those before a failing statement stay) and refuses it with
    /// `.invalidArgument` before any runs when it binds values, as every fetch refuses it; a parameter without a
    /// value is `.unknownParameter`, never NULL.
    case statementTexts
    /// `close()` ends the writer: new work throws `connectionClosed`.
    case closeRefusesNewWork
    /// The migrator, run generically: migrate to a version, status, pending, migrate to the latest, a re-run that
    /// applies nothing, a failing migration that changes nothing, a database newer than the migrations refused.
    case migrations
    /// `stream` reads a request's records and an `SQL` query's rows in order, on one snapshot, refusing writes; a
    /// loop left early gives its connection back; an error comes out of the loop.
    case stream
    /// Rows decode to the same values, and fail with the same errors, on every backend: integers, a narrow integer,
    /// a double, a bool, a string, a raw-value enum, a JSON array, optionals present, NULL and missing, a one-column
    /// row as a single value, a snake_case column listed as its camelCase key, `decodeNil(forKey:)`; NULL into a
    /// non-optional, a value out of range, a missing column; a storable type that is not `Decodable` read from a
    /// one-column row, NULL as nil, a value it refuses an `invalidValue` with its error underneath.
    case decoding
    /// Parameters bind the same values, and fail with the same errors, on every backend: a value no column can hold
    /// and a nested container in a parameter are `EncodingError`s naming the parameter (never the value) at its coding
    /// path, as is a value that encodes nothing (never NULL in its place), and `superEncoder()` binds the same
    /// statement.
    case encoding

    /// Rows a write returns that do not decode leave nothing written: an insert that reads its row back, and a
    /// statement with `RETURNING`, outside a write, inside one (whose failure fails the write even when the body
    /// catches it), and in a nested transaction (whose failure rolls back that transaction only).
    case writtenRowsThatDoNotDecode

    /// A `GeneratedRecord` (what `@Table` writes) read and bound by its generated code through `insert`, `update`,
    /// `insert(contentsOf:)`, `find`, `fetchAll` of the type, of a request and of SQL, with the values and the
    /// decoding errors of its `Codable` conformance.
    case generatedRecords

    /// A statement that breaks a constraint throws the same `DatabaseError.Code` on every backend
    /// (`.uniqueViolation`, `.foreignKeyViolation`, `.notNullViolation`, `.checkViolation`), writes nothing, and its
    /// error's description does not quote the bound values.
    case constraintErrors

    /// `observe` emits the current result at once, then the result after each commit that changes it, once: through
    /// `write`, `writeWithoutTransaction`, a batch insert, `updateAll` and `deleteAll`; a rolled-back write, a read
    /// and a commit to another table emit nothing; a burst of 1,000 commits ends on the last one's result; leaving
    /// the loop leaves the writer usable; closing the writer ends the loop. A backend that cannot see commits passes
    /// by refusing: `observe` throws its `DatabaseError` before any result.
    case observation

    public var description: String { rawValue }

    /// Runs the check on a fresh writer of `backend`, then closes and disposes of it.
    public func run<Backend: ConformanceBackend>(on backend: Backend) async throws {
        let writer = try await backend.makeWriter()
        do {
            try await run(on: writer, of: backend)
        } catch {
            await writer.close()
            await backend.dispose(writer)
            throw error
        }
        await writer.close()
        await backend.dispose(writer)
    }

    private func run<Backend: ConformanceBackend>(on writer: Backend.Writer, of backend: Backend) async throws {
        try await writer.writeWithoutTransaction { session in
            try await session.execute(
                """
                CREATE TABLE conformance_note (
                    \(raw: backend.assignedPrimaryKey("id")),
                    content TEXT NOT NULL UNIQUE,
                    mood TEXT NOT NULL,
                    score BIGINT NOT NULL)
                """)
        }
        switch self {
        case .designExample: try await Checks.designExample(writer)
        case .writeIsOneTransaction: try await Checks.writeIsOneTransaction(writer)
        case .failedStatementFailsTheWrite: try await Checks.failedStatementFailsTheWrite(writer)
        case .nestedTransactionContainsFailure: try await Checks.nestedTransactionContainsFailure(writer)
        case .readRefusesWrites: try await Checks.readRefusesWrites(writer)
        case .readSeesOneSnapshot:
            try await Checks.readSeesOneSnapshot(writer, concurrent: backend.readsRunBesideWrites)
        case .writeWithoutTransactionCommitsEachStatement:
            try await Checks.writeWithoutTransactionCommitsEachStatement(writer)
        case .suspendedWriteHoldsBackTheNextWrite:
            try await Checks.suspendedWriteHoldsBackTheNextWrite(writer, of: backend)
        case .records: try await Checks.records(writer)
        case .batchInsert: try await Checks.batchInsert(writer)
        case .requests: try await Checks.requests(writer)
        case .conditions: try await Checks.conditions(writer)
        case .joins: try await Checks.joins(writer, of: backend)
        case .sqlValues: try await Checks.sqlValues(writer)
        case .statementTexts: try await StatementTextChecks.run(writer)
        case .closeRefusesNewWork: try await Checks.closeRefusesNewWork(writer)
        case .migrations: try await Checks.migrations(writer)
        case .stream: try await Checks.stream(writer, concurrent: backend.readsRunBesideWrites)
        case .decoding: try await DecodingChecks.run(writer)
        case .encoding: try await EncodingChecks.run(writer)
        case .writtenRowsThatDoNotDecode: try await WrittenRowsChecks.run(writer)
        case .generatedRecords: try await GeneratedRecordChecks.run(writer, of: backend)
        case .constraintErrors: try await Checks.constraintErrors(writer)
        case .observation: try await ObservationChecks.run(writer, of: backend)
        }
    }
}

/// The record the checks write: a row of `conformance_note`.
struct ConformanceNote: Model, Equatable, Sendable {
    static let tableName = "conformance_note"
    var id: Int64?
    var content: String
    var mood: String
    var score: Int64
}

/// A tag of a ``ConformanceNote``: both tables have an `id` column.
struct ConformanceTag: Model, Equatable, Sendable {
    static let tableName = "conformance_tag"
    var id: Int64?
    var noteId: Int64
    var label: String

    enum CodingKeys: String, CodingKey {
        case id
        case noteId = "note_id"
        case label
    }
}

extension SQL.StringInterpolation {
    /// SQL text from the backend, spliced as it is: a column definition.
    mutating func appendInterpolation(raw text: String) {
        appendInterpolation(SQL(sql: text))
    }
}

/// The checks, each written once against the shared protocols.
private enum Checks {
    static func happyNotes(in db: some DatabaseReader) async throws -> [ConformanceNote] {
        try await db.read { session in
            try await session.fetchAll(ConformanceNote.filter(Column("mood") == "happy").order(Column("id")))
        }
    }

    static func save(_ note: ConformanceNote, in db: some DatabaseWriter) async throws -> ConformanceNote {
        try await db.write { session in
            var note = note
            try await session.insert(&note)
            return note
        }
    }

    static func count(in db: some DatabaseReader) async throws -> Int {
        try await db.read { session in try await session.fetchCount(ConformanceNote.all()) }
    }

    static func note(_ content: String, mood: String = "happy", score: Int64 = 1) -> ConformanceNote {
        ConformanceNote(id: nil, content: content, mood: mood, score: score)
    }

    static func designExample(_ pool: some DatabaseWriter) async throws {
        let first = try await save(note("first"), in: pool)
        let second = try await save(note("second", mood: "sad"), in: pool)
        let third = try await save(note("third"), in: pool)
        #expect(first.id != nil && second.id != nil && third.id != nil)
        #expect(Set([first.id, second.id, third.id]).count == 3)
        let notes = try await happyNotes(in: pool)
        #expect(notes == [first, third])
        let mood = "happy"
        let n: Int = try await pool.read { session in
            try await session.fetchOne(Int.self, "SELECT count(*) FROM conformance_note WHERE mood = \(mood)") ?? 0
        }
        #expect(n == 2)
    }

    struct Rollback: Error {}

    static func writeIsOneTransaction(_ pool: some DatabaseWriter) async throws {
        let content = try await pool.write { session in
            try await session.insert(note("kept"))
            return "kept"
        }
        #expect(content == "kept")
        await #expect(throws: Rollback.self) {
            try await pool.write { session in
                try await session.insert(note("dropped"))
                try await session.insert(note("dropped too"))
                throw Rollback()
            }
        }
        let contents = try await pool.read { session in
            try await session.fetchAll(ConformanceNote.self).map(\.content)
        }
        #expect(contents == ["kept"])
    }

    static func failedStatementFailsTheWrite(_ pool: some DatabaseWriter) async throws {
        _ = try await save(note("taken"), in: pool)
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.write { session in
                try await session.insert(note("new"))
                // The duplicate fails; catching its error does not make the write commit.
                do { try await session.insert(note("taken")) } catch {}
            }
        }
        #expect(error?.code == .uniqueViolation)
        #expect(try await count(in: pool) == 1)
    }

    static func nestedTransactionContainsFailure(_ pool: some DatabaseWriter) async throws {
        _ = try await save(note("taken"), in: pool)
        let caught = try await pool.write { session in
            try await session.insert(note("before"))
            var caught = false
            do {
                try await session.transaction { session in try await session.insert(note("taken")) }
            } catch let error as DatabaseError where error.code == .uniqueViolation {
                caught = true
            }
            try await session.insert(note("after"))
            return caught
        }
        #expect(caught)
        let contents = try await pool.read { session in
            try await session.fetchAll(ConformanceNote.order(Column("content"))).map(\.content)
        }
        #expect(contents == ["after", "before", "taken"])
    }

    static func readRefusesWrites(_ pool: some DatabaseWriter) async throws {
        let byStatement = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in
                try await session.execute(
                    "INSERT INTO conformance_note (content, mood, score) VALUES ('read', 'happy', 1)")
            }
        }
        #expect(byStatement?.code == .readOnly)
        let byRecord = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in try await session.insert(note("read")) }
        }
        #expect(byRecord?.code == .readOnly)
        #expect(try await count(in: pool) == 0)
    }

    static func readSeesOneSnapshot(_ pool: some DatabaseWriter, concurrent: Bool) async throws {
        _ = try await save(note("first"), in: pool)
        guard concurrent else { return }
        let counts = try await pool.read { session in
            let before = try await session.fetchCount(ConformanceNote.all())
            // Another connection commits while the read is open.
            _ = try await save(note("second"), in: pool)
            let after = try await session.fetchCount(ConformanceNote.all())
            return [before, after]
        }
        #expect(counts == [1, 1])
        #expect(try await count(in: pool) == 2)
    }

    static func writeWithoutTransactionCommitsEachStatement(_ pool: some DatabaseWriter) async throws {
        await #expect(throws: Rollback.self) {
            try await pool.writeWithoutTransaction { session in
                try await session.insert(note("committed at once"))
                throw Rollback()
            }
        }
        #expect(try await count(in: pool) == 1)
    }

    /// Write A updates a row and suspends; write B, which updates the same row, starts and waits (the backend says
    /// when it waits); A goes on, updates the row again and commits; then B runs, on what A committed.
    ///
    /// Each update appends a digit to the score, so the final score is the order the updates ran in: 123 when B
    /// waited for A; 132 when B's update slipped between A's two.
    static func suspendedWriteHoldsBackTheNextWrite<Backend: ConformanceBackend>(
        _ pool: Backend.Writer, of backend: Backend
    ) async throws {
        _ = try await save(note("counter", score: 0), in: pool)
        let (held, holding) = AsyncStream<Void>.makeStream()
        let (proceed, proceeding) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await pool.write { session in
                try await session.execute(
                    "UPDATE conformance_note SET score = score * 10 + 1 WHERE content = 'counter'")
                holding.yield()
                // Suspended, holding the write, until the second write waits.
                for await _ in proceed { break }
                try await session.execute(
                    "UPDATE conformance_note SET score = score * 10 + 2 WHERE content = 'counter'")
            }
        }
        for await _ in held { break }
        // The marker names the second write's statement, for a backend that finds its waiting statements by text.
        let marker = "strata-conformance-held-\(UInt64.random(in: 0...UInt64.max))"
        let second = Task {
            try await pool.write { session in
                try await session.execute(
                    """
                    /* \(raw: marker) */ UPDATE conformance_note SET score = score * 10 + 3
                    WHERE content = 'counter'
                    """)
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(hangBound)
        var waits = try await backend.writeWaits(on: pool, marker: marker)
        while !waits && clock.now < deadline {
            await Task.yield()
            waits = try await backend.writeWaits(on: pool, marker: marker)
        }
        #expect(waits, "the second write did not wait for the suspended one")
        proceeding.yield()
        try await first.value
        try await second.value
        let score = try await pool.read { session in
            try await session.fetchOne(Int64.self, "SELECT score FROM conformance_note WHERE content = 'counter'")
        }
        #expect(score == 123)
    }

    static func records(_ pool: some DatabaseWriter) async throws {
        var ada = note("ada", score: 10)
        try await pool.write { session in
            try await session.insert(&ada)
        }
        let id = try #require(ada.id)
        #expect(try await pool.read { session in try await session.find(ConformanceNote.self, id: id) } == ada)

        ada.score = 11
        try await pool.write { session in try await session.update(ada) }
        var grace = note("grace", mood: "sad")
        try await pool.write { session in
            try await session.upsert(&grace)
            var changed = ada
            changed.mood = "calm"
            try await session.upsert(&changed)
        }
        var kept = grace
        kept.score = 5
        try await pool.write { session in try await session.upsert(kept) }
        let all = try await pool.read { session in try await session.fetchAll(ConformanceNote.self) }
        #expect(all.count == 2)
        #expect(all.first { $0.id == grace.id }?.score == 5)
        let stored = try await pool.read { session in try await session.find(ConformanceNote.self, id: id) }
        #expect(stored?.score == 11)
        #expect(stored?.mood == "calm")

        let missing = ConformanceNote(id: id + 1000, content: "nobody", mood: "sad", score: 0)
        await #expect(throws: DatabaseError.self) {
            try await pool.write { session in try await session.update(missing) }
        }
        let deleted = try await pool.write { session in
            [
                try await session.delete(ada),
                try await session.delete(ConformanceNote.self, id: id),
                try await session.delete(ConformanceNote.self, id: try #require(grace.id)),
            ]
        }
        #expect(deleted == [true, false, true])
        #expect(try await count(in: pool) == 0)
    }

    static func batchInsert(_ pool: some DatabaseWriter) async throws {
        var notes = [note("one"), note("two"), note("three")]
        try await pool.write { session in try await session.insert(contentsOf: &notes) }
        #expect(notes.allSatisfy { $0.id != nil })
        #expect(Set(notes.map(\.id)).count == 3)

        var failing = [note("four"), note("two"), note("five")]
        let kept = failing
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.write { session in try await session.insert(contentsOf: &failing) }
        }
        #expect(error?.elementIndex == 1)
        #expect(error?.code == .uniqueViolation)
        #expect(failing == kept)
        #expect(try await count(in: pool) == 3)

        var empty: [ConformanceNote] = []
        try await pool.write { session in try await session.insert(contentsOf: &empty) }
        #expect(try await count(in: pool) == 3)
    }

    static func requests(_ pool: some DatabaseWriter) async throws {
        var notes = (1...6).map { note("note \($0)", mood: $0.isMultiple(of: 2) ? "happy" : "sad", score: Int64($0)) }
        try await pool.write { session in try await session.insert(contentsOf: &notes) }
        let scores = try await pool.read { session in
            try await session.fetchAll(
                ConformanceNote.filter(Column("mood") == "happy").order(Column("score").desc).limit(2)
            ).map(\.score)
        }
        #expect(scores == [6, 4])
        let first = try await pool.read { session in
            try await session.fetchOne(ConformanceNote.order(Column("score")))
        }
        #expect(first?.score == 1)
        let happy = try await pool.read { session in
            try await session.fetchCount(ConformanceNote.filter(Column("mood") == "happy"))
        }
        #expect(happy == 3)
        let none = try await pool.read { session in
            try await session.fetchAll(ConformanceNote.filter([Int64]().contains(Column("score"))))
        }
        #expect(none.isEmpty)

        let updated = try await pool.write { session in
            try await session.updateAll(ConformanceNote.filter(Column("mood") == "sad"), Column("mood").set(to: "calm"))
        }
        #expect(updated == 3)
        let deleted = try await pool.write { session in
            try await session.deleteAll(ConformanceNote.filter(Column("score") > 4))
        }
        #expect(deleted == 2)
        let moods = try await pool.read { session in
            try await session.fetchAll(ConformanceNote.order(Column("score"))).map(\.mood)
        }
        #expect(moods == ["calm", "happy", "calm", "happy"])
    }

    static func conditions(_ pool: some DatabaseWriter) async throws {
        var notes = (1...4).map { note("note \($0)", mood: $0 > 2 ? "happy" : "sad", score: Int64($0)) }
        try await pool.write { session in try await session.insert(contentsOf: &notes) }
        let (happy, first, count, all) = try await pool.read { session in
            (
                try await session.fetchAll(
                    ConformanceNote.self, where: "mood = :mood", parameters: ["mood": "happy"]
                ).map(\.score),
                try await session.fetchOne(ConformanceNote.self, where: "score > ?", parameters: [Int64(1)])?.score,
                try await session.count(ConformanceNote.self, where: "mood = :mood", parameters: ["mood": "sad"]),
                try await session.count(ConformanceNote.self, where: nil, parameters: [:])
            )
        }
        #expect(happy == [3, 4])
        #expect(first == 2)
        #expect(count == 2)
        #expect(all == 4)

        // The same calls without parameters, as generic code writes them.
        let (plain, plainFirst, total, big) = try await pool.read { session in
            (
                try await session.fetchAll(ConformanceNote.self, where: "score >= 3").map(\.score),
                try await session.fetchOne(ConformanceNote.self, where: "mood = 'sad'")?.score,
                try await session.count(ConformanceNote.self),
                try await session.count(ConformanceNote.self, where: "score > 1")
            )
        }
        #expect(plain == [3, 4])
        #expect(plainFirst == 1)
        #expect(total == 4)
        #expect(big == 3)

        // A request's raw condition written with interpolation binds its values: a hostile one matches nothing.
        let mood = "happy"
        let hostile = "happy' OR '1' = '1"
        let minimum: Int64 = 2
        let (interpolated, none, joined, expression) = try await pool.read { session in
            (
                try await session.fetchAll(
                    ConformanceNote.filter("mood = \(mood) AND score > \(minimum)").order(Column("score"))
                ).map(\.score),
                try await session.fetchCount(ConformanceNote.filter("mood = \(hostile)")),
                try await session.fetchCount(
                    ConformanceNote.all().filter("score < \(minimum + 1)").filter("mood = 'sad'")),
                try await session.fetchCount(
                    ConformanceNote.filter(SQLExpression("score >= \(minimum)") && Column("mood") == mood))
            )
        }
        // A value interpolated inside quotes would be read as text there, never compared: refused, not run.
        let quoted = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in try await session.fetchCount(ConformanceNote.filter("mood = '\(hostile)'"))
            }
        }
        #expect(quoted?.code == .invalidArgument)
        #expect(quoted?.description.contains("quoted string") == true)
        #expect(quoted?.description.contains(hostile) == false)
        #expect(interpolated == [3, 4])
        #expect(none == 0)
        #expect(joined == 2)
        #expect(expression == 2)

        // `where:` written with interpolation is SQL too: its values are bound, never spliced into the text.
        let (whereAll, whereOne, whereCount, whereHostile) = try await pool.read { session in
            (
                try await session.fetchAll(ConformanceNote.self, where: "mood = \(mood) AND score > \(minimum)")
                    .map(\.score),
                try await session.fetchOne(ConformanceNote.self, where: "score > \(minimum)")?.score,
                try await session.count(ConformanceNote.self, where: "mood = \(mood)"),
                try await session.fetchAll(ConformanceNote.self, where: "mood = \(hostile)").count
            )
        }
        #expect(whereAll == [3, 4])
        #expect(whereOne == 3)
        #expect(whereCount == 2)
        #expect(whereHostile == 0)
    }

    static func joins<Backend: ConformanceBackend>(_ pool: Backend.Writer, of backend: Backend) async throws {
        try await pool.writeWithoutTransaction { session in
            try await session.execute(
                """
                CREATE TABLE conformance_tag (
                    \(raw: backend.assignedPrimaryKey("id")), note_id BIGINT NOT NULL, label TEXT NOT NULL)
                """)
        }
        var notes = (1...3).map { note("note \($0)", score: Int64($0)) }
        try await pool.write { session in
            try await session.insert(contentsOf: &notes)
            // Tag ids start past the notes', so that a record reading the other table's `id` shows.
            for (id, note, label) in [(Int64(11), notes[0], "a"), (12, notes[0], "b"), (13, notes[1], "c")] {
                try await session.insert(ConformanceTag(id: id, noteId: note.id ?? 0, label: label))
            }
        }
        let noteID = Column("id", table: ConformanceNote.self)
        let tagID = Column("id", table: ConformanceTag.self)
        let tagNote = Column("note_id", table: ConformanceTag.self)
        let (joined, left, written, selfJoined) = try await pool.read { session in
            (
                try await session.fetchAll(
                    ConformanceNote.joining(ConformanceTag.self, on: tagNote == noteID).order(tagID)),
                try await session.fetchAll(
                    ConformanceNote.leftJoining(ConformanceTag.self, on: tagNote == noteID).order(noteID, tagID)),
                try await session.fetchAll(
                    ConformanceNote.self, ConformanceTag.self,
                    """
                    SELECT conformance_note.*, conformance_tag.* FROM conformance_note
                        JOIN conformance_tag ON conformance_tag.note_id = conformance_note.id
                        WHERE conformance_tag.label <> \("b") ORDER BY conformance_tag.id
                    """),
                try await session.fetchAll(
                    ConformanceNote.self, ConformanceNote.self,
                    """
                    SELECT a.*, b.* FROM conformance_note a JOIN conformance_note b ON b.score = a.score + 1
                        ORDER BY a.score
                    """)
            )
        }
        #expect(joined.map { [$0.0.content, $0.1.label] } == [["note 1", "a"], ["note 1", "b"], ["note 2", "c"]])
        #expect(joined.map(\.1.id) == [11, 12, 13])
        #expect(joined.map(\.0.id) == [notes[0].id, notes[0].id, notes[1].id])
        #expect(
            left.map { [$0.0.content, $0.1?.label ?? "-"] } == [
                ["note 1", "a"], ["note 1", "b"], ["note 2", "c"], ["note 3", "-"],
            ])
        #expect(written.map { [$0.0.content, $0.1.label] } == [["note 1", "a"], ["note 2", "c"]])
        #expect(written.map(\.1.id) == [11, 13])
        #expect(written.map(\.0.id) == [notes[0].id, notes[1].id])
        #expect(selfJoined.map { [$0.0.score, $0.1.score] } == [[1, 2], [2, 3]])
        #expect(selfJoined.map { [$0.0.id, $0.1.id] } == [[notes[0].id, notes[1].id], [notes[1].id, notes[2].id]])

        // A record whose table has no columns in the row is named, not read from the other table's columns.
        let missing = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in
                try await session.fetchAll(
                    ConformanceNote.self, ConformanceTag.self, "SELECT conformance_note.* FROM conformance_note")
            }
        }
        #expect(missing?.code == .unknownColumn)
        #expect(missing?.description.contains("conformance_tag") == true)
    }

    static func constraintErrors(_ pool: some DatabaseWriter) async throws {
        try await pool.writeWithoutTransaction { session in
            try await session.execute("CREATE TABLE conformance_parent (id BIGINT PRIMARY KEY)")
            try await session.execute(
                """
                CREATE TABLE conformance_child (
                    id BIGINT PRIMARY KEY,
                    parent BIGINT NOT NULL REFERENCES conformance_parent (id),
                    amount BIGINT CHECK (amount >= 0))
                """)
            try await session.execute("INSERT INTO conformance_parent (id) VALUES (1)")
        }
        var first = note("secret-content-4242")
        try await pool.write { session in try await session.insert(&first) }

        let secret: Int64 = 987_654_321
        let cases: [(DatabaseError.Code, SQL)] = [
            (.uniqueViolation, "INSERT INTO conformance_note (content, mood, score) VALUES (\(first.content), 'x', 1)"),
            (.foreignKeyViolation, "INSERT INTO conformance_child (id, parent, amount) VALUES (1, \(secret), 1)"),
            (.notNullViolation, "INSERT INTO conformance_child (id, parent, amount) VALUES (\(secret), NULL, 1)"),
            (.checkViolation, "INSERT INTO conformance_child (id, parent, amount) VALUES (2, 1, \(-secret))"),
        ]
        for (code, sql) in cases {
            let error = await #expect(throws: DatabaseError.self, "\(code)") {
                try await pool.write { session in try await session.execute(sql) }
            }
            #expect(error?.code == code)
            let description = error.map { String(describing: $0) } ?? ""
            #expect(!description.contains("4242"), "\(code): \(description)")
            #expect(!description.contains("987654321"), "\(code): \(description)")
        }
        let children = try await pool.read { session in
            try await session.fetchOne(Int.self, "SELECT count(*) FROM conformance_child")
        }
        #expect(children == 0)
        #expect(try await count(in: pool) == 1)
    }

    static func sqlValues(_ pool: some DatabaseWriter) async throws {
        let content = "Robert'); DROP TABLE conformance_note; --"
        let mood = "happy"
        let score: Int64 = 7
        try await pool.write { session in
            try await session.execute(
                "INSERT INTO conformance_note (content, mood, score) VALUES (\(content), \(mood), \(score))")
        }
        let table = "conformance_note"
        let stored = try await pool.read { session in
            try await session.fetchOne(String.self, "SELECT content FROM \(identifier: table) WHERE score = \(score)")
        }
        #expect(stored == content)
        let named = try await pool.read { session in
            try await session.fetchAll(
                ConformanceNote.self,
                SQL(sql: "SELECT * FROM conformance_note WHERE mood = :mood", parameters: ["mood": "happy"]))
        }
        #expect(named.map(\.content) == [content])

        // A name with a double quote and a space is quoted, not spliced.
        let odd = "conformance \"odd\" name"
        let oddRows = try await pool.write { session in
            try await session.execute("CREATE TABLE \(identifier: odd) (\(identifier: odd) TEXT)")
            try await session.execute("INSERT INTO \(identifier: odd) VALUES (\(content))")
            return try await session.fetchAll(String.self, "SELECT \(identifier: odd) FROM \(identifier: odd)")
        }
        #expect(oddRows == [content])
    }

    static func migrations(_ pool: some DatabaseWriter) async throws {
        var migrator = Migrator()
        try migrator.register(
            version: 1, name: "create tag", sql: "CREATE TABLE conformance_tag (id BIGINT PRIMARY KEY, name TEXT)")
        try migrator.register(
            version: 2, name: "fill tag",
            sql: """
                INSERT INTO conformance_tag (id, name) VALUES (1, 'one');
                INSERT INTO conformance_tag (id, name) VALUES (2, 'two')
                """)
        let before = try await migrator.status(of: pool)
        #expect(before.currentVersion == 0 && before.latestVersion == 2)
        #expect(before.applied == [] && before.pending == [1, 2] && before.history == [])
        #expect(try await migrator.pendingMigrations(for: pool).map(\.version) == [1, 2])
        #expect(try await migrator.pendingMigrations(for: pool, to: 1).map(\.identifier) == ["0001_create tag"])

        #expect(try await migrator.migrate(pool, to: 1) == [1])
        let first = try await migrator.status(of: pool)
        #expect(first.currentVersion == 1 && first.applied == [1] && first.pending == [2])
        #expect(first.history.map(\.name) == ["0001_create tag"])
        #expect(first.history.first?.appliedAt != nil && first.history.first?.checksum == nil)
        #expect(try await migrator.pendingMigrations(for: pool).map(\.version) == [2])
        #expect(try await migrator.migrate(pool, to: 1) == [])

        #expect(try await migrator.migrate(pool) == [2])
        let status = try await migrator.status(of: pool)
        #expect(status.currentVersion == 2 && status.applied == [1, 2] && status.pending == [] && status.isUpToDate)
        #expect(status.history.map(\.version) == [1, 2])
        let names = try await pool.read { session in
            try await session.fetchAll(String.self, "SELECT name FROM conformance_tag ORDER BY id")
        }
        #expect(names == ["one", "two"])
        // A re-run is a no-op.
        #expect(try await migrator.migrate(pool) == [])
        #expect(try await migrator.pendingMigrations(for: pool).isEmpty)

        // A failing migration changes nothing: its first statement rolls back with its version bump.
        var failing = migrator
        try failing.register(
            version: 3, name: "half done",
            sql: """
                INSERT INTO conformance_tag (id, name) VALUES (3, 'three');
                INSERT INTO conformance_tag (id, name) VALUES (1, 'duplicate')
                """)
        let error = await #expect(throws: DatabaseError.self) { try await failing.migrate(pool) }
        #expect(error?.code == .migration)
        #expect(error?.message.hasPrefix("migration 3 \"half done\" failed: ") == true, "\(String(describing: error))")
        #expect(try await failing.status(of: pool).currentVersion == 2)
        let count = try await pool.read { session in
            try await session.fetchOne(Int.self, "SELECT count(*) FROM conformance_tag")
        }
        #expect(count == 2)

        // A database newer than the migrations is refused, and reported by status.
        var older = Migrator()
        try older.register(
            version: 1, name: "create tag", sql: "CREATE TABLE conformance_tag (id BIGINT PRIMARY KEY, name TEXT)")
        let newer = await #expect(throws: DatabaseError.self) { try await older.migrate(pool) }
        #expect(
            newer?.message.contains("the database is at version 2, newer than the latest migration known here") == true)
        #expect(try await older.status(of: pool).missing == [2])
    }

    static func closeRefusesNewWork(_ pool: some DatabaseWriter) async throws {
        _ = try await save(note("before"), in: pool)
        #expect(!pool.isClosed)
        await pool.close()
        #expect(pool.isClosed)
        let error = await #expect(throws: DatabaseError.self) {
            try await pool.read { session in try await session.fetchCount(ConformanceNote.all()) }
        }
        #expect(error?.code == .connectionClosed)
        await pool.close()
    }

    static func stream(_ pool: some DatabaseWriter, concurrent: Bool) async throws {
        let inserted = try await pool.write { session in
            var notes = (1...300).map { note("note \($0)", mood: $0 % 2 == 0 ? "happy" : "sad", score: Int64($0)) }
            try await session.insert(contentsOf: &notes)
            return notes
        }
        // A request's records, in its order, over several batches.
        var happy: [ConformanceNote] = []
        for try await note in pool.stream(ConformanceNote.filter(Column("mood") == "happy").order(Column("id"))) {
            happy.append(note)
        }
        #expect(happy == inserted.filter { $0.mood == "happy" })
        // An SQL value's rows as a scalar, its interpolated value bound.
        let minimum: Int64 = 250
        var scores: [Int64] = []
        for try await score in pool.stream(
            Int64.self, "SELECT score FROM conformance_note WHERE score > \(minimum) ORDER BY score")
        {
            scores.append(score)
        }
        #expect(scores == Array(251...300))
        // One snapshot: what commits once the iteration began is not seen. Only where a write runs beside a read: a
        // queue's write would wait for the loop.
        if concurrent {
            var seen = 0
            for try await _ in pool.stream(ConformanceNote.order(Column("id"))) {
                if seen == 0 { _ = try await save(note("during the stream"), in: pool) }
                seen += 1
            }
            #expect(seen == 300)
        }
        let total = concurrent ? 301 : 300
        // A loop left early gives the connection back: a write and a read run after it.
        var taken = 0
        for try await _ in pool.stream(ConformanceNote.order(Column("id"))) {
            taken += 1
            if taken == 3 { break }
        }
        #expect(taken == 3)
        _ = try await save(note("after the stream"), in: pool)
        #expect(try await count(in: pool) == total + 1)
        // Errors come out of the loop: a query the database rejects, and a write, which a stream refuses.
        await #expect(throws: (any Error).self) {
            for try await _ in pool.stream(Int64.self, "SELECT no_such_column FROM conformance_note") {}
        }
        await #expect(throws: (any Error).self) {
            for try await _ in pool.stream(
                Int64.self, "INSERT INTO conformance_note (content, mood, score) VALUES ('x', 'y', 1) RETURNING score")
            {}
        }
        #expect(try await count(in: pool) == total + 1)
    }
}
