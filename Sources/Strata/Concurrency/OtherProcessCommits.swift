import Synchronization

/// Finds the commits that other processes make to a database file, for the observations of a pool or queue: while
/// anything listens (``ReaderCommits``), it checks `PRAGMA data_version` on the connection that writes (the pool's
/// writer, the queue's connection) every `interval`, and announces a commit that may have changed everything whenever
/// the value changed.
///
/// - On that connection, the value changes with the commits of every other connection to the file, never with its
///   own, which its pool announces with the tables they changed (`Connection.takeCommit()`): a change is another
///   process's commit (or a checkpoint of another connection that emptied the WAL, announced all the same).
/// - The check never waits for the writer: it runs when the writer is idle, and otherwise right after the writer's
///   current work (see ``DataVersionCheck``), which no other process can commit during, unless between two
///   transactions.
/// - The first value is read as the writer opens, so a commit made after an observation started listening changes
///   the value from there, and is announced by the next check; `listen()` returns once a check has run or is due.
/// - It stops once nothing listens, and starts again with the next listener.
///
/// See https://www.sqlite.org/pragma.html#pragma_data_version
struct OtherProcessCommits: CommitLookOut {
    /// The connection that writes.
    let writer: ConnectionPool
    let check: DataVersionCheck
    let interval: Duration

    func lookOut(while watch: CommitWatch, announcingTo commits: CommitBroadcast) async {
        while watch.keepRunning() {
            do {
                let checked: Void? = try await writer.runIfIdle { db in check.run(on: db, announcingTo: commits) }
                if checked == nil { check.isDue = true }
            } catch {
                // The pool is closing, or its writer could not be renewed: the next check announces a commit.
                check.forget()
            }
            watch.answer()
            try? await Task.sleep(for: interval)
        }
    }
}

/// The `PRAGMA data_version` of a pool's or queue's writer connection, checked by ``OtherProcessCommits``: on the
/// writer's queue, either as work of its own when the writer is idle, or when ``isDue``, after the writer's current
/// work (`SerialConnection`).
final class DataVersionCheck: Sendable {
    /// The value found last; `Int64.min` when it must be taken as changed.
    private let lastVersion: Atomic<Int64>
    private let due = Atomic<Bool>(false)

    /// A check of `writer`, whose value is read now: commits made from now on are announced.
    init(of writer: Database) throws {
        lastVersion = Atomic(try writer.dataVersion())
    }

    /// Whether the writer runs the check after its current work: set when the writer was busy.
    var isDue: Bool {
        get { due.load(ordering: .relaxed) }
        set { due.store(newValue, ordering: .relaxed) }
    }

    /// Reads the value on `database`, the writer, and announces a commit to `commits` when it changed.
    func run(on database: Database, announcingTo commits: CommitBroadcast) {
        due.store(false, ordering: .relaxed)
        // A value that cannot be read counts as changed, and leaves none to compare the next with.
        let version = (try? database.dataVersion()) ?? .min
        let last = lastVersion.exchange(version, ordering: .relaxed)
        if version == .min || version != last { commits.announce(.everything) }
    }

    /// Forgets the value found last: the next check announces a commit.
    func forget() {
        lastVersion.store(.min, ordering: .relaxed)
    }
}

extension Database {
    /// `PRAGMA data_version`, read with SQLite's API alone: not a statement of the database's, which its observability
    /// would report every time the pool checks.
    func dataVersion() throws -> Int64 {
        try Self.fetchInt64(try openHandle(), "PRAGMA data_version")
    }
}
