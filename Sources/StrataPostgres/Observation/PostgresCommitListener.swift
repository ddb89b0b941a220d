internal import PostgresNIO
internal import StrataCore

/// Hears the commits PostgreSQL announces on ``PostgresObservation/channel``, for the observations of a
/// ``PostgresPool``: while anything listens (`ReaderCommits`), a connection of its own to the primary runs `LISTEN`, and
/// each notification is announced.
///
/// - Listening begins once `LISTEN` has been confirmed, so a commit made after it is heard.
/// - **A connection that breaks** (the server restarted, `pg_terminate_backend`) is opened again, after a pause that
///   grows from 50 ms to 2 s while the server cannot be reached; once `LISTEN` runs again, a commit is announced, so
///   that what was committed meanwhile is read.
/// - It closes its connection once nothing has listened for ``idleTime`` (checked every second), so that observations
///   that come and go (a stream per request) do not open a connection each; the next listener after that opens one
///   again, and waits for that `LISTEN` before its first read.
struct PostgresCommitListener: CommitLookOut {
    /// The pool of the server to listen to.
    let pool: PostgresConnectionPool

    static let firstPause = Duration.milliseconds(50)
    static let longestPause = Duration.seconds(2)
    static let listenerCheckInterval = Duration.seconds(1)
    /// How long the connection stays open once nothing listens.
    static let idleTime = Duration.seconds(5)

    /// The tables a notification's payload names: the OID the trigger sends; anything else (the payload of a trigger
    /// an earlier Strata installed, a client's own `NOTIFY`) may have changed everything.
    static func changes(announcedBy payload: String) -> TableScope {
        guard !payload.isEmpty, payload.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .everything
        }
        return .tables([payload])
    }

    /// Returns once nothing has listened for ``idleTime``, with the answer withdrawn: an observation that begins from
    /// then on waits for the next `LISTEN`, rather than read while this one ends and miss a commit made meanwhile.
    private static func waitUntilIdle(_ watch: CommitWatch) async throws {
        var idleSince: ContinuousClock.Instant?
        while true {
            try await Task.sleep(for: listenerCheckInterval)
            guard !watch.hasListeners else {
                idleSince = nil
                continue
            }
            let since = idleSince ?? .now
            idleSince = since
            if ContinuousClock.now - since >= idleTime, watch.withdrawAnswerIfUnheard() { return }
        }
    }

    func lookOut(while watch: CommitWatch, announcingTo commits: CommitBroadcast) async {
        var hasListened = false
        var pause = Self.firstPause
        while watch.keepRunning() {
            do {
                let connection = try await pool.openSideConnection()
                defer { PostgresPooledConnection.close(connection) }
                try await connection.listen(on: PostgresObservation.channel) { notifications in
                    watch.answer()
                    pause = Self.firstPause
                    // What was committed while no connection listened is read now.
                    if hasListened { commits.announce() }
                    hasListened = true
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await notification in notifications {
                                commits.announce(Self.changes(announcedBy: notification.payload))
                            }
                        }
                        group.addTask { try await Self.waitUntilIdle(watch) }
                        // The connection ended, or nothing has listened for a while.
                        try await group.next()
                        group.cancelAll()
                    }
                }
                // An observation that begins now waits for the next `LISTEN` (the connection ended on its own).
                watch.withdrawAnswer()
            } catch {
                watch.answer(error)
                // Whatever happens before the next `LISTEN` runs is announced then.
                hasListened = true
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, Self.longestPause)
            }
        }
    }
}
