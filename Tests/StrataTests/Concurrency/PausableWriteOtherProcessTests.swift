import Dispatch
import Foundation
import Testing

@testable import Strata

/// `maxTransactionDuration` lets writers in other processes in: while a pausable write inserts without end, child
/// processes (`strata-durability-child insert`, Tests/DurabilityChild/main.swift) insert one row each, one after the
/// other, and report how long their insert waited for the write lock.
///
/// The bound is generous (forty durations, 2 s): the promise is about one, and a loaded machine (the whole suite in
/// parallel, or a sanitizer) delays the children; it catches a child starved until the long write ends. The gap
/// itself, which decides whether a waiter's next try finds the lock free, is checked exactly by the first test: before
/// it was long enough for that try (5 ms after a 50 ms transaction), a waiter sleeping longer than the gap between
/// tries missed it again and again, and children waited up to 1.2 s here.
@Suite(.timeLimit(.minutes(3)))
struct PausableWriteOtherProcessTests {
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case database, pool, queue
        var testDescription: String { rawValue }
    }

    /// How long each transaction of the long write runs.
    static let duration = Duration.milliseconds(50)
    /// How many child processes insert, one after the other, while the long write runs.
    static let children = 10

    @Test func theLockStaysFreeLongerThanTheNextSleepOfAWriterThatWaitedThroughTheTransaction() {
        // SQLite's busy handler (sqliteDefaultBusyCallback) sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 ms, then
        // 100 ms: after waiting 50 ms it is in its 20 ms sleep, after 100 ms in a 25 ms one, from 228 ms on in 100 ms.
        #expect(BusyBackoff.longestSleep(afterWaiting: .zero) == .milliseconds(1))
        #expect(BusyBackoff.longestSleep(afterWaiting: .milliseconds(50)) == .milliseconds(20))
        #expect(BusyBackoff.longestSleep(afterWaiting: .milliseconds(100)) == .milliseconds(25))
        #expect(BusyBackoff.longestSleep(afterWaiting: .milliseconds(227)) == .milliseconds(50))
        #expect(BusyBackoff.longestSleep(afterWaiting: .milliseconds(228)) == .milliseconds(100))
        #expect(BusyBackoff.longestSleep(afterWaiting: .seconds(3600)) == .milliseconds(100))
        #expect(BusyBackoff.slept(before: 12) == 328)
        #expect(BusyBackoff.slept(before: 14) == 528)
        for milliseconds in [1, 5, 10, 20, 50, 100, 200, 228, 250, 500, 1_000, 60_000] {
            let lasted = Duration.milliseconds(milliseconds)
            let gap = Database.otherWritersGap(after: lasted)
            #expect(gap >= BusyBackoff.longestSleep(afterWaiting: lasted) + .milliseconds(5), "after \(lasted)")
            #expect(gap <= .milliseconds(125), "after \(lasted)")
        }
        #expect(Database.otherWritersGap(after: .milliseconds(50)) == .milliseconds(25))
        #expect(Database.otherWritersGap(after: .milliseconds(100)) == .microseconds(31_250))
    }

    // The children are started with StrataTesting's ChildProcess, which is Linux only.
    #if canImport(Glibc)
        @Test(arguments: Writer.allCases)
        func aWriterInAnotherProcessGetsInWithinAFewDurations(_ kind: Writer) async throws {
            let directory = try TemporaryDirectory()
            let path = directory.path("other-process.sqlite")
            let setup = try Database(path: path)
            try setup.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, source TEXT NOT NULL)")
            setup.close()

            // Timeline: the long write inserts 'import' rows without end, committing every 50 ms. Once it has committed
            // twice, each child in turn opens the file and inserts its 'child' row, waiting in its busy handler while
            // the long write holds the lock. Once the last child has reported, the long write stops.
            let transactions = TestCounter()
            let stopRequested = TestCounter()
            let longWrite = Self.startLongWrite(
                kind, path: path, transactions: transactions, stopRequested: stopRequested)
            await waitUntil { transactions.value >= 3 }
            #expect(transactions.value >= 3)

            var waits: [Double] = []
            var transactionsAtEachInsert: [Int] = []
            for _ in 0..<Self.children {
                let lines = try await Self.runChild(arguments: ["insert", path])
                let wait = lines.first { $0.hasPrefix("inserted ") }.flatMap { Double($0.dropFirst("inserted ".count)) }
                waits.append(try #require(wait, "the child reported \(lines)"))
                transactionsAtEachInsert.append(transactions.value)
            }
            stopRequested.increment()
            try await longWrite.value

            let bound = (Self.duration * 40) / .milliseconds(1)
            for wait in waits {
                #expect(wait < bound, "a child waited \(wait) ms: \(waits)")
            }
            // The long write went on while the children inserted: it began new transactions meanwhile, and its rows
            // come before, between and after theirs.
            #expect(transactionsAtEachInsert == transactionsAtEachInsert.sorted())
            #expect((transactionsAtEachInsert.last ?? 0) > (transactionsAtEachInsert.first ?? 0))
            let check = try Database(path: path)
            let sources = try check.fetchAll(String.self, query: "SELECT source FROM item ORDER BY id")
            check.close()
            #expect(sources.filter { $0 == "child" }.count == Self.children)
            #expect(sources.first == "import" && sources.last == "import")
        }
    #endif

    /// Starts the long write: a pausable write on a pool or queue, or a pausable transaction on a `Database` on a
    /// thread of its own. It counts its transactions and stops once `stopRequested` is set.
    private static func startLongWrite(
        _ kind: Writer, path: String, transactions: TestCounter, stopRequested: TestCounter
    ) -> Task<Void, any Error> {
        let step: @Sendable (Database, inout Bool, Bool) throws -> Void = { db, stop, isNewTransaction in
            if isNewTransaction { transactions.increment() }
            try db.execute(query: "INSERT INTO item (source) VALUES ('import')")
            stop = stopRequested.value > 0
        }
        switch kind {
        case .database:
            return Task {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    Thread {
                        continuation.resume(
                            with: Result {
                                let db = try Database(path: path)
                                defer { db.close() }
                                try db.pausableTransaction(maxDuration: duration, step)
                            })
                    }.start()
                }
            }
        case .pool, .queue:
            return Task {
                let writer: any DatabaseWriter<Database> =
                    kind == .pool ? try DatabasePool(path: path) : try DatabaseQueue(path: path)
                do {
                    try await writer.pausableWrite(maxTransactionDuration: duration, step)
                } catch {
                    await writer.close()
                    throw error
                }
                await writer.close()
            }
        }
    }

    #if canImport(Glibc)
        /// Runs `strata-durability-child` with `arguments` to its end, on a thread of its own (reading its output
        /// blocks), and returns the lines it printed.
        private static func runChild(arguments: [String]) async throws -> [String] {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String], any Error>) in
                Thread {
                    do {
                        let child = try DurabilityChild(arguments: arguments)
                        let finished = child.readLines(timeout: .seconds(60)) { lines in
                            lines.contains { $0.hasPrefix("inserted ") }
                        }
                        try child.kill()
                        if !finished { Issue.record("the child did not insert within 60 s: \(child.errorOutput)") }
                        continuation.resume(returning: child.lines)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
        }
    #endif
}
