// The child process of the I/O fault tests (Tests/StrataFaultTests), run with the fault shim
// (Tests/FaultInjection/fault.c) preloaded: it uses Strata on a database file whose system calls fail, and reports on
// stdout, one line at a time and unbuffered, what Strata told it, so that the parent can hold it to its word once
// the file is read back without faults.
//
//   strata-fault-child writes PATH wal|delete|pool|queue COUNT
//       Inserts rows 1001, 1002, ... into `item`, one transaction each (a `Database` in WAL or rollback-journal
//       mode, or a pool's or queue's `write`), printing "committed N", "unknown N" (commitOutcomeUnknown) or
//       "failed N CODE" for each; a pool also reads after each write ("read-failed CODE"). Stops after three
//       failures in a row. "opened" once the database is open, "error DESCRIPTION" if it cannot be, "done" at the end.
//       A Database is left open at exit, as by a process that crashed; a pool or queue is closed.
//   strata-fault-child open PATH
//       Opens the file with Database(path:): "opened MODE" (its journal mode as Strata reports it) or "error ...".
//   strata-fault-child set-journal PATH MODE OPS ERRNO AT
//       Opens the file (in the other mode than MODE), arms the fault (OPS, ERRNO, at call AT, once), calls
//       setJournalMode(MODE) (`fetch:MODE`: fetchOne of the pragma): "set" or "error ...", then "faults K" (how
//       many calls the shim failed).
//   strata-fault-child commit PATH wal|delete OPS ERRNO AT transaction|returning
//       Opens the file, arms the fault (persistent from call AT), inserts row 1001 in `transaction { }`, or alone
//       with `RETURNING` read by `fetchAll` (in a savepoint that begins the transaction, and whose `RELEASE`
//       commits it): "committed 1001", "unknown 1001 DESCRIPTION" or "failed 1001 DESCRIPTION", then "faults K",
//       and exits without closing the database, as a process that crashed then would.
//   strata-fault-child read PATH OPS ERRNO AT
//       Opens the file, arms the fault (persistent from call AT), reads every row: "read N" or "error DESCRIPTION",
//       then "faults K".
//   strata-fault-child recover PATH pool|queue OPS ERRNO
//       Commits ten rows through a pool or queue, arms a persistent fault, writes and reads until one fails
//       ("failed N ...", "unknown N ...", "read-failed ..."), disarms it, then writes and reads 100 more rows:
//       "committed N" for each; "recovered" when all succeeded, "stuck DESCRIPTION" at the first that did not.
import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one line to stdout with write(2): nothing is buffered in the process if it is killed.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("strata-fault-child: " + message + "\n").utf8))
    exit(2)
}

/// An error's description on one line.
func describe(_ error: any Error) -> String {
    String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
}

/// The fault shim's controls, found in the process (the shim is preloaded).
enum Fault {
    private typealias Configure = @convention(c) (UnsafePointer<CChar>?, Int32, Int, Int) -> Void
    private typealias Counter = @convention(c) () -> Int

    private static func symbol<T>(_ name: String, as type: T.Type) -> T {
        // The program's handle searches every library loaded at start, the preloaded shim among them.
        guard let pointer = dlsym(dlopen(nil, RTLD_NOW), name) else {
            fail("the fault shim is not loaded (no \(name))")
        }
        return unsafeBitCast(pointer, to: type)
    }

    /// Fails the calls of `ops` from the `at`th on with `errno` (SHORT: short writes), `times` of them (0: all).
    static func arm(ops: String, errno: String, at: Int, times: Int = 0) {
        let configure = symbol("strata_fault_configure", as: Configure.self)
        ops.withCString { configure($0, code(errno), at, times) }
    }

    static func disarm() {
        arm(ops: "all", errno: "EIO", at: 0)
    }

    /// How many calls the shim failed since it was last armed.
    static var faults: Int {
        symbol("strata_fault_faults", as: Counter.self)()
    }

    private static func code(_ name: String) -> Int32 {
        switch name {
        case "EIO": EIO
        case "ENOSPC": ENOSPC
        case "EROFS": EROFS
        case "EDQUOT": EDQUOT
        case "SHORT": 0
        default: fail("unknown errno \(name)")
        }
    }
}

