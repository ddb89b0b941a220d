import Foundation
import Synchronization

/// The connections a pool or queue keeps to one file (a pool's writer, readers and checkpointing connection), which
/// one I/O error can break together, and which are renewed together.
///
/// When SQLite fails to release a lock of the `-shm` file, the process's shared view of that file keeps believing the
/// lock is held: every connection of the process to the file then fails with `SQLITE_PROTOCOL` (after ten seconds of
/// retries), and the belief goes only once **all** of them have closed; reopening the one that met the error is not
/// enough. So when a member finds its connection broken (`Connection.brokenBy`), the family starts a new generation:
/// each member closes its connection (an idle one at once, a busy one after its current work), and opens a new one,
/// before its next work, only once no connection of an older generation is open. A connection outside the family
/// (another pool, a `Database` of the caller's) to the same file keeps the belief alive: the new connections then
/// fail as the old ones did, and the next work tries again.
///
/// `@unchecked Sendable`: the state is read and written only with `condition` locked.
final class ConnectionFamily: @unchecked Sendable {
    /// How long a member waits for the others to close before it opens its new connection all the same.
    static let closingTimeout: TimeInterval = 10

    private let condition = NSCondition()
    private var generation = 0
    /// `generation`, for the check before each piece of work, which takes no lock.
    private let latest = Atomic<Int>(0)
    /// Per member, the generation of its open connection; nil while it has none.
    private var openGenerations: [Int?] = []
    private var members: [WeakConnection] = []

    private struct WeakConnection {
        weak var connection: SerialConnection?
    }

    /// Adds a member whose connection is open; returns its index and the generation of its connection.
    /// ``attach(_:at:)`` names it once it exists.
    func join() -> (index: Int, generation: Int) {
        condition.withLock {
            members.append(WeakConnection(connection: nil))
            openGenerations.append(generation)
            return (members.count - 1, generation)
        }
    }

    /// Names member `index`, so that a new generation can close its connection.
    func attach(_ connection: SerialConnection, at index: Int) {
        condition.withLock { members[index] = WeakConnection(connection: connection) }
    }

    /// The current generation, read without the lock: a member whose connection opened in it has nothing to do.
    var latestGeneration: Int {
        latest.load(ordering: .acquiring)
    }

    /// Whether member `index` has a connection of the current generation.
    func isCurrent(_ index: Int) -> Bool {
        condition.withLock { openGenerations[index] == generation }
    }

    /// Whether member `index` has a connection open from an older generation.
    func isOutdated(_ index: Int) -> Bool {
        condition.withLock { openGenerations[index].map { $0 != generation } ?? false }
    }

    /// Starts a new generation, because member `index`'s connection is broken, unless one has started since that
    /// connection opened; returns the other members, whose connections are to close.
    func renew(from index: Int) -> [SerialConnection] {
        condition.withLock {
            guard openGenerations[index] == generation else { return [] }
            generation += 1
            latest.store(generation, ordering: .releasing)
            return members.indices.filter { $0 != index }.compactMap { members[$0].connection }
        }
    }

    /// Notes that member `index` has closed its connection.
    func closed(_ index: Int) {
        condition.withLock {
            openGenerations[index] = nil
            condition.broadcast()
        }
    }

    /// Waits until no member but `index` has a connection of an older generation open, or ``closingTimeout`` passes.
    func waitForOlderConnectionsToClose(except index: Int) {
        let deadline = Date(timeIntervalSinceNow: Self.closingTimeout)
        condition.withLock {
            while openGenerations.indices.contains(where: { member in
                member != index && openGenerations[member].map { $0 != generation } == true
            }) {
                guard condition.wait(until: deadline) else { return }
            }
        }
    }

    /// Notes that member `index` has opened a connection of the current generation; returns that generation.
    func opened(_ index: Int) -> Int {
        condition.withLock {
            openGenerations[index] = generation
            condition.broadcast()
            return generation
        }
    }
}
