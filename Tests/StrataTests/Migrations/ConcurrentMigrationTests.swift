import Foundation
import Testing

@testable import Strata

@Suite struct ConcurrentMigrationTests {
    /// Releases every waiting task at once, when the last of `count` has arrived.
    private actor StartLine {
        private let count: Int
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) {
            self.count = count
        }

        func arrive() async {
            if waiting.count + 1 == count {
                waiting.forEach { $0.resume() }
                waiting = []
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// Five migrations; each creates a table (which fails if it runs twice) and logs its run.
    private static func loggingMigrator() -> Migrator {
        var migrator = Migrator()
        migrator.register(version: 1, name: "create log") { db in
            try db.execute(query: "CREATE TABLE run_log (version INTEGER PRIMARY KEY); INSERT INTO run_log VALUES (1)")
        }
        for version in 2...5 {
            migrator.register(version: version, name: "step \(version)") { db in
                try db.execute(query: "CREATE TABLE step_\(version) (x); INSERT INTO run_log VALUES (\(version))")
            }
        }
        return migrator
    }

    @Test func concurrentMigratorsApplyAMigrationOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let migrator = Self.loggingMigrator()
        let tasks = 8
        let startLine = StartLine(count: tasks)
        // Timeline: every task opens its own connection, waits at the start line, then all migrate at
        // once. One takes the write lock per step; the others wait (busy timeout), re-read user_version
        // under the lock, and skip what is done.
        let results = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    let db = try Database(path: path)
                    await startLine.arrive()
                    let applied = try migrator.migrate(db)
                    #expect(try db.userVersion == 5)
                    db.close()
                    return applied
                }
            }
            var all: [[Int]] = []
            for try await applied in group {
                all.append(applied)
            }
            return all
        }
        #expect(results.count == tasks)
        #expect(results.flatMap { $0 }.sorted() == [1, 2, 3, 4, 5])
        let db = try Database(path: path)
        #expect(try db.userVersion == 5)
        #expect(
            try MigrationFixtures.column(Int.self, db, "SELECT version FROM run_log ORDER BY version") == [
                1, 2, 3, 4, 5,
            ])
        // One history row per migration, written by the connection that applied it.
        let history = try migrator.status(of: db).history
        #expect(history.map(\.version) == [1, 2, 3, 4, 5])
        #expect(history.allSatisfy { $0.appliedAt != nil })
    }

    @Test func concurrentMigratorsOnThreadsApplyAMigrationOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        // The connections are opened first, so that the threads contend on the migrations alone.
        let migrator = Self.loggingMigrator()
        let threads = 6
        let outcomes = OutcomeList()
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let db = try Database(path: path)
                    outcomes.append(.success(try migrator.migrate(db)))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
        }
        group.wait()
        let all = outcomes.values
        #expect(all.count == threads)
        let applied = try all.map { try $0.get() }
        #expect(applied.flatMap { $0 }.sorted() == [1, 2, 3, 4, 5])
        let db = try Database(path: path)
        #expect(
            try MigrationFixtures.column(Int.self, db, "SELECT version FROM run_log ORDER BY version") == [
                1, 2, 3, 4, 5,
            ])
        // One history row per migration, written by the connection that applied it.
        let history = try migrator.status(of: db).history
        #expect(history.map(\.version) == [1, 2, 3, 4, 5])
        #expect(history.allSatisfy { $0.appliedAt != nil })
    }
}

/// Results collected from several threads.
private final class OutcomeList: Sendable {
    private let list = LockedValue<[Result<[Int], any Error>]>([])

    var values: [Result<[Int], any Error>] { list.withLock { $0 } }

    func append(_ outcome: Result<[Int], any Error>) {
        list.withLock { $0.append(outcome) }
    }
}
