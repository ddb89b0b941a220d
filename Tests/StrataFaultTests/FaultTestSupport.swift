import Foundation
import Strata
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fault for the shim (Tests/FaultInjection/fault.c): which calls count, how they fail, from which one, how many.
struct Fault: Sendable, CustomStringConvertible {
    /// `write`, `sync`, `read`, `lock,unlock`... or `all`.
    var ops: String
    /// `EIO`, `ENOSPC`, `EROFS`, `EDQUOT` or `SHORT` (short writes).
    var errno: String
    /// The 1-based position of the first failing call among those that count; 0 fails none and only counts.
    var at: Int
    /// How many calls fail from `at` on: 0 every later one (a persistent fault), 1 or more a transient one.
    var times: Int = 0

    /// A fault that fails nothing: the run counts the calls.
    static func counting(_ ops: String) -> Fault { Fault(ops: ops, errno: "EIO", at: 0) }

    var description: String {
        at == 0 ? "no fault (\(ops))" : "\(ops) \(errno) at call \(at)" + (times == 0 ? "" : " (\(times) only)")
    }

    /// The shim's environment, watching the paths that contain one of `watching`.
    func environment(watching: [String], report: String) -> [String: String] {
        [
            "STRATA_FAULT_PATH": watching.joined(separator: ":"),
            "STRATA_FAULT_OPS": ops,
            "STRATA_FAULT_ERRNO": errno,
            "STRATA_FAULT_AT": String(at),
            "STRATA_FAULT_TIMES": String(times),
            "STRATA_FAULT_REPORT": report,
        ]
    }
}

/// The shim, compiled once per test process into a temp folder with the system's C compiler.
enum FaultShim {
    /// The source, in the repository.
    static let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StrataFaultTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("FaultInjection/fault.c")

    private static let compiled: Result<String, FaultTestError> = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fault-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return .failure(FaultTestError("could not create \(folder.path): \(error)"))
        }
        let library = folder.appendingPathComponent("fault.so").path
        let errors = folder.appendingPathComponent("cc.stderr").path
        let compiler = ProcessInfo.processInfo.environment["CC"] ?? "cc"
        let termination: ChildProcess.Termination
        do {
            let child = try ChildProcess.spawn(
                "/usr/bin/env", [compiler, "-shared", "-fPIC", "-O1", "-o", library, source.path, "-ldl"],
                standardError: .file(errors))
            termination = try child.wait(timeout: .seconds(120)).termination
        } catch {
            return .failure(FaultTestError("could not run \(compiler): \(error)"))
        }
        guard termination == .exited(0) else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            return .failure(FaultTestError("\(compiler) could not build the fault shim (\(termination)): \(message)"))
        }
        return .success(library)
    }()

    /// The path of `fault.so`.
    static func library() throws -> String {
        try compiled.get()
    }
}

struct FaultTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An executable SwiftPM built next to the test bundle: `strata` or `strata-fault-child`.
func builtExecutable(_ name: String) throws -> URL {
    var folders: [URL] = []
    if let first = CommandLine.arguments.first {
        folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
    }
    if let executable = Bundle.main.executableURL {
        folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
    }
    folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for folder in folders {
        var candidate = folder
        // On macOS the test bundle is a folder (`….xctest/Contents/MacOS`); climb to the products folder.
        for _ in 0..<4 {
            let binary = candidate.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: binary.path)
            {
                return binary
            }
            candidate = candidate.deletingLastPathComponent()
        }
    }
    throw FaultTestError("no \(name) next to the test bundle (looked in \(folders.map(\.path)))")
}

/// One run of a child process under a fault.
struct FaultRun: Sendable {
    /// The exit status, or the signal when `signaled`.
    var status: Int32
    var signaled: Bool
    var timedOut: Bool
    var stdout: String
    var stderr: String
    /// The calls the shim counted, and the ones it failed.
    var calls: Int
    var faults: Int
    /// How long the run took.
    var duration: Duration

    var lines: [String] {
        stdout.split(separator: "\n").map(String.init)
    }

    var errorLines: [String] {
        stderr.split(separator: "\n").map(String.init)
    }

    /// `binary` run with `arguments` in `directory`, the shim preloaded with `fault` on the paths in `watching`;
    /// killed after `timeout`. Waits on a thread of its own, never on one of Swift's cooperative threads, which other
    /// suites' tests need meanwhile.
    static func run(
        _ binary: URL, _ arguments: [String], in directory: URL, fault: Fault, watching: [String],
        timeout: Duration = .seconds(60)
    ) async throws -> FaultRun {
        try await offThePool {
            try runBlocking(binary, arguments, in: directory, fault: fault, watching: watching, timeout: timeout)
        }
    }

