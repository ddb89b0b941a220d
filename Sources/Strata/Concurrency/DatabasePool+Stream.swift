/// What the streams of `DatabaseReader` (written once for `DatabasePool` and `DatabaseQueue`) read on: this
/// pool's connections.
extension DatabasePool: StreamingReader {
    /// The readers, which open as read-only: the stream's transaction needs nothing more to refuse writes.
    var streamSource: StreamSource {
        StreamSource(connections: readers, needsQueryOnly: false)
    }

    /// How many readers are free: for tests that check a stream gave its reader back.
    var idleReaderCount: Int {
        readers.idleCount
    }

    /// How many tasks wait for a reader, reads and closes: for tests that need work queued before they go on.
    var readerWaitingCount: Int {
        readers.waitingCount
    }
}
