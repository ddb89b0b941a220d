import Foundation

/// One database stack under test. Every system runs the same SQL schema and the same rows,
/// and hands back what it read so the harness can check that it did all the work.
protocol BenchmarkSystem: AnyObject {
    /// The name used by `--only` and in the JSON output.
    static var name: String { get }

    /// Takes the rows to insert, converted to the system's own record type outside any timing.
    init(items: [Item]) throws

    /// Opens a new empty database with the `item` table: in memory when `path` is nil, else a
    /// file in WAL mode with `synchronous = NORMAL`.
    func openEmpty(path: String?) throws

    /// The INSERT phase: every row in one transaction. Timed by the caller.
    func insertAll() throws

    /// Writes the database to the file `path` (`VACUUM INTO`) for the checksum reader, and closes it.
    func exportAndClose(to path: String) throws

    /// Opens an in-memory database holding the rows of the file `source`, for FETCH and LOOKUP.
    func openLoaded(source: String) throws

    /// The FETCH phase: every row into an array of records.
    func fetchAll() throws -> Measurement

    /// The LOOKUP phase: one record per primary key in `ids`, in order.
    func lookup(ids: [Int64]) throws -> Measurement

    /// Closes whatever database is open.
    func close()
}

/// The time of a timed section and the checksum of what it produced, computed after the clock stopped.
struct Measurement {
    var elapsed: Duration
    var checksum: Checksum
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` between two readings of the monotonic clock.
@inline(__always)
func timed<T>(_ body: () throws -> T) rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    return (clock.now - start, result)
}

/// Every system, in table order.
var allSystems: [any BenchmarkSystem.Type] {
    [
        CSystem.self,
        StrataCodableSystem.self,
        StrataTableSystem.self,
        StrataRequestSystem.self,
        StrataRowSystem.self,
        GRDBCodableSystem.self,
        GRDBManualSystem.self,
    ]
}
