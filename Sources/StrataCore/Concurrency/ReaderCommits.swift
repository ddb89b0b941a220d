/// What a reader tells its observations of commits (its `commitNotifications()`): the commits its own writer announces
/// to ``broadcast``, and those its look-out finds while anything listens (another process's commits to a SQLite file,
/// PostgreSQL's notifications).
package final class ReaderCommits: Sendable {
    /// What the reader's writer announces its commits to, and the look-out what it finds.
    package let broadcast: CommitBroadcast
    /// Runs the look-out while anything listens.
    private let watch: CommitWatch
    private let lookOut: (any CommitLookOut)?

    /// The commits of a reader whose writer announces to `broadcast`, with `lookOut`, or only its writer's for nil.
    package init(broadcast: CommitBroadcast = CommitBroadcast(), lookOut: (any CommitLookOut)?) {
        self.broadcast = broadcast
        watch = CommitWatch(commits: broadcast)
        self.lookOut = lookOut
    }

    /// A sequence with an element after each commit from now on, once the look-out looks out (it starts with the
    /// first listener): a commit made after this returns is followed by an element.
    ///
    /// - Throws: What the look-out answered when it could not look out.
    package func listen() async throws -> CommitNotifications {
        let notifications = broadcast.listen()
        if let lookOut {
            let (watch, broadcast) = (self.watch, self.broadcast)
            try await watch.start { await lookOut.lookOut(while: watch, announcingTo: broadcast) }
        }
        return notifications
    }

    /// Ends every listener's sequence and stops the look-out for good: the reader is closing.
    package func finish() async {
        broadcast.finish()
        await watch.stop()
    }

    /// How many listeners there are: for tests that check an observation stops listening.
    package var listenerCount: Int {
        broadcast.listenerCount
    }
}

/// A look-out for the commits a reader's own writer does not announce, which ``ReaderCommits`` runs while anything
/// listens.
package protocol CommitLookOut: Sendable {
    /// Looks out while `watch.keepRunning()` says so, announcing each commit it finds to `commits`, and calls
    /// `watch.answer(_:)` once it looks out, or could not.
    func lookOut(while watch: CommitWatch, announcingTo commits: CommitBroadcast) async
}
