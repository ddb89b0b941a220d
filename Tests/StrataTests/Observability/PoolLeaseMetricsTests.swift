import Foundation
import Metrics
import MetricsTestKit
import Testing

@testable import Strata

/// Every way a pool or a queue lends a connection counts in its metrics: a stream's iteration, a backup and a
/// pausable write, as a `read` or `write` does. Each waits in ``StrataMetric/poolWait`` and holds a connection in
/// ``StrataMetric/poolConnectionsInUse`` until it gives it back, on every way it ends.
///
/// In ``ObservabilityTests`` (serialized): they read the process-wide metrics backend.
extension ObservabilityTests {
    /// A pool (whose streams and backups take its one reader, and pausable writes its writer) or a queue.
    enum Lender: String, CaseIterable, CustomTestStringConvertible {
        case pool, queue
        var testDescription: String { rawValue }
    }

    /// A pool or queue with metrics on, on a file with `t` holding 1...200, and the `kind` its reads and writes are
    /// measured as.
    private struct LendingFixture {
        enum Writer {
            case pool(DatabasePool)
            case queue(DatabaseQueue)
        }

        let writer: Writer
        let readKind: String
        let writeKind: String
        let directory: TemporaryDirectory

        init(_ lender: Lender) async throws {
            directory = try TemporaryDirectory()
            let path = directory.path("lease.sqlite")
            let observability = DatabaseObservability(metrics: true)
            switch lender {
            case .pool:
                let pool = try DatabasePool(path: path, readers: 1, observability: observability)
                (writer, readKind, writeKind) = (.pool(pool), "reader", "writer")
                try await pool.write(Self.fill)
            case .queue:
                let queue = try DatabaseQueue(path: path, observability: observability)
                (writer, readKind, writeKind) = (.queue(queue), "queue", "queue")
                try await queue.write(Self.fill)
            }
        }

