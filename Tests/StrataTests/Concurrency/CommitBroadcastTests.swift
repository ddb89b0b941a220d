import StrataCore
import StrataTesting
import Testing

/// What a reader's `commitNotifications()` are made of: commits coalesce while a listener takes none, a waiting
/// listener is woken, a sequence dropped or cancelled stops listening, and finishing ends them all.
@Suite("Commit broadcast: coalesced commits, waiting listeners woken, dropped and finished sequences end")
struct CommitBroadcastTests {
    @Test("commits announced while a listener takes none come to it as one element")
    func coalesces() async throws {
        let broadcast = CommitBroadcast()
        var commits = broadcast.listen().makeAsyncIterator()
        for _ in 0..<1_000 { broadcast.announce() }
        #expect(await commits.next() != nil)
        broadcast.finish()
        #expect(await commits.next() == nil)
    }

    @Test("a listener gets only the commits announced after it began listening")
    func onlyLaterCommits() async throws {
        let broadcast = CommitBroadcast()
        broadcast.announce()
        var commits = broadcast.listen().makeAsyncIterator()
        broadcast.finish()
        #expect(await commits.next() == nil)
    }

    @Test("a listener waiting for its next element is woken by a commit, each time")
    func wakesWaitingListener() async throws {
        let broadcast = CommitBroadcast()
        let taken = LockedValue(0)
        let listening = Task {
            for await _ in broadcast.listen() { taken.withLock { $0 += 1 } }
        }
        while broadcast.listenerCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        for commit in 1...3 {
            broadcast.announce()
            let deadline = ContinuousClock.now + .seconds(hangBound)
            while taken.withLock({ $0 }) < commit, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(taken.withLock { $0 } == commit)
        }
        broadcast.finish()
        await listening.value
        #expect(taken.withLock { $0 } == 3)
    }

    @Test("dropping a sequence stops its listening")
    func droppedSequenceStopsListening() async throws {
        let broadcast = CommitBroadcast()
        let other = broadcast.listen()
        do {
            let commits = broadcast.listen()
            #expect(broadcast.listenerCount == 2)
            withExtendedLifetime(commits) {}
        }
        #expect(broadcast.listenerCount == 1)
        withExtendedLifetime(other) {}
    }

    @Test("cancelling the task that waits for an element ends its sequence and its listening")
    func cancelledWaitEnds() async throws {
        let broadcast = CommitBroadcast()
        let listening = Task {
            var taken = 0
            for await _ in broadcast.listen() { taken += 1 }
            return taken
        }
        while broadcast.listenerCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(20))
        listening.cancel()
        #expect(await listening.value == 0)
        #expect(broadcast.listenerCount == 0)
    }

    @Test("finishing ends the waiting listeners, and a listener that begins afterwards ends at once")
    func finishEndsAll() async throws {
        let broadcast = CommitBroadcast()
        let waiting = (0..<5).map { _ in
            Task {
                var taken = 0
                for await _ in broadcast.listen() { taken += 1 }
                return taken
            }
        }
        while broadcast.listenerCount < 5 { try await Task.sleep(for: .milliseconds(1)) }
        broadcast.finish()
        for task in waiting { #expect(await task.value == 0) }
        var late = broadcast.listen().makeAsyncIterator()
        #expect(await late.next() == nil)
        #expect(broadcast.listenerCount == 0)
    }

    @Test("a listener that follows tables takes the commits of those tables only, and of everything")
    func followsTables() async {
        let broadcast = CommitBroadcast()
        let commits = broadcast.listen()
        var next = commits.makeAsyncIterator()
        commits.follow(.tables(["note"]))
        broadcast.announce(.tables(["tag"]))
        broadcast.announce(.tables(["note", "tag"]))
        #expect(await next.next() != nil)
        // Taken: the tag's commits no longer wake it, a note's or everything does.
        broadcast.announce(.tables(["tag"]))
        let woken = Task {
            var iterator = commits.makeAsyncIterator()
            return await iterator.next() != nil
        }
        while broadcast.waitingCount == 0 { await Task.yield() }
        broadcast.announce(.tables(["tag"]))
        #expect(broadcast.waitingCount == 1, "still waiting after a commit of another table")
        broadcast.announce(.everything)
        #expect(await woken.value)
        broadcast.finish()
    }

    @Test("a commit announced before the listener narrowed what it follows counts if it was of those tables")
    func commitBeforeFollowCounts() async {
        let broadcast = CommitBroadcast()
        let commits = broadcast.listen()
        var next = commits.makeAsyncIterator()
        // As an observation: listening (everything) while it reads, then narrowed to what the read used.
        broadcast.announce(.tables(["note"]))
        commits.follow(.tables(["note"]))
        #expect(await next.next() != nil)
        broadcast.announce(.tables(["tag"]))
        commits.follow(.tables(["tag"]))
        #expect(await next.next() != nil, "the tag's commit came before it followed the tag")
        commits.follow(.tables([]))
        broadcast.announce(.tables(["note"]))
        broadcast.finish()
        #expect(await next.next() == nil, "a read of no table is changed by nothing but everything")
    }
}
