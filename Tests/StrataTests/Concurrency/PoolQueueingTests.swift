import Dispatch
import Foundation
import Testing

@testable import Strata

/// How a pool queues bodies for a busy connection (`ConnectionPool.run`): the connection that finishes one body runs
/// the next waiting one itself, in the order they were asked for.
@Suite(.timeLimit(.minutes(2)))
struct PoolQueueingTests {
    @Test func writesQueuedBehindABusyWriterRunInOrderAndACancelledOneNeverRuns() async throws {
        try await withTemporaryPool { pool, _ in
            try await pool.write { db in try db.execute(query: "CREATE TABLE t (x INTEGER)") }
            // Timeline: the first write holds the writer; ten writes queue behind it one after another (each waits
            // in the pool before the next is asked for); the fifth is cancelled while queued; then the first
            // finishes and the writer runs the queued bodies one after the other.
            let writeStarted = TestSignal()
            let finishWrite = DispatchSemaphore(value: 0)
            async let firstTimedOut = pool.write { db in
                writeStarted.fire()
                let timedOut = finishWrite.wait(timeout: .now() + poolTestTimeout) == .timedOut
                try db.execute(query: "INSERT INTO t VALUES (0)")
                return timedOut
            }
            await writeStarted.wait()
            var queued: [Task<Void, any Error>] = []
            for value in 1...10 {
                queued.append(
                    Task {
                        try await pool.write { db in
                            try db.execute(query: "INSERT INTO t VALUES (?)", parameters: value)
                        }
                    })
                await waitUntil { pool.writerWaitingCount == value }
            }
            queued[4].cancel()
            await waitUntil { pool.writerWaitingCount == 9 }
            #expect(pool.writerWaitingCount == 9)
            finishWrite.signal()
            #expect(try await firstTimedOut == false)
            for (index, task) in queued.enumerated() {
                if index == 4 {
                    await #expect(throws: CancellationError.self) { try await task.value }
                } else {
                    try await task.value
                }
            }
            let values = try await pool.read { db in
                try db.fetchAll(Int.self, query: "SELECT x FROM t ORDER BY rowid")
            }
            #expect(values == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
        }
    }
}
