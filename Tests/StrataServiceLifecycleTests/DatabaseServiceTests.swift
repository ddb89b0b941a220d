import Dispatch
import Foundation
import ServiceLifecycle
import StrataServiceLifecycle
import Testing

@testable import Strata

/// A pool or queue in a `ServiceGroup`: **graceful shutdown, or the cancellation of the group's task, closes it once
/// the work asked for before has finished.**
@Suite(.timeLimit(.minutes(2)))
struct DatabaseServiceTests {
    @Test func gracefulShutdownClosesThePoolAfterTheWorkAskedForBefore() async throws {
        let directory = try ServiceTestDirectory()
        let path = directory.path("pool.sqlite")
        let pool = try DatabasePool(path: path, readers: 2)
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        let started = ServiceTestSignal()
        let group = ServiceGroup(services: [pool, StartedService(started: started)])
        let run = Task { try await group.run() }
        await started.wait()
        // Timeline: a write starts and blocks; a second write queues behind it; then graceful shutdown begins, the
        // pool refuses new work at once, and waits; the blocked write goes on, the queued one runs, the pool closes
        // and the group's run returns.
        let writeStarted = ServiceTestSignal()
        let finishWrite = DispatchSemaphore(value: 0)
        let first = Task {
            try await pool.write { db in
                writeStarted.fire()
                _ = finishWrite.wait(timeout: .now() + .seconds(20))
                try db.execute(query: "INSERT INTO t VALUES (1)")
            }
        }
        await writeStarted.wait()
        let second = Task {
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (2)") }
        }
        await waitUntil { pool.writerWaitingCount == 1 }
        await group.triggerGracefulShutdown()
        await waitUntil { pool.isClosed }
        #expect(pool.isClosed)
        await expectConnectionClosed {
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (3)") }
        }
        finishWrite.signal()
        try await first.value
        try await second.value
        try await run.value
        await expectConnectionClosed {
            try await pool.read { db in try db.fetchAll(Int.self, query: "SELECT x FROM t") }
        }
        // Closed for good: the WAL was checkpointed into the file and removed, and the file holds both writes.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let db = try Database(path: path, readOnly: true)
        #expect(try db.fetchAll(Int.self, query: "SELECT x FROM t ORDER BY x") == [1, 2])
    }

    @Test func cancellingTheGroupsTaskClosesThePool() async throws {
        let directory = try ServiceTestDirectory()
        let path = directory.path("pool.sqlite")
        let pool = try DatabasePool(path: path, readers: 1)
        try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        let started = ServiceTestSignal()
        let group = ServiceGroup(services: [pool, StartedService(started: started)])
        let run = Task { try await group.run() }
        await started.wait()
        #expect(!pool.isClosed)
        run.cancel()
        _ = try? await run.value
        #expect(pool.isClosed)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        await expectConnectionClosed {
            try await pool.write { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
        }
    }

    @Test func gracefulShutdownClosesAQueue() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
        let started = ServiceTestSignal()
        let group = ServiceGroup(services: [queue, StartedService(started: started)])
        let run = Task { try await group.run() }
        await started.wait()
        await group.triggerGracefulShutdown()
        try await run.value
        #expect(queue.isClosed)
        await expectConnectionClosed {
            try await queue.write { db in try db.execute(query: "INSERT INTO t VALUES (1)") }
        }
    }

    @Test func runOutsideAGroupClosesThePoolWhenItsTaskIsCancelled() async throws {
        let directory = try ServiceTestDirectory()
        let pool = try DatabasePool(path: directory.path("pool.sqlite"), readers: 1)
        let run = Task { try await pool.run() }
        #expect(try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT 1") } == 1)
        run.cancel()
        try await run.value
        #expect(pool.isClosed)
    }
}

/// A service that says when the group has started it, then runs until graceful shutdown. Services start in order, so
/// once it has started, the group has started the services listed before it.
private struct StartedService: Service {
    let started: ServiceTestSignal

    func run() async throws {
        started.fire()
        try? await gracefulShutdown()
    }
}

/// A one-shot signal a task can await without blocking a thread, fired from any thread.
private final class ServiceTestSignal: Sendable {
    private let state = LockedValue<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
    }
}

/// A fresh directory under the system temp folder, removed when the value is released.
private final class ServiceTestDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Waits, suspended, until `condition` holds, for at most 20 seconds.
private func waitUntil(_ condition: () -> Bool) async {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(20)
    while !condition() && clock.now < deadline {
        await Task.yield()
    }
}

/// Checks that `body` throws ``DatabaseError/Code/connectionClosed``.
private func expectConnectionClosed<Output>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Output
) async {
    do {
        _ = try await body()
        Issue.record("expected connectionClosed, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as DatabaseError {
        #expect(error.code == .connectionClosed, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected connectionClosed, got \(error)", sourceLocation: sourceLocation)
    }
}
