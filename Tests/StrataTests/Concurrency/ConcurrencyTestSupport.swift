import Dispatch
import Foundation
import StrataTesting
import Testing

@testable import Strata

/// How long a test waits on a semaphore before it calls the wait failed. Only a broken implementation waits this
/// long; the timeout turns a deadlock into a failed test instead of a hang.
let poolTestTimeout: DispatchTimeInterval = .seconds(20)

/// Runs `body` with a fresh pool on a file in a temporary directory, then closes the pool and removes the directory.
func withTemporaryPool<Result>(
    readers: Int = 4,
    _ body: (DatabasePool, String) async throws -> Result
) async throws -> Result {
    let directory = try TemporaryDirectory()
    let path = directory.path("pool.sqlite")
    let pool = try DatabasePool(path: path, readers: readers)
    do {
        let result = try await body(pool, path)
        await pool.close()
        withExtendedLifetime(directory) {}
        return result
    } catch {
        await pool.close()
        withExtendedLifetime(directory) {}
        throw error
    }
}

/// A one-shot signal a task can await without blocking a thread, fired from any thread (a connection's queue).
final class TestSignal: Sendable {
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

/// Events in the order they happened, appended from any thread.
final class TestEventLog: Sendable {
    private let events = LockedValue<[String]>([])

    func append(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.withLock { $0 } }
}

/// Checks that `body` throws a ``DatabaseError`` with `code`, and returns it for further checks.
@discardableResult
func expectPoolError<Output>(
    _ code: DatabaseError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Output
) async -> DatabaseError? {
    do {
        _ = try await body()
        Issue.record(
            "expected a DatabaseError with code \(code), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as DatabaseError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a DatabaseError with code \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The number of rows of `table`.
func countRows(_ db: Database, in table: String = "t") throws -> Int {
    let statement = try db.prepare(query: "SELECT count(*) FROM \(table)")
    let row = try #require(try statement.next())
    return try row[0]
}

/// An error a test block throws on purpose.
struct IntendedFailure: Error, Equatable {}

/// Waits, suspended, until `condition` holds, for at most `hangBound` seconds: for work another task queues.
func waitUntil(_ condition: () -> Bool) async {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(hangBound)
    while !condition() && clock.now < deadline {
        await Task.yield()
    }
}
