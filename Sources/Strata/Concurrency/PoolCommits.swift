/// The commits a pool or queue tells its observations of (`commitNotifications()`): its writer's, which its writer's
/// ``SerialConnection`` announces to ``broadcast``, and other processes', which ``OtherProcessCommits`` finds while
/// anything listens, when the file may have other writers.
final class PoolCommits: Sendable {
    /// What the writer's connection announces its commits to.
    let broadcast: CommitBroadcast
    /// Finds other processes' commits; nil for an in-memory database, or when the checks are turned off.
    private let otherProcesses: OtherProcessCommits?

    /// - Parameters:
    ///   - path: The database file whose other writers to look for; nil for none.
    ///   - interval: How often to look (`otherProcessCheckInterval`); nil for never.
    init(otherProcessesOf path: String?, every interval: Duration?) {
        let broadcast = CommitBroadcast()
        self.broadcast = broadcast
        otherProcesses = path.flatMap { path in
            interval.map { OtherProcessCommits(path: path, interval: $0, commits: broadcast) }
        }
    }

    /// A sequence with an element after each commit from now on, once any check for other processes' commits has
    /// read its first value.
    func listen() async -> AsyncThrowingStream<Void, any Error> {
        let notifications = broadcast.listen()
        await otherProcesses?.start()
        return notifications
    }

    /// Ends every listener's sequence and stops looking for other processes' commits: the pool or queue is closing.
    func finish() async {
        broadcast.finish()
        await otherProcesses?.stop()
    }

    /// How many observations listen: for tests that check an observation stops listening.
    var listenerCount: Int {
        broadcast.listenerCount
    }
}
