import Foundation
import Testing

@testable import Strata

/// `synchronous`: how long a commit waits for the disk, per connection, and as set by a pool or a queue.
@Suite struct SynchronousTests {
    @Test func aFileDatabaseStartsAtFullAndEachModeReadsBack() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("sync.sqlite"))
        #expect(try db.synchronous == .full)
        for mode in SynchronousMode.allCases {
            try db.setSynchronous(mode)
            #expect(try db.synchronous == mode)
        }
        // Another connection to the same file keeps its own mode.
        try db.setSynchronous(.off)
        let other = try Database(path: directory.path("sync.sqlite"))
        #expect(try other.synchronous == .full)
    }

    @Test func aPoolSetsItsWriterAndCheckpointerAndConfigureHasTheLastWord() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), synchronous: .normal)
        #expect(try await pool.writeWithoutTransaction { db in try db.synchronous } == .normal)
        #expect(try await pool.write { db in try db.synchronous } == .normal)
        await pool.close()

        let defaults = try DatabasePool(path: directory.path("defaults.sqlite"))
        #expect(try await defaults.write { db in try db.synchronous } == .full)
        await defaults.close()

        let configured = try DatabasePool(path: directory.path("configured.sqlite"), synchronous: .normal) { db in
            try db.setSynchronous(.off)
        }
        #expect(try await configured.write { db in try db.synchronous } == .off)
        await configured.close()
    }

    @Test func theCheckpointerSyncsAsTheWriterDoes() async throws {
        let directory = try TemporaryDirectory()
        for mode in [SynchronousMode.normal, .full] {
            let writer = try Database(path: directory.path("checkpoint-\(mode).sqlite"))
            try writer.setSynchronous(mode)
            let checkpointer = try #require(try Checkpointer.takingOver(from: writer))
            #expect(try await checkpointer.synchronous == mode)
            await checkpointer.close()
            writer.close()
        }
    }

    @Test func aQueueSetsItsConnection() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("queue.sqlite"), synchronous: .normal)
        #expect(try await queue.write { db in try db.synchronous } == .normal)
        await queue.close()
        let defaults = try DatabaseQueue(path: directory.path("queue-defaults.sqlite"))
        #expect(try await defaults.read { db in try db.synchronous } == .full)
        await defaults.close()
    }
}
