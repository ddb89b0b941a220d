import Foundation
import StrataCore
import StrataTesting
import Testing

@testable import Strata

/// What the conformance suite (check `observation`) cannot see from outside a backend: that an observation stops
/// listening when its loop ends, which commits SQLite's commit hook reports, and the writes only SQLite has.
@Suite("Observation on SQLite: commits through the pool or queue", .timeLimit(.minutes(2)))
struct ObservationTests {
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case pool, queue
        var testDescription: String { rawValue }
    }

    struct Item: Model, Equatable, Sendable {
        static let tableName = "item"
        var id: Int64?
        var name: String
    }

    /// Runs `body` with a fresh pool or file queue holding an empty `item` table.
    func withWriter(
        _ kind: Writer, otherProcessCheckInterval: Duration? = .milliseconds(100),
        _ body: (any DatabaseWriter<Database>, () -> Int) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed.sqlite")
        let writer: any DatabaseWriter<Database>
        let listeners: () -> Int
        switch kind {
        case .pool:
            let pool = try DatabasePool(path: path, readers: 2, otherProcessCheckInterval: otherProcessCheckInterval)
            writer = pool
            listeners = { pool.commitListenerCount }
        case .queue:
            let queue = try DatabaseQueue(path: path, otherProcessCheckInterval: otherProcessCheckInterval)
            writer = queue
            listeners = { queue.commitListenerCount }
        }
        try await writer.write { db in try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)") }
        do {
            try await body(writer, listeners)
        } catch {
            await writer.close()
            throw error
        }
        await writer.close()
        withExtendedLifetime(directory) {}
    }

    /// Waits until `condition` holds, polling; fails after `hangBound` seconds.
    func eventually(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(hangBound)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what) did not happen within \(hangBound) s", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("leaving the loop, or cancelling its task, stops listening for commits", arguments: Writer.allCases)
    func endingStopsListening(_ kind: Writer) async throws {
        try await withWriter(kind) { writer, listeners in
            #expect(listeners() == 0)
            for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                #expect(count == 0)
                #expect(listeners() == 1)
                break
            }
            try await eventually("the loop's listener going away") { listeners() == 0 }
            let seen = LockedValue<[Int]>([])
            let task = Task {
                for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                    seen.withLock { $0.append(count) }
                }
            }
            try await eventually("the first result") { seen.withLock { $0 } == [0] }
            task.cancel()
            _ = await task.result
            try await eventually("the cancelled task's listener going away") { listeners() == 0 }
            // The writer still works, and nothing listens to it.
            try await writer.write { db in try db.insert(Item(id: nil, name: "after")) }
            #expect(try await writer.read { db in try db.fetchCount(Item.all()) } == 1)
        }
    }

    @Test(
        "a result that is not Equatable is emitted after every commit to a table it reads, and no other",
        arguments: Writer.allCases)
    func notEquatableResults(_ kind: Writer) async throws {
        struct Names: Sendable { var names: [String] }
        // With the checks for other processes, which must not take the writer's own commits for theirs.
        try await withWriter(kind) { writer, _ in
            try await writer.write { db in try db.execute(query: "CREATE TABLE other (id INTEGER PRIMARY KEY)") }
            let seen = LockedValue<[[String]]>([])
            let task = Task {
                for try await result in writer.observe({ db in
                    Names(names: try db.fetchAll(Item.all().order(Column("id"))).map(\.name))
                }) {
                    seen.withLock { $0.append(result.names) }
                }
            }
            defer { task.cancel() }
            try await eventually("the first result") { seen.withLock { $0 } == [[]] }
            try await writer.write { db in try db.insert(Item(id: nil, name: "a")) }
            try await eventually("the first commit's result") { seen.withLock { $0 }.last == ["a"] }
            for id in 1...5 {
                try await writer.write { db in try db.execute(query: "INSERT INTO other VALUES (\(id))") }
            }
            // Longer than the 100 ms between two checks for other processes' commits.
            try await Task.sleep(for: .milliseconds(300))
            try await writer.write { db in try db.insert(Item(id: nil, name: "b")) }
            try await eventually("the second commit's result") { seen.withLock { $0 }.last == ["a", "b"] }
            #expect(seen.withLock { $0 } == [[], ["a"], ["a", "b"]])
        }
    }

    @Test("a commit that changes the schema is a commit for every observation", arguments: Writer.allCases)
    func schemaChange(_ kind: Writer) async throws {
        try await withWriter(kind) { writer, _ in
            try await writer.write { db in
                try db.execute(query: "CREATE TABLE spare (id INTEGER PRIMARY KEY, name TEXT)")
                try db.execute(query: "INSERT INTO spare (name) VALUES ('x'), ('y')")
            }
            let counts = LockedValue<[Int]>([])
            let task = Task {
                for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                    counts.withLock { $0.append(count) }
                }
            }
            defer { task.cancel() }
            try await eventually("the first result") { counts.withLock { $0 } == [0] }
            // No row changes: the table read is now another b-tree.
            try await writer.write { db in
                try db.execute(query: "ALTER TABLE item RENAME TO empty; ALTER TABLE spare RENAME TO item")
            }
            try await eventually("the renamed table's count") { counts.withLock { $0 } == [0, 2] }
        }
    }

    @Test(
        "rows SQLite's update hook does not report are seen: WITHOUT ROWID tables, a DELETE without WHERE",
        arguments: Writer.allCases)
    func changesWithoutHook(_ kind: Writer) async throws {
        try await withWriter(kind) { writer, _ in
            try await writer.write { db in
                try db.execute(query: "CREATE TABLE setting (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID")
                try db.execute(query: "CREATE TABLE other (id INTEGER PRIMARY KEY)")
                try db.execute(query: "INSERT INTO item (name) VALUES ('x'), ('y')")
            }
            let results = LockedValue<[[String]]>([])
            let task = Task {
                for try await result in writer.observe({ db in
                    try db.fetchAll(String.self, query: "SELECT key FROM setting ORDER BY key")
                        + db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY name")
                }) {
                    results.withLock { $0.append(result) }
                }
            }
            defer { task.cancel() }
            try await eventually("the first result") { results.withLock { $0 } == [["x", "y"]] }
            // Each with a row the hook does see, of a table the observation does not read.
            try await writer.write { db in
                try db.execute(query: "INSERT INTO setting VALUES ('theme', 'dark'); INSERT INTO other VALUES (1)")
            }
            try await eventually("the setting") { results.withLock { $0 }.last == ["theme", "x", "y"] }
            try await writer.write { db in try db.execute(query: "DELETE FROM item; INSERT INTO other VALUES (2)") }
            try await eventually("the items gone") { results.withLock { $0 }.last == ["theme"] }
        }
    }

    @Test("pausable writes and migrations through the writer are seen", arguments: Writer.allCases)
    func pausableWritesAndMigrations(_ kind: Writer) async throws {
        try await withWriter(kind) { writer, _ in
            let seen = LockedValue<[Int]>([])
            let task = Task {
                for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                    seen.withLock { $0.append(count) }
                }
            }
            defer { task.cancel() }
            try await eventually("the first result") { seen.withLock { $0 } == [0] }
            var steps = 0
            try await writer.pausableWrite { db, stop, _ in
                try db.insert(Item(id: nil, name: "step \(steps)"))
                steps += 1
                stop = steps == 50
            }
            try await eventually("the pausable write's rows") { seen.withLock { $0 }.last == 50 }
            var migrator = Migrator()
            try migrator.register(version: 1, name: "more items", sql: "INSERT INTO item (name) VALUES ('migrated')")
            try await migrator.migrate(writer)
            try await eventually("the migration's row") { seen.withLock { $0 }.last == 51 }
        }
    }

    @Test("100 observers of one pool under a write load each end on the last commit's result")
    func manyObservers() async throws {
        try await withWriter(.pool) { writer, listeners in
            let observers = 100
            let writes = 200
            let finals = LockedValue<[Int]>([])
            let started = LockedValue(0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<observers {
                    group.addTask {
                        var first = true
                        for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                            if first {
                                started.withLock { $0 += 1 }
                                first = false
                            }
                            if count == writes {
                                finals.withLock { $0.append(count) }
                                break
                            }
                        }
                    }
                }
                try await eventually("every observer's first result") { started.withLock { $0 } == observers }
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for task in 0..<4 {
                        writers.addTask {
                            for index in 0..<(writes / 4) {
                                try await writer.write { db in try db.insert(Item(id: nil, name: "\(task).\(index)")) }
                            }
                        }
                    }
                    try await writers.waitForAll()
                }
                try await group.waitForAll()
            }
            #expect(finals.withLock { $0 } == Array(repeating: writes, count: observers))
            try await eventually("every listener going away") { listeners() == 0 }
        }
    }

    // The child is started with StrataTesting's ChildProcess, which is Linux only.
    #if canImport(Glibc)
        @Test("a commit by another process is seen within the check interval", arguments: Writer.allCases)
        func otherProcessCommits(_ kind: Writer) async throws {
            let directory = try TemporaryDirectory()
            let path = directory.path("shared.sqlite")
            let interval = Duration.milliseconds(50)
            let writer: any DatabaseWriter<Database> =
                switch kind {
                case .pool: try DatabasePool(path: path, readers: 2, otherProcessCheckInterval: interval)
                case .queue: try DatabaseQueue(path: path, otherProcessCheckInterval: interval)
                }
            try await writer.write { db in
                try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT NOT NULL)")
            }
            let seen = LockedValue<[Int]>([])
            let task = Task {
                for try await count in writer.observe({ db in try db.fetchCount(Item.all()) }) {
                    seen.withLock { $0.append(count) }
                }
            }
            try await eventually("the first result") { seen.withLock { $0 } == [0] }
            // `strata-durability-child insert PATH` inserts one row through a connection of its own, and exits.
            for expected in 1...2 {
                try await Task.detached {
                    let child = try DurabilityChild(arguments: ["insert", path])
                    let inserted = child.readLines(timeout: .seconds(60)) { lines in
                        lines.contains { $0.hasPrefix("inserted ") }
                    }
                    try child.kill()
                    #expect(inserted, "the child did not insert: \(child.errorOutput)")
                }.value
                try await eventually("the other process's row \(expected)") { seen.withLock { $0 }.last == expected }
            }
            #expect(seen.withLock { $0 } == [0, 1, 2])
            task.cancel()
            _ = await task.result
            await writer.close()
            withExtendedLifetime(directory) {}
        }

        @Test("without a check interval for other processes, the pool's own commits are still seen")
        func noOtherProcessChecks() async throws {
            let directory = try TemporaryDirectory()
            let pool = try DatabasePool(path: directory.path("alone.sqlite"), otherProcessCheckInterval: nil)
            try await pool.write { db in try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            }
            var results: [Int] = []
            for try await count in pool.observe({ db in try db.fetchCount(Item.all()) }) {
                results.append(count)
                if count == 0 {
                    try await pool.write { db in try db.insert(Item(id: nil, name: "own")) }
                } else {
                    break
                }
            }
            #expect(results == [0, 1], "the pool's own commits are still seen")
            await pool.close()
            withExtendedLifetime(directory) {}
        }
    #endif

    @Test("SQLite's commit hook reports a transaction that wrote and committed, not a read or a rollback")
    func commitHook() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
        #expect(db.connection.takeCommit() == .everything, "the CREATE TABLE committed on its own")
        #expect(db.connection.takeCommit() == nil, "taken once")
        _ = try db.fetchCount(Item.all())
        try db.transaction { db in _ = try db.fetchCount(Item.all()) }
        #expect(db.connection.takeCommit() == nil, "reads commit nothing")
        struct Rollback: Error {}
        #expect(throws: Rollback.self) {
            try db.transaction { db in
                try db.insert(Item(id: nil, name: "rolled back"))
                throw Rollback()
            }
        }
        #expect(db.connection.takeCommit() == nil, "a rollback commits nothing")
        try db.transaction { db in try db.insert(Item(id: nil, name: "kept")) }
        #expect(db.connection.takeCommit() == .everything, "the tables changed are not recorded unless asked")
    }
}

/// The share of time the observations of one reader may read.
@Suite("Observation budget: the observations of one reader read at most a tenth of the time")
struct ObservationBudgetTests {
    @Test("the wait after a read grows with the observations of its reader, and no more than a second")
    func waitGrowsWithObservations() async throws {
        let queue = try DatabaseQueue()
        let other = try DatabaseQueue()
        let budget = ObservationBudget()
        let first = budget.join(queue)
        let started = ContinuousClock.now
        let ended = started + .microseconds(100)
        #expect(budget.nextRead(first, after: started, until: ended) == ended + .microseconds(900))
        let second = budget.join(queue)
        _ = budget.join(other)
        #expect(budget.nextRead(first, after: started, until: ended) == ended + .microseconds(1800))
        budget.leave(second)
        #expect(budget.nextRead(first, after: started, until: ended) == ended + .microseconds(900))
        let slow = ended + .milliseconds(500)
        #expect(budget.nextRead(first, after: started, until: slow) == slow + ObservationBudget.longestWait)
        await queue.close()
        await other.close()
    }
}
