/// How SQLite's own busy handler waits for a lock another connection holds (`sqlite3_busy_timeout`, whose handler is
/// `sqliteDefaultBusyCallback` in SQLite's main.c): it sleeps, tries again, and sleeps longer the longer it has
/// waited, 1 ms at first and 100 ms from 228 ms on.
///
/// Strata's counting handler (`StatementObserver.installBusyHandler(timeout:)`) sleeps the same way, and a pausable
/// transaction leaves the lock free long enough for such a waiter's next try (`Database.pauseForOtherWriters(after:)`).
///
/// See https://www.sqlite.org/c3ref/busy_timeout.html
enum BusyBackoff {
    /// The sleeps before the first tries, in milliseconds; every later sleep is the last one.
    static let delays: [Int64] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// The `attempt`-th sleep (from 0), in milliseconds.
    static func delay(attempt: Int32) -> Int64 {
        delays[Int(min(max(attempt, 0), Int32(delays.count - 1)))]
    }

    /// How long a waiter has planned to sleep in all before its `attempt`-th sleep (from 0), in milliseconds.
    static func slept(before attempt: Int32) -> Int64 {
        let attempt = Int(max(attempt, 0))
        if attempt < delays.count { return delays.prefix(attempt).reduce(0, +) }
        return delays.reduce(0, +) + Int64(attempt - delays.count) * delays[delays.count - 1]
    }

    /// The longest sleep of a waiter that began waiting `waited` ago: the sleep whose planned start is the last at
    /// or before `waited` (real sleeps last longer than planned, so a real waiter is at that sleep or at an earlier,
    /// shorter one). The waiter tries again at most that long from now.
    static func longestSleep(afterWaiting waited: Duration) -> Duration {
        var attempt: Int32 = 0
        while attempt < Int32(delays.count - 1), Duration.milliseconds(slept(before: attempt + 1)) <= waited {
            attempt += 1
        }
        return .milliseconds(delay(attempt: attempt))
    }
}