extension DatabaseError {
    /// A journal mode the pragma kept: not an error SQLite reports, so the child makes one.
    static func invalidMode(_ mode: String?) -> any Error {
        struct KeptMode: Error, CustomStringConvertible {
            let description: String
        }
        return KeptMode(description: "the journal mode stays \(mode ?? "unknown")")
    }
}

/// The row `id` of the `item` table: its payload's length depends on the id, so a torn row shows.
func payload(_ id: Int) -> String {
    String(repeating: "p", count: 100 + (id * 37) % 3000)
}

let insertSQL = "INSERT INTO item (id, payload) VALUES (?, ?)"

func insert(_ id: Int, into db: Database) throws {
    let statement = try db.cachedStatement(query: insertSQL)
    try statement.bind(value: id, at: 1)
    try statement.bind(value: payload(id), at: 2)
    try statement.perform()
}

/// Reports the outcome of the write of row `id`: true when it committed.
func reportWrite(_ id: Int, _ write: () async throws -> Void) async -> Bool {
    do {
        try await write()
        report("committed \(id)")
        return true
    } catch let error as DatabaseError where error.code == .commitOutcomeUnknown {
        report("unknown \(id) \(describe(error))")
    } catch {
        report("failed \(id) \(describe(error))")
    }
    return false
}

/// A `write` and a `read` of a pool or a queue.
protocol Writer: Sendable {
    func write(_ id: Int) async throws
    func count() async throws -> Int
    func close() async
}

struct PoolWriter: Writer {
    let pool: DatabasePool
    func write(_ id: Int) async throws { try await pool.write { db in try insert(id, into: db) } }
    func count() async throws -> Int {
        try await pool.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") ?? 0 }
    }
    func close() async { await pool.close() }
}

