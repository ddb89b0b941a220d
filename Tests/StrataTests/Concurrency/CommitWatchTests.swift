import Foundation
import Testing

@testable import StrataCore

/// `CommitWatch`, which runs a reader's look-out for commits (another process's, PostgreSQL's notifications) while
/// anything listens, and lets each new listener read once the look-out looks out.
@Suite("CommitWatch: a listener reads once the look-out looks out")
struct CommitWatchTests {
    /// A one-shot signal between the test and the look-out's body.
    final class Signal: Sendable {
        private let stream = AsyncStream.makeStream(of: Void.self)
        func send() { stream.continuation.yield() }
        func wait() async {
            var iterator = stream.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
    }

    /// Expects a caller of `watch.start` to wait, rather than go on while nothing looks out, until `nextLook` lets the
    /// look-out answer.
    private func expectStartWaits(
        _ watch: CommitWatch, until nextLook: Signal, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let started = LockedValue(false)
        let waiting = Task {
            try await watch.start {}
            started.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(
            started.withLock { $0 } == false, "a listener went on while nothing looked out",
            sourceLocation: sourceLocation)
        nextLook.send()
        try await waiting.value
        #expect(started.withLock { $0 }, sourceLocation: sourceLocation)
    }

    @Test("a listener that comes between two looks (a LISTEN ended, the next not yet run) waits for the next")
    func newListenerWaitsForTheNextLook() async throws {
        let commits = CommitBroadcast()
        let watch = CommitWatch(commits: commits)
        let (endLook, lookEnded, nextLook) = (Signal(), Signal(), Signal())
        let first = commits.listen()
        try await watch.start {
            watch.answer()
            await endLook.wait()
            watch.withdrawAnswer()
            lookEnded.send()
            await nextLook.wait()
            watch.answer()
            while watch.keepRunning() { try? await Task.sleep(for: .milliseconds(5)) }
        }
        // Looking out: another listener goes on at once.
        let second = commits.listen()
        try await watch.start {}
        endLook.send()
        await lookEnded.wait()
        // Between two looks: a listener waits.
        let third = commits.listen()
        try await expectStartWaits(watch, until: nextLook)
        _ = (first, second, third)
        await watch.stop()
    }

    @Test("a look ends only when nothing listens; a listener that comes once it ends waits for the next")
    func lookEndsOnlyWhenNothingListens() async throws {
        let commits = CommitBroadcast()
        let watch = CommitWatch(commits: commits)
        let nextLook = Signal()
        do {
            let first = commits.listen()
            try await watch.start {
                watch.answer()
                await nextLook.wait()
                watch.answer()
                while watch.keepRunning() { try? await Task.sleep(for: .milliseconds(5)) }
            }
            // Required: otherwise the start below would wait for a look that only comes later.
            try #require(watch.withdrawAnswerIfUnheard() == false, "the look ended while a listener listened")
            // The look goes on: another listener goes on at once.
            let second = commits.listen()
            try await watch.start {}
            _ = (first, second)
        }
        #expect(watch.withdrawAnswerIfUnheard(), "the look went on with nothing listening")
        let third = commits.listen()
        try await expectStartWaits(watch, until: nextLook)
        _ = third
        await watch.stop()
    }
}
