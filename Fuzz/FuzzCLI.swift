// Fuzz target: argument vectors to the `strata` command-line tool, parsed and run in-process.
//
// The tool's sources are compiled into the fuzzer without their `@main`; each input is parsed with
// `StrataCommand.parseAsRoot` and the command it names runs, in a scratch folder that is rebuilt
// before every input (a Migrations folder that is good, has a gap, a bad name, broken SQL, a
// duplicate version or nothing; a database that is absent, valid, not a database or empty).
//
// Input: the first byte picks the folder; the rest is the arguments, separated by NUL bytes.
// A failure is a trap or a sanitizer report; every thrown error is expected.
//
// Build and run: scripts/fuzz.sh cli SECONDS

import ArgumentParser
import Foundation
import Strata

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let kind = bytes.first else { return 0 }
    let arguments = bytes.dropFirst()
        .split(separator: 0, maxSplits: 16, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    ScratchFolder.shared.rebuild(kind: Int(kind))
    // The tool's own output goes nowhere; libFuzzer keeps its standard error for its reports.
    let savedError = dup(2)
    dup2(ScratchFolder.shared.devNull, 2)
    defer {
        dup2(savedError, 2)
        close(savedError)
    }
    do {
        var command = try StrataCommand.parseAsRoot(arguments)
        try command.run()
    } catch {
        // What `strata` would print and exit with.
        _ = StrataCommand.fullMessage(for: error)
        _ = StrataCommand.exitCode(for: error)
    }
    return 0
}

/// The folder every input runs in, the process's working directory.
final class ScratchFolder: @unchecked Sendable {
    static let shared = ScratchFolder()

    let url: URL
    let devNull: CInt

    private init() {
        // In memory when the system has a RAM file system: SQLite's syncs then cost nothing.
        let memory = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let base = FileManager.default.fileExists(atPath: memory.path) ? memory : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("strata-fuzz-cli-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard FileManager.default.changeCurrentDirectoryPath(url.path) else {
            fatalError("fuzz harness: cannot enter \(url.path)")
        }
        devNull = open("/dev/null", O_WRONLY)
    }

    static let migrationSets: [[String: String]] = [
        [
            "0001_create_note.sql": "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT);",
            "0002_add_tag.sql": "ALTER TABLE note ADD COLUMN tag TEXT;",
        ],
        ["0001_create_note.sql": "CREATE TABLE note (id INTEGER PRIMARY KEY);", "0003_gap.sql": "SELECT 1;"],
        ["1_bad name.sql": "SELECT 1;"],
        ["0001_broken.sql": "CREATE TABLE (;"],
        ["0001_a.sql": "SELECT 1;", "01_b.sql": "SELECT 2;"],
        ["0001_rollback.sql": "CREATE TABLE t (a); ROLLBACK;"],
        [:],
    ]

    /// Empties the folder and writes the migrations and databases of `kind`.
    func rebuild(kind: Int) {
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: url.path)) ?? [] {
            try? files.removeItem(at: url.appendingPathComponent(name))
        }
        let migrations = url.appendingPathComponent("Migrations")
        try? files.createDirectory(at: migrations, withIntermediateDirectories: true)
        for (name, text) in Self.migrationSets[kind % Self.migrationSets.count] {
            try? Data(text.utf8).write(to: migrations.appendingPathComponent(name))
        }
        try? Data(repeating: 0x41, count: 4096).write(to: url.appendingPathComponent("notadb.sqlite"))
        try? Data().write(to: url.appendingPathComponent("empty.sqlite"))
        if (kind / Self.migrationSets.count) % 2 == 1 {
            // A database already at version 1 with a table of its own.
            try? Data(Self.versionOneDatabase).write(to: url.appendingPathComponent("strata.sqlite"))
        }
    }

    /// A small database at user_version 1, made once.
    static let versionOneDatabase: [UInt8] = {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-fuzz-cli-seed-\(getpid()).sqlite").path
        try? FileManager.default.removeItem(atPath: path)
        do {
            let db = try Database(path: path)
            try db.execute(
                query: "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT); INSERT INTO note VALUES (1, 'x')")
            try db.setUserVersion(1)
            _ = try db.walCheckpoint(mode: .truncate)
            db.close()
        } catch {
            fatalError("fuzz harness: cannot make the seed database: \(error)")
        }
        return [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
    }()
}
