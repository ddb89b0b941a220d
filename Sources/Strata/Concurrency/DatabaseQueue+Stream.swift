/// What the streams of `DatabaseReader` (written once for `DatabasePool` and `DatabaseQueue`) read on: this
/// queue's connection.
extension DatabaseQueue: StreamingReader {
    /// The queue's connection, which can write: the stream's transaction turns `PRAGMA query_only` on, as a read
    /// does.
    var streamSource: StreamSource {
        StreamSource(connections: connection, needsQueryOnly: true)
    }

    /// Whether the connection is free: for tests that check a stream gave it back.
    var isConnectionIdle: Bool {
        connection.idleCount == 1
    }
}
