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
/// That pass copies the WAL as it was when it started. Unless the rest is copied before the writer's next write, the
/// WAL cannot start over from its beginning: a writer that never pauses leaves every pass a few pages short, and the
/// WAL grows with every commit. When the writer syncs each commit (`synchronous` FULL or EXTRA) that costs every
/// commit: a sync that extends a file costs about twice one that rewrites it (measured here). So in those modes, once
/// the pages committed during a pass are few (an eighth of the threshold), the writer's next commit copies them itself,
/// on its own connection: the checkpoint is then complete, and the next write starts the WAL over; more pages get
/// another pass in the background instead, so that the writer only ever copies a few. In NORMAL or OFF a commit does
/// not sync, but finishing would (the database file, then the WAL's header when it starts over): there the writer
/// never waits for a checkpoint, and the WAL starts over once a pass catches up while the writer pauses.
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
        /// A pass is done and the writer syncs its commits: its next commit copies what was committed meanwhile, or
        /// queues another pass.
        case finishing
    }

    private let connection: SerialConnection
    /// WAL pages at which a checkpoint is queued: the writer's `wal_autocheckpoint`.
    private let pageThreshold: Int32
    /// Whether the writer copies the last pages of a checkpoint itself: when it syncs each commit.
    private let writerFinishes: Bool
    /// Pages left after the last pass that the writer copies itself rather than queue another pass.
    private let finishingLimit: Int32
    private let phase = Atomic<Phase>(.idle)
    /// The WAL pages the last pass copied or found copied. Written before the phase becomes `.finishing`.
    private let backfilled = Atomic<Int32>(0)
    private let isClosed = Atomic<Bool>(false)

    /// Takes over the checkpoints of `writer`, on a new connection to the same file, renewed with the pool's other
    /// connections (`family`) after an I/O error. Returns nil when the writer's `wal_autocheckpoint` is 0 (checkpoints
    /// were turned off: nothing to take over).
    static func takingOver(
        from writer: Database, family: ConnectionFamily = ConnectionFamily()
    ) throws -> Checkpointer? {
        let threshold = try writer.fetchOne(Int.self, query: "PRAGMA wal_autocheckpoint") ?? 0
        guard threshold > 0 else { return nil }
        let path = writer.path
        let busyTimeout = writer.busyTimeout
        // A checkpoint syncs the database file as the writer's mode says.
        let synchronous = try writer.synchronous
        let open: @Sendable () throws -> sending Database = {
            let database = try Database(path: path, busyTimeout: busyTimeout)
            try database.setSynchronous(synchronous)
            return database
        }
        let checkpointer = Checkpointer(
            connection: SerialConnection(
                try open(), label: "strata.pool.checkpointer", reopen: open, family: family),
            pageThreshold: Int32(clamping: threshold),
            writerFinishes: synchronous == .full || synchronous == .extra)
        try writer.connection.observeWAL(with: checkpointer)
        return checkpointer
    }

    private init(connection: SerialConnection, pageThreshold: Int32, writerFinishes: Bool) {
        self.connection = connection
        self.pageThreshold = pageThreshold
        self.writerFinishes = writerFinishes
        self.finishingLimit = max(pageThreshold / 8, 1)
    }

    /// Called on the writer's thread after each commit, with the writer's handle and the number of pages in the WAL.
    /// Only this thread leaves `.idle` and `.finishing`; only the checkpointer's leaves `.copying`.
    func walDidGrow(to pages: Int32, writer: OpaquePointer) {
        guard !isClosed.load(ordering: .relaxed) else { return }
        switch phase.load(ordering: .acquiring) {
        case .copying:
            break
        case .finishing:
            if pages - backfilled.load(ordering: .relaxed) <= finishingLimit {
                phase.store(.idle, ordering: .relaxed)
                checkpointPassively(writer, of: nil)
            } else {
                queuePass()
            }
        case .idle:
            if pages >= pageThreshold { queuePass() }
        }
    }

    /// Copies the WAL into the database file on the checkpointer's connection, while the writer goes on.
    private func queuePass() {
        phase.store(.copying, ordering: .relaxed)
        connection.submit { db in
            let copied = db.handle.map { checkpointPassively($0, of: db.connection) } ?? 0
            self.backfilled.store(copied, ordering: .relaxed)
            self.phase.store(self.writerFinishes ? .finishing : .idle, ordering: .releasing)
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
/// waiting for any lock, and returns how many of the WAL's pages are in the database file now. A failure (busy,
/// closed, an I/O error) leaves the WAL as it is, for the next checkpoint, and returns 0; one that can break the
/// connection marks `connection` for replacement before the next pass.
///
/// See https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
@discardableResult
private func checkpointPassively(_ handle: OpaquePointer, of connection: Connection?) -> Int32 {
    var copied: Int32 = 0
    let result = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
    if result != SQLITE_OK, let connection, connection.brokenBy == nil {
        let code = ResultCode(rawValue: sqlite3_extended_errcode(handle))
        if code.mayBreakConnection { connection.brokenBy = code }
    }
    return result == SQLITE_OK ? copied : 0
}
