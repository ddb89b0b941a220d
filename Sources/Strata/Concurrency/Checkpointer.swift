internal import CSQLite
import Synchronization

/// Checkpoints a pool's WAL on a connection of its own, so that no write waits for the copy.
///
/// By default SQLite checkpoints on the connection whose commit grows the WAL past `wal_autocheckpoint` pages,
/// before that commit returns: copying the pages into the database file and syncing it takes milliseconds, tens of
/// them on a slow disk, and every write queued behind waits that long. A pool's writer reports its commits here
/// instead (`sqlite3_wal_hook`, which replaces the automatic checkpoint), and once the WAL has reached the threshold a
/// passive checkpoint runs on this connection's queue while the writer goes on.
///
/// That pass copies the WAL as it was when it started; the writer's next commit then copies the few pages committed
/// meanwhile itself, on its own connection, so that the checkpoint is complete and the commit after it starts the
/// WAL over from its beginning. Without that last step, a writer that never pauses would leave every pass a few pages
/// short: the WAL would never start over, every commit would grow the file (a costlier sync than rewriting it), and
/// passes would follow each other without end, their syncs competing with the commits'.
///
/// A passive checkpoint takes no lock that writers or readers wait for; one that cannot finish (a reader still uses
/// old pages, another process checkpoints) leaves the rest to the next one.
///
/// See https://www.sqlite.org/wal.html#application_initiated_checkpoints
final class Checkpointer: Sendable {
    /// Where the checkpoint of the WAL stands.
    private enum Phase: UInt8, AtomicRepresentable {
        /// No checkpoint under way: the commit that brings the WAL to the threshold queues one.
        case idle
        /// A pass is queued or running on the checkpointer's connection.
        case copying
        /// The pass is done: the writer's next commit copies what was committed during it.
        case finishing
    }

    private let connection: SerialConnection
    /// WAL pages at which a checkpoint is queued: the writer's `wal_autocheckpoint`.
    private let pageThreshold: Int32
    private let phase = Atomic<Phase>(.idle)
    private let isClosed = Atomic<Bool>(false)

    /// Takes over the checkpoints of `writer`, on a new connection to the same file. Returns nil when the writer's
    /// `wal_autocheckpoint` is 0 (checkpoints were turned off: nothing to take over).
    static func takingOver(from writer: Database) throws -> Checkpointer? {
        let threshold = try writer.fetchOne(Int.self, query: "PRAGMA wal_autocheckpoint") ?? 0
        guard threshold > 0 else { return nil }
        let database = try Database(path: writer.path, busyTimeout: writer.busyTimeout)
        // A checkpoint syncs the database file as the writer's mode says.
        try database.setSynchronous(try writer.synchronous)
        let checkpointer = Checkpointer(
            connection: SerialConnection(database, label: "strata.pool.checkpointer"),
            pageThreshold: Int32(clamping: threshold))
        try writer.connection.observeWAL(with: checkpointer)
        return checkpointer
    }

    private init(connection: SerialConnection, pageThreshold: Int32) {
        self.connection = connection
        self.pageThreshold = pageThreshold
    }

    /// Called on the writer's thread after each commit, with the writer's handle and the number of pages in the WAL.
    func walDidGrow(to pages: Int32, writer: OpaquePointer) {
        guard !isClosed.load(ordering: .acquiring) else { return }
        if phase.compareExchange(expected: .finishing, desired: .idle, ordering: .acquiringAndReleasing).exchanged {
            checkpointPassively(writer)
            return
        }
        guard pages >= pageThreshold,
            phase.compareExchange(expected: .idle, desired: .copying, ordering: .acquiringAndReleasing).exchanged
        else { return }
        connection.submit { db in
            if let handle = db.handle { checkpointPassively(handle) }
            self.phase.store(.finishing, ordering: .releasing)
        }
    }

    /// The `synchronous` mode of the checkpointing connection, which decides how a checkpoint syncs the database file.
    var synchronous: SynchronousMode {
        get async throws { try await connection.perform { db in try db.synchronous } }
    }

    /// Closes the connection after the checkpoint queued, if any. Commits from then on are not checkpointed until
    /// the writer closes, which checkpoints everything.
    func close() async {
        isClosed.store(true, ordering: .releasing)
        await connection.close()
    }
}

extension Connection {
    /// Reports each commit's WAL size to `checkpointer`, in place of SQLite's automatic checkpoint. The connection
    /// keeps `checkpointer` for as long as the handle lives.
    ///
    /// See https://www.sqlite.org/c3ref/wal_hook.html
    func observeWAL(with checkpointer: Checkpointer) throws {
        let handle = try openHandle()
        walObserver = checkpointer
        sqlite3_wal_hook(
            handle,
            { context, writer, _, pages in
                if let context, let writer {
                    Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().walDidGrow(
                        to: pages, writer: writer)
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(checkpointer).toOpaque())
    }
}

/// Runs a passive checkpoint on the connection `handle`: copies what it can of the WAL into the database file without
/// waiting for any lock. A failure (busy, closed) leaves the WAL as it is, for the next checkpoint.
///
/// See https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
private func checkpointPassively(_ handle: OpaquePointer) {
    _ = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
}
