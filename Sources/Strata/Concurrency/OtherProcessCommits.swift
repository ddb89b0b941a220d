/// Finds the commits that other processes make to a database file, for the observations of a pool or queue: while
/// anything listens (``ReaderCommits``), it reads `PRAGMA data_version` on a read-only connection of its own every
/// `interval`, and announces a commit whenever the value changed.
///
/// - The value changes with any other connection's commit, the pool's own writer's included, so a commit of the pool
///   may be announced twice (once by the writer, once here); an observation then reads once more and, for an
///   `Equatable` result, emits nothing.
/// - `listen()` returns once the value has been read, so a commit made after an observation started listening and
///   before its first read changes the value from there, and is announced.
/// - It stops once nothing listens, closing its connection, and starts again with the next listener.
///
/// See https://www.sqlite.org/pragma.html#pragma_data_version
struct OtherProcessCommits: CommitLookOut {
    let path: String
    let interval: Duration

    func lookOut(while watch: CommitWatch, announcingTo commits: CommitBroadcast) async {
        // Polling answers without an error: a failed read is announced as a commit instead.
        var connection: SerialConnection?
        var lastVersion: Int64?
        while watch.keepRunning() {
            do {
                if connection == nil {
                    // Opened on the cooperative pool: a few system calls, once per start.
                    connection = SerialConnection(
                        try Database(path: path, readOnly: true), label: "strata.other-process-commits")
                }
                let version = try await connection?.perform { db in
                    try db.fetchOne(Int64.self, query: "PRAGMA data_version")
                }
                if let lastVersion, version != lastVersion {
                    commits.announce()
                }
                lastVersion = version
            } catch {
                // Tried again after the interval, on a new connection. What changed meanwhile cannot be known: the
                // next value read is announced (`PRAGMA data_version` is never negative).
                await connection?.close()
                connection = nil
                lastVersion = -1
            }
            watch.answer()
            try? await Task.sleep(for: interval)
        }
        await connection?.close()
    }
}