        private static func fill(_ db: Database) throws {
            try db.execute(query: "CREATE TABLE t (x INTEGER NOT NULL)")
            try db.execute(
                query: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                    INSERT INTO t SELECT i FROM n
                    """)
        }

        func stream(_ query: String) -> RowStream<Int> {
            switch writer {
            case .pool(let pool): pool.stream(Int.self, query: query)
            case .queue(let queue): queue.stream(Int.self, query: query)
            }
        }

        func backup(to path: String, progress: @escaping (BackupProgress) async throws -> Void) async throws {
            switch writer {
            case .pool(let pool): try await pool.backup(to: path, pagesPerStep: 1, progress: progress)
            case .queue(let queue): try await queue.backup(to: path, pagesPerStep: 1, progress: progress)
            }
        }

        func pausableWrite(_ body: (Database, inout Bool, Bool) throws -> Void) async throws {
            switch writer {
            case .pool(let pool): try await pool.pausableWrite(body)
            case .queue(let queue): try await queue.pausableWrite(body)
            }
        }

        /// How many tasks wait for the connection a stream takes.
        var readerWaitingCount: Int {
            switch writer {
            case .pool(let pool): pool.readerWaitingCount
            case .queue(let queue): queue.writerWaitingCount
            }
        }

        func close() async {
            switch writer {
            case .pool(let pool): await pool.close()
            case .queue(let queue): await queue.close()
            }
        }
    }

    /// The connections of `kind` lent now, as the gauge says.
    private static func inUse(_ kind: String) -> Double? {
        (try? TestBackends.metrics.expectMeter(StrataMetric.poolConnectionsInUse, [("kind", kind)]))?.lastValue
    }

    /// The highest the gauge of `kind` has been.
    private static func mostInUse(_ kind: String) -> Double? {
        (try? TestBackends.metrics.expectMeter(StrataMetric.poolConnectionsInUse, [("kind", kind)]))?.values.max()
    }

    /// How many waits for a connection of `kind` were recorded.
    private static func waits(_ kind: String) -> Int {
        (try? TestBackends.metrics.expectTimer(StrataMetric.poolWait, [("kind", kind)]))?.values.count ?? 0
    }

    @Test(arguments: Lender.allCases)
    func aStreamHoldsAConnectionInTheMetricsUntilItsIterationEnds(_ lender: Lender) async throws {
        TestBackends.reset()
        let fixture = try await LendingFixture(lender)
        let kind = fixture.readKind
        let waitsBefore = Self.waits(kind)

        // Read to the end.
        var rows = 0
        for try await _ in fixture.stream("SELECT x FROM t ORDER BY x") {
            if rows == 0 { #expect(Self.inUse(kind) == 1) }
            rows += 1
        }
        #expect(rows == 200)
        #expect(Self.inUse(kind) == 0)
        #expect(Self.waits(kind) == waitsBefore + 1)

        // Left by `break`.
        for try await _ in fixture.stream("SELECT x FROM t") { break }
        #expect(Self.inUse(kind) == 0)

        // An iterator dropped unfinished.
        do {
            var iterator = fixture.stream("SELECT x FROM t").makeAsyncIterator()
            #expect(try await iterator.next() == 1)
            #expect(Self.inUse(kind) == 1)
        }
        #expect(Self.inUse(kind) == 0)

        // A statement that fails half-way (integer overflow at row 100).
        await #expect(throws: DatabaseError.self) {
            let overflowAt100 = "SELECT CASE WHEN x = 100 THEN abs(-9223372036854775807 - 1) ELSE x END FROM t"
            for try await _ in fixture.stream(overflowAt100) {}
        }
        #expect(Self.inUse(kind) == 0)
        #expect(Self.waits(kind) == waitsBefore + 4)
        #expect(Self.mostInUse(kind) == 1)
        await fixture.close()
    }

    @Test(arguments: Lender.allCases)
    func aCancelledStreamGivesItsConnectionBackInTheMetrics(_ lender: Lender) async throws {
        TestBackends.reset()
        let fixture = try await LendingFixture(lender)
        let kind = fixture.readKind
        let waitsBefore = Self.waits(kind)
        // Timeline: the consumer takes one row and waits; the test cancels it, then lets it go on: its next `next()`
        // throws CancellationError and gives the connection back.
        let tookARow = TestSignal()
        let goOn = TestSignal()
        let consumed = fixture.stream("SELECT x FROM t")
        let consumer = Task {
            for try await _ in consumed {
                tookARow.fire()
                await goOn.wait()
            }
        }
        await tookARow.wait()
        #expect(Self.inUse(kind) == 1)

        // Meanwhile a second iteration waits for the connection, and is cancelled while it waits: it never had it.
        let waiting = fixture.stream("SELECT x FROM t")
        let waiter = Task { for try await _ in waiting {} }
        await waitUntil { fixture.readerWaitingCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(Self.inUse(kind) == 1)

        consumer.cancel()
        goOn.fire()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(Self.inUse(kind) == 0)
        #expect(Self.mostInUse(kind) == 1)
        #expect(Self.waits(kind) == waitsBefore + 1)
        await fixture.close()
    }

    @Test(arguments: Lender.allCases)
    func aBackupHoldsAConnectionInTheMetricsUntilItEnds(_ lender: Lender) async throws {
        TestBackends.reset()
        let fixture = try await LendingFixture(lender)
        let kind = fixture.readKind
        let waitsBefore = Self.waits(kind)
        var steps = 0
        try await fixture.backup(to: fixture.directory.path("copy.sqlite")) { _ in
            steps += 1
            #expect(Self.inUse(kind) == 1)
        }
        #expect(steps >= 2)
        #expect(Self.inUse(kind) == 0)

        // A backup that its progress stops.
        await #expect(throws: IntendedFailure.self) {
            try await fixture.backup(to: fixture.directory.path("stopped.sqlite")) { _ in throw IntendedFailure() }
        }
        #expect(Self.inUse(kind) == 0)
        #expect(Self.mostInUse(kind) == 1)
        #expect(Self.waits(kind) == waitsBefore + 2)
        await fixture.close()
    }

    @Test(arguments: Lender.allCases)
    func aPausableWriteHoldsAConnectionInTheMetricsUntilItEnds(_ lender: Lender) async throws {
        TestBackends.reset()
        let fixture = try await LendingFixture(lender)
        let kind = fixture.writeKind
        let waitsBefore = Self.waits(kind)
        var steps = 0
        try await fixture.pausableWrite { db, stop, _ in
            #expect(Self.inUse(kind) == 1)
            try db.execute(query: "INSERT INTO t VALUES (0)")
            steps += 1
            stop = steps == 3
        }
        #expect(Self.inUse(kind) == 0)
        #expect(Self.waits(kind) == waitsBefore + 1)

        // A pausable write whose step throws.
        await #expect(throws: IntendedFailure.self) {
            try await fixture.pausableWrite { _, _, _ in throw IntendedFailure() }
        }
        #expect(Self.inUse(kind) == 0)
        #expect(Self.mostInUse(kind) == 1)
        #expect(Self.waits(kind) == waitsBefore + 2)
        await fixture.close()
    }
}