struct QueueWriter: Writer {
    let queue: DatabaseQueue
    func write(_ id: Int) async throws { try await queue.write { db in try insert(id, into: db) } }
    func count() async throws -> Int {
        try await queue.read { db in try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") ?? 0 }
    }
    func close() async { await queue.close() }
}

func makeWriter(_ kind: String, path: String) throws -> any Writer {
    switch kind {
    case "pool": PoolWriter(pool: try DatabasePool(path: path, readers: 2))
    case "queue": QueueWriter(queue: try DatabaseQueue(path: path))
    default: fail("unknown writer \(kind)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: strata-fault-child SCENARIO PATH ...") }
let path = arguments[2]

func argument(_ index: Int) -> String {
    guard index < arguments.count else { fail("missing argument \(index) for \(arguments[1])") }
    return arguments[index]
}

func intArgument(_ index: Int) -> Int {
    guard let value = Int(argument(index)) else { fail("argument \(index) is not a number") }
    return value
}

switch arguments[1] {
case "writes":
    let mode = argument(3)
    let count = intArgument(4)
    var write: (Int) async throws -> Void
    var read: (() async throws -> Int)?
    var close: () async -> Void = {}
    do {
        switch mode {
        case "wal", "delete":
            let db = try Database(path: path)
            if mode == "delete" { try db.setJournalMode(.delete) }
            write = { id in try db.transaction { db in try insert(id, into: db) } }
            // No close, as a process that crashes after its last write: the next connection recovers the WAL or
            // the journal as the faults left them, where a close would checkpoint only what this one knows.
            close = { _ = db }
        default:
            let writer = try makeWriter(mode, path: path)
            write = writer.write
            read = writer.count
            close = writer.close
        }
    } catch {
        report("error \(describe(error))")
        exit(1)
    }
    report("opened")
    var failuresInARow = 0
    for id in 1001..<(1001 + count) where failuresInARow < 3 {
        failuresInARow = await reportWrite(id) { try await write(id) } ? 0 : failuresInARow + 1
        if let read {
            do {
                _ = try await read()
            } catch {
                report("read-failed \(describe(error))")
            }
        }
    }
    await close()
    report("done")

case "open":
    do {
        let db = try Database(path: path)
        report("opened \(try db.journalMode)")
        db.close()
    } catch {
        report("error \(describe(error))")
    }

case "set-journal":
    // `fetch:MODE` runs the pragma through fetchOne instead of setJournalMode.
    let throughFetch = argument(3).hasPrefix("fetch:")
    let modeName = throughFetch ? String(argument(3).dropFirst(6)) : argument(3)
    guard let mode = JournalMode(rawValue: modeName) else { fail("unknown journal mode \(modeName)") }
    do {
        let db = try Database(path: path)
        // Opening switched the file to WAL: a change to WAL starts from rollback mode.
        if mode == .wal { try db.setJournalMode(.delete) }
        Fault.arm(ops: argument(4), errno: argument(5), at: intArgument(6), times: 1)
        do {
            if throughFetch {
                let result = try db.fetchOne(String.self, query: "PRAGMA journal_mode = \(mode.rawValue)")
                guard result == mode.rawValue else { throw DatabaseError.invalidMode(result) }
            } else {
                try db.setJournalMode(mode)
            }
            report("set")
        } catch {
            report("error \(describe(error))")
        }
        let faults = Fault.faults
        Fault.disarm()
        db.close()
        report("faults \(faults)")
    } catch {
        fail("could not open \(path): \(describe(error))")
    }

case "commit":
    do {
        let db = try Database(path: path)
        if argument(3) == "delete" { try db.setJournalMode(.delete) }
        Fault.arm(ops: argument(4), errno: argument(5), at: intArgument(6))
        if argument(7) == "returning" {
            _ = await reportWrite(1001) {
                _ = try db.fetchAll(
                    Int.self, query: "INSERT INTO item (id, payload) VALUES (:id, :payload) RETURNING id",
                    parameters: ["id": DatabaseValue.integer(1001), "payload": .text(payload(1001))])
            }
        } else {
            _ = await reportWrite(1001) { try db.transaction { db in try insert(1001, into: db) } }
        }
        let faults = Fault.faults
        Fault.disarm()
        // No close: a process that stops here (or crashes) leaves the WAL as the failed commit left it, for the next
        // connection to recover; a close would checkpoint only what the connection knows is committed.
        report("faults \(faults)")
        exit(0)
    } catch {
        fail("could not open \(path): \(describe(error))")
    }

case "read":
    do {
        let db = try Database(path: path)
        Fault.arm(ops: argument(3), errno: argument(4), at: intArgument(5))
        do {
            let rows = try db.fetchAll(String.self, query: "SELECT payload FROM item ORDER BY id")
            let indexed = try db.fetchAll(Int.self, query: "SELECT id FROM item WHERE payload > 'p' ORDER BY payload")
            report("read \(rows.count) \(indexed.count)")
        } catch {
            report("error \(describe(error))")
        }
        let faults = Fault.faults
        Fault.disarm()
        db.close()
        report("faults \(faults)")
    } catch {
        fail("could not open \(path): \(describe(error))")
    }

case "recover":
    do {
        let writer = try makeWriter(argument(3), path: path)
        var id = 1000
        for _ in 0..<10 {
            id += 1
            guard await reportWrite(id, { try await writer.write(id) }) else { fail("a write failed before the fault") }
        }
        Fault.arm(ops: argument(4), errno: argument(5), at: 1)
        var attempts = 0
        while attempts < 20 {
            attempts += 1
            id += 1
            let committed = await reportWrite(id) { try await writer.write(id) }
            do {
                _ = try await writer.count()
            } catch {
                report("read-failed \(describe(error))")
                break
            }
            if !committed { break }
        }
        report("faults \(Fault.faults)")
        Fault.disarm()
        for _ in 0..<100 {
            id += 1
            do {
                try await writer.write(id)
                report("committed \(id)")
                _ = try await writer.count()
            } catch {
                report("stuck \(describe(error))")
                await writer.close()
                exit(1)
            }
        }
        report("recovered")
        await writer.close()
    } catch {
        fail("could not open \(path): \(describe(error))")
    }

default:
    fail("unknown scenario \(arguments[1])")
}