    /// ``run(_:_:in:fault:watching:timeout:)``, waiting on the calling thread.
    static func runBlocking(
        _ binary: URL, _ arguments: [String], in directory: URL, fault: Fault, watching: [String],
        timeout: Duration = .seconds(60)
    ) throws -> FaultRun {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fault-run-\(UUID())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        let reportURL = scratch.appendingPathComponent("report")
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in fault.environment(watching: watching, report: reportURL.path) {
            environment[key] = value
        }
        environment["LD_PRELOAD"] = try FaultShim.library()
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // A child built with the address sanitizer wants its runtime first among the libraries, before the shim.
        environment["ASAN_OPTIONS"] = "verify_asan_link_order=0:detect_leaks=0"
        let clock = ContinuousClock()
        let start = clock.now
        // Spawned and reaped by hand, not with Foundation's `Process`, whose `run()` overflowed a heap buffer under
        // the address sanitizer (see `ChildProcess`).
        let child = try ChildProcess.spawn(
            binary.path, arguments, in: directory.path, environment: environment, standardOutput: .file(outURL.path),
            standardError: .file(errURL.path))
        let (termination, timedOut) = try child.wait(timeout: timeout)
        let duration = clock.now - start
        let report = (try? String(contentsOf: reportURL, encoding: .utf8)) ?? ""
        let counters = report.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let (status, signaled) =
            switch termination {
            case .exited(let status): (status, false)
            case .signaled(let signal): (signal, true)
            }
        return FaultRun(
            status: status,
            signaled: signaled,
            timedOut: timedOut,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8),
            calls: counters.first ?? 0,
            faults: counters.count > 1 ? counters[1] : 0,
            duration: duration)
    }

    /// A one-line summary for failure messages.
    var summary: String {
        "status \(status)\(signaled ? " (signal)" : "")\(timedOut ? " (timed out)" : ""), calls \(calls), "
            + "faults \(faults), stdout \(lines.suffix(4)), stderr \(errorLines.suffix(3))"
    }
}

/// A fresh folder under the system temp folder, removed when released.
final class FaultWorkspace {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fault-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// The names in the folder, sorted.
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// Removes `name` and its `-wal`, `-shm` and `-journal` files.
    func removeDatabase(_ name: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path(name + suffix))
        }
    }

    /// Copies the database `source` (one file, no WAL) to `name`, replacing what was there.
    func copyDatabase(_ source: String, to name: String) throws {
        removeDatabase(name)
        try FileManager.default.copyItem(atPath: path(source), toPath: path(name))
    }
}

/// The `item` table the child writes: row `id`'s payload length depends on its id, so that a torn row shows.
enum Items {
    static func payloadLength(_ id: Int) -> Int { 100 + (id * 37) % 3000 }

    /// Creates `name` in `workspace` with rows 1...`count`, in `mode`, checkpointed into one file.
    static func makeDatabase(_ name: String, in workspace: FaultWorkspace, rows count: Int, mode: JournalMode) throws {
        workspace.removeDatabase(name)
        let db = try Database(path: workspace.path(name))
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
        try db.transaction { db in
            let insert = try db.prepare(query: "INSERT INTO item (id, payload) VALUES (?, ?)")
            for id in 1...count {
                try insert.bind(value: id, at: 1)
                try insert.bind(value: String(repeating: "p", count: payloadLength(id)), at: 2)
                try insert.perform()
            }
        }
        try db.setJournalMode(mode)
        db.close()
    }

    /// What a faulted run left in the file, read without faults.
    struct Contents {
        var ids: Set<Int>
        var tornRows: Int
        var integrity: [String]
    }

    /// Opens `path` (as a new process would) and reads what is there; throws when it cannot be opened or read.
    static func contents(of path: String) throws -> Contents {
        let db = try Database(path: path)
        defer { db.close() }
        let ids = try db.fetchAll(Int.self, query: "SELECT id FROM item")
        let torn =
            try db.fetchOne(
                Int.self, query: "SELECT count(*) FROM item WHERE length(payload) != 100 + (id * 37) % 3000")
            ?? 0
        return Contents(ids: Set(ids), tornRows: torn, integrity: try db.integrityCheck())
    }
}

/// What the child said of each write: committed, outcome unknown, failed.
struct WriteReports {
    var committed: Set<Int> = []
    var unknown: Set<Int> = []
    var failed: Set<Int> = []

    init(_ lines: [String]) {
        for line in lines {
            let words = line.split(separator: " ", maxSplits: 2)
            guard words.count >= 2, let id = Int(words[1]) else { continue }
            switch words[0] {
            case "committed": committed.insert(id)
            case "unknown": unknown.insert(id)
            case "failed": failed.insert(id)
            default: break
            }
        }
    }

    /// Why `present`, the child's rows in the file, breaks the child's word: a row reported committed that is missing,
    /// or a row present that was reported failed (or never reported). nil when every report holds.
    func violation(present: Set<Int>) -> String? {
        let lost = committed.subtracting(present)
        let unexpected = present.subtracting(committed).subtracting(unknown)
        guard lost.isEmpty, unexpected.isEmpty else {
            return "rows reported committed and missing: \(lost.sorted()); rows present though reported "
                + "failed or never reported: \(unexpected.sorted()) (failed: \(failed.sorted()))"
        }
        return nil
    }
}

/// The bytes 18 and 19 of a database file's header: 1 for a rollback journal, 2 for WAL.
func headerJournalVersions(_ path: String) throws -> [UInt8] {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let header = try handle.read(upToCount: 20) ?? Data()
    guard header.count == 20 else { throw FaultTestError("\(path) has no database header") }
    return [header[18], header[19]]
}

/// Runs `body` on a dispatch thread and returns what it returns: blocking work (waiting for children) never holds one
/// of Swift's cooperative threads, which other tests need meanwhile.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}
