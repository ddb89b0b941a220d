import Foundation
import StrataCore
import StrataPostgres
import StrataTesting
import Testing

/// What only PostgreSQL's observation does (the shared behaviour is the conformance check `observation`): the notify
/// triggers and their helper, the refusal of a table without one, the listening connection that comes back.
@Suite(
    "PostgreSQL observation: notify triggers, tables without them refused, a listener that reconnects", .postgresServer)
struct PostgresObservationTests {
    /// The notes an observation emitted, appended from its task, and the error that ended it, if one did.
    private final class Emitted: Sendable {
        private let values = LockedBox<[Int]>([])
        private let failure = LockedBox<(any Error)?>(nil)

        func append(_ value: Int) { values.update { $0.append(value) } }

        func end(with error: any Error) { failure.set(error) }

        var all: [Int] { values.get() }

        /// Waits until the last value is `expected`, failing after 30 seconds (a bound for a broken observation), or
        /// at once with the error that ended the observation.
        func wait(forLast expected: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            try await within(hangBound, "the observation's value \(expected)", sourceLocation: sourceLocation) {
                while self.all.last != expected {
                    if let error = self.failure.get() {
                        Issue.record(
                            "the observation ended, its values \(self.all): \(error)", sourceLocation: sourceLocation)
                        throw error
                    }
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        }
    }

    /// Observes the number of notes of `pool` into the returned log, until the task is cancelled; an error that ends
    /// the observation is kept in the log, for its waits to report.
    private func observeCount(_ pool: PostgresPool) -> (Emitted, Task<Void, any Error>) {
        let emitted = Emitted()
        let task = Task {
            do {
                for try await count in pool.observe({ db in try await db.fetchCount(Note.all()) }) {
                    emitted.append(count)
                }
            } catch {
                if !(error is CancellationError) { emitted.end(with: error) }
                throw error
            }
        }
        return (emitted, task)
    }

    /// Creates the notes table of `pool` with its notify trigger.
    private func createObservedNotes(in pool: PostgresPool) async throws {
        try await pool.write { db in
            try await db.execute(SQL(sql: Note.createTable))
            try await db.installObservationTriggers(on: ["note"])
        }
    }

    private func insertNote(_ pool: PostgresPool, _ content: String) async throws {
        try await pool.write { db in
            var note = Note(id: nil, createdAt: Date(timeIntervalSince1970: 0), content: content, mood: "happy")
            try await db.insert(&note)
        }
    }

    @Test("a read of a table without the notify trigger is refused, naming the table, before any result")
    func untriggeredTableIsRefused() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(SQL(sql: Note.createTable))
                try await db.execute("CREATE TABLE tag (id bigint PRIMARY KEY)")
            }
            // No trigger anywhere in the schema yet.
            let none = try await refusal(observingNotesOf: pool)
            #expect(
                none.contains("no strata_tables_read() function") && none.contains("registerObservationTriggers"),
                "\(none)")
            // A trigger on another table: the one read is named.
            try await pool.write { db in try await db.installObservationTriggers(on: ["tag"]) }
            let other = try await refusal(observingNotesOf: pool)
            #expect(other.contains("cannot observe note") && other.contains("registerObservationTriggers"), "\(other)")
            // A disabled trigger tells of nothing: refused too.
            try await pool.write { db in
                try await db.installObservationTriggers(on: ["note"])
                try await db.execute("ALTER TABLE note DISABLE TRIGGER strata_observation")
            }
            #expect(try await refusal(observingNotesOf: pool).contains("cannot observe note"))
            // With the trigger, the same read is followed.
            try await pool.write { db in try await db.execute("ALTER TABLE note ENABLE TRIGGER strata_observation") }
            for try await count in pool.observe({ db in try await db.fetchCount(Note.all()) }) {
                #expect(count == 0)
                break
            }
        }
    }

    /// The message of the error an observation of the notes of `pool` throws, which must come before any result.
    private func refusal(observingNotesOf pool: PostgresPool) async throws -> String {
        let emitted = Emitted()
        let error = await #expect(throws: DatabaseError.self) {
            for try await count in pool.observe({ db in try await db.fetchCount(Note.all()) }) {
                emitted.append(count)
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(emitted.all.isEmpty)
        return error?.description ?? ""
    }

    @Test("a partitioned table is followed through its partitions, written through it or into one of them")
    func partitionedTable() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute("CREATE TABLE event (id bigint NOT NULL, at int NOT NULL) PARTITION BY RANGE (at)")
                try await db.execute("CREATE TABLE event_early PARTITION OF event FOR VALUES FROM (0) TO (100)")
                try await db.execute("CREATE TABLE event_late PARTITION OF event FOR VALUES FROM (100) TO (200)")
                try await db.installObservationTriggers(on: ["event_early", "event_late"])
            }
            let count: @Sendable (PostgresSession) async throws -> Int = { db in
                try await db.fetchOne(Int.self, "SELECT count(*) FROM event") ?? -1
            }
            // The partitions have the trigger, not the table they are partitions of, which the rows written through
            // it would go unseen: refused.
            let refusal = await #expect(throws: DatabaseError.self) {
                for try await _ in pool.observe(count) {}
            }
            #expect(
                refusal?.description.contains("each table it is a partition of") == true,
                "\(String(describing: refusal))")
            try await pool.write { db in try await db.installObservationTriggers(on: ["event"]) }
            let emitted = Emitted()
            let observing = Task {
                for try await value in pool.observe(count) { emitted.append(value) }
            }
            defer { observing.cancel() }
            try await emitted.wait(forLast: 0)
            try await pool.write { db in try await db.execute("INSERT INTO event VALUES (1, 5)") }
            try await emitted.wait(forLast: 1)
            try await pool.write { db in try await db.execute("INSERT INTO event_late VALUES (2, 150)") }
            try await emitted.wait(forLast: 2)
            #expect(emitted.all == [0, 1, 2])
        }
    }

    @Test("the migration helper installs the triggers; another client's commit is then seen")
    func migrationHelperInstallsTriggers() async throws {
        try await PostgresTestServer.withPool(applicationName: "strata-observe-\(UUID())") { pool in
            var migrator = Migrator()
            try migrator.register(version: 1, name: "create note", sql: Note.createTable)
            try migrator.registerObservationTriggers(version: 2, tables: ["note"])
            #expect(try await migrator.migrate(pool) == [1, 2])
            let triggers = try await pool.read { db in
                try await db.fetchAll(
                    String.self,
                    "SELECT tgname::text FROM pg_trigger WHERE tgrelid = 'note'::regclass AND NOT tgisinternal")
            }
            #expect(triggers == [PostgresObservation.triggerName])

            let (emitted, observing) = observeCount(pool)
            defer { observing.cancel() }
            try await emitted.wait(forLast: 0)
            // Another client: a pool of its own on the same schema.
            let schema = try #require(
                try await pool.read { db in try await db.fetchOne(String.self, "SELECT current_schema()") })
            let other = try PostgresPool(
                url: try PostgresTestServer.adding(
                    "options", "-c search_path=\(schema)", to: PostgresTestServer.requireURL()),
                connections: 1)
            try await insertNote(other, "from another client")
            await other.close()
            try await emitted.wait(forLast: 1)
        }
    }

    @Test("a listening connection the server ends is opened again, and a commit made meanwhile is seen")
    func terminatedListenerReconnects() async throws {
        let name = "strata-observe-\(UUID())"
        // A database of its own: notifications are per database, so no other test's commit makes the observation read
        // again and hide a commit the pool missed.
        try await withPrivateDatabase(applicationName: name) { pool in
            try await createObservedNotes(in: pool)
            let (emitted, observing) = observeCount(pool)
            defer { observing.cancel() }
            try await emitted.wait(forLast: 0)
            let first = try await listeners(named: name, on: pool)
            try #require(first.count == 1, "one connection listens: \(first)")
            let terminated = try await pool.write { db in
                try await db.fetchOne(Bool.self, "SELECT pg_terminate_backend(\(first[0])::integer)")
            }
            #expect(terminated == true)
            // Committed while no connection may listen: the read after the new LISTEN sees it.
            try await insertNote(pool, "while the listener is away")
            try await emitted.wait(forLast: 1)
            let second = try await within(hangBound, "a new listening connection") {
                while true {
                    let now = try await listeners(named: name, on: pool)
                    if now.count == 1, now != first { return now }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(second != first)
            try await insertNote(pool, "heard by the new connection")
            try await emitted.wait(forLast: 2)
        }
    }

    @Test("leaving the loop closes the listening connection; a new observation opens one")
    func leavingClosesListener() async throws {
        let name = "strata-observe-\(UUID())"
        try await PostgresTestServer.withPool(applicationName: name) { pool in
            try await createObservedNotes(in: pool)
            for try await count in pool.observe({ db in try await db.fetchCount(Note.all()) }) {
                #expect(count == 0)
                #expect(try await listeners(named: name, on: pool).count == 1)
                break
            }
            try await within(hangBound, "the listening connection's close") {
                while try await !listeners(named: name, on: pool).isEmpty {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let (emitted, observing) = observeCount(pool)
            defer { observing.cancel() }
            try await emitted.wait(forLast: 0)
            try await insertNote(pool, "after a new LISTEN")
            try await emitted.wait(forLast: 1)
        }
    }

    @Test("observations that come and go share one listening connection, kept a few seconds after the last ends")
    func listeningConnectionOutlivesAnObservation() async throws {
        let name = "strata-observe-\(UUID())"
        try await PostgresTestServer.withPool(applicationName: name) { pool in
            try await createObservedNotes(in: pool)
            var first: [Int32] = []
            for try await count in pool.observe({ db in try await db.fetchCount(Note.all()) }) {
                #expect(count == 0)
                first = try await listeners(named: name, on: pool)
                break
            }
            let ended = ContinuousClock.now
            try #require(first.count == 1, "one connection listens: \(first)")
            // Longer than the look-out takes to see that nothing listens: the connection is still there, unless the
            // five seconds it stays for have passed (a slow, loaded run).
            try await Task.sleep(for: .seconds(2))
            let later = try await listeners(named: name, on: pool)
            let elapsed = ContinuousClock.now - ended
            #expect(later == first || elapsed >= .seconds(5), "the connection closed \(elapsed) after the observation")
            // The next observation hears commits, through that connection or a new one.
            let (emitted, observing) = observeCount(pool)
            defer { observing.cancel() }
            try await emitted.wait(forLast: 0)
            try await insertNote(pool, "heard by the next observation")
            try await emitted.wait(forLast: 1)
        }
    }

    @Test("with replicas, an observation reads on the primary, which its notifications come from")
    func observationReadsOnThePrimary() async throws {
        try await PostgresTestServer.withPool(replicaNames: ["strata-replica"]) { pool in
            try await createObservedNotes(in: pool)
            for try await application in pool.observe({ db in
                try await db.fetchOne(String.self, "SELECT current_setting('application_name')")
            }) {
                #expect(application == "strata-primary")
                break
            }
            let plainRead = try await pool.read { db in
                try await db.fetchOne(String.self, "SELECT current_setting('application_name')")
            }
            #expect(plainRead == "strata-replica")
        }
    }

    @Test("the trigger SQL quotes each table's name, and refuses no table or a NUL character")
    func triggerSQLOfBadNames() throws {
        let sql = try PostgresObservation.triggerSQL(for: ["note", "odd \"name\""])
        #expect(sql.contains(#"ON "note""#))
        #expect(sql.contains(#"ON "odd ""name""""#))
        #expect(sql.contains("pg_notify('strata_commits'"))
        let none = #expect(throws: DatabaseError.self) { try PostgresObservation.triggerSQL(for: []) }
        #expect(none?.code == .invalidArgument)
        let nul = #expect(throws: DatabaseError.self) { try PostgresObservation.triggerSQL(for: ["no\u{0}te"]) }
        #expect(nul?.code == .invalidArgument)
        var migrator = Migrator()
        #expect(throws: DatabaseError.self) { try migrator.registerObservationTriggers(version: 1, tables: []) }
        #expect(migrator.migrations.isEmpty)
    }

    /// Runs `body` with a pool on a new database of the test server, dropped afterwards.
    private func withPrivateDatabase(
        applicationName: String, _ body: @Sendable (PostgresPool) async throws -> Void
    ) async throws {
        let url = try PostgresTestServer.requireURL()
        let database = "strata_observe_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresPool(url: url, connections: 1)
        try await admin.writeWithoutTransaction { db in try await db.execute("CREATE DATABASE \(identifier: database)")
        }
        var components = try #require(URLComponents(string: url))
        components.path = "/" + database
        let pool = try PostgresPool(
            url: try PostgresTestServer.adding(
                "application_name", applicationName, to: try #require(components.string)),
            connections: 2)
        let result: Result<Void, any Error>
        do {
            result = .success(try await body(pool))
        } catch {
            result = .failure(error)
        }
        await pool.close()
        try await admin.writeWithoutTransaction { db in
            try await db.execute("DROP DATABASE \(identifier: database) WITH (FORCE)")
        }
        await admin.close()
        try result.get()
    }

    /// The server processes of the connections named `name` that run `LISTEN`.
    private func listeners(named name: String, on pool: PostgresPool) async throws -> [Int32] {
        try await pool.write { db in
            try await db.fetchAll(
                Int32.self,
                """
                SELECT pid FROM pg_stat_activity
                WHERE application_name = \(name) AND query LIKE 'LISTEN %' ORDER BY pid
                """)
        }
    }
}
