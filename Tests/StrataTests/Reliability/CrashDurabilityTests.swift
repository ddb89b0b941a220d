import Foundation
import Strata
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process killed with SIGKILL at a random point loses no commit it reported, and leaves the file
/// sound; a migration killed half-way leaves the schema and version exactly before or after it.
///
/// The child (`strata-durability-child`, Tests/DurabilityChild/main.swift) reports each commit on
/// stdout only after `transaction` returned. The parent reads the reports, kills the child after a
/// seeded random number of them, drains what the child wrote before it died, and reopens the file.
@Suite("Reliability: crash durability", .serialized)
struct CrashDurabilityTests {
    // The children are started with StrataTesting's ChildProcess, which is Linux only.
    #if canImport(Glibc)
        @Test("No reported commit is lost across 36 SIGKILLs, with the default settings and synchronous NORMAL")
        func killedCommitsSurvive() throws {
            let directory = try TemporaryDirectory()
            let path = directory.path("durability.sqlite")
            var generator = SplitMix64(seed: 0xD0_0AB1E)
            var lastReported = 0
            var rowsChecked = 0
            let kills = 36
            for round in 0..<kills {
                // Every third child runs with synchronous = NORMAL, the setting docs/Guarantees.md recommends with WAL.
                let arguments = round % 3 == 2 ? ["commit", path, "NORMAL"] : ["commit", path]
                let child = try DurabilityChild(arguments: arguments)
                let target = Int.random(in: 1...40, using: &generator)
                let reached = child.readLines(timeout: .seconds(20)) { $0.count >= target }
                let status = try child.kill()
                #expect(
                    reached,
                    "round \(round): the child reported \(child.lines.count) of \(target) commits; \(child.errorOutput)"
                )
                #expect(
                    status == SIGKILL,
                    "round \(round): the child ended with \(status), not SIGKILL; \(child.errorOutput)")

                // Reports come in order, each the next number.
                let numbers = child.lines.compactMap { Int($0) }
                #expect(numbers.count == child.lines.count, "round \(round): unexpected output \(child.lines)")
                #expect(numbers == Array((lastReported + 1)..<(lastReported + 1 + numbers.count)), "round \(round)")
                lastReported = numbers.last ?? lastReported

                // Every reported commit is in the file, with no gap and no torn row; the file is sound.
                let db = try Database(path: path)
                defer { db.close() }
                let row = try #require(
                    try db.prepare(query: "SELECT count(*) AS count, max(n) AS max FROM event").next())
                let count: Int = try row.count
                let max: Int = try row.max
                #expect(max >= lastReported, "round \(round): reported \(lastReported), the file has up to \(max)")
                #expect(count == max, "round \(round): \(count) rows for numbers up to \(max)")
                let torn = try db.fetchOne(
                    Int.self,
                    query:
                        "SELECT count(*) FROM event WHERE length(payload) != 100 + n % 900 OR note != 'transaction ' || n"
                )
                #expect(torn == 0)
                #expect(try db.integrityCheck() == ["ok"], "round \(round)")
                rowsChecked += count
                // The next child starts after the last commit in the file, which may be one the child never reported.
                lastReported = max
            }
            #expect(rowsChecked > kills)
            print(
                "crash durability: \(kills) kills survived, \(lastReported) commits in the file, \(rowsChecked) row checks"
            )
        }

        @Test("A migration killed at a random point leaves version and schema exactly before or after it")
        func killedMigrationsAreAtomic() throws {
            let directory = try TemporaryDirectory()
            let path = directory.path("migration.sqlite")
            var generator = SplitMix64(seed: 0x316_4A7E)
            let rows = 2_000
            let kills = 16
            var midMigration = 0
            var lastDone = 0
            // The history covers versions 1...recordedUpTo: a `migrator` round records what the database has, then each
            // migration it commits; a `database` round (Database.migrate(version:)) records nothing.
            var recordedUpTo = 0
            for round in 0..<kills {
                let mode = round % 2 == 0 ? "database" : "migrator"
                let child = try DurabilityChild(arguments: ["migrate", path, mode, String(rows)])
                // Kill after a random number of progress reports (0...10) of a random upcoming migration.
                let version = lastDone + Int.random(in: 1...3, using: &generator)
                let progress = Int.random(in: 0...10, using: &generator)
                let reached = child.readLines(timeout: .seconds(30)) { lines in
                    guard let begin = lines.firstIndex(of: "begin \(version)") else { return false }
                    return lines[begin...].filter { $0.hasPrefix("progress \(version) ") }.count >= progress
                }
                let status = try child.kill()
                #expect(reached, "round \(round): \(child.lines.suffix(3)); \(child.errorOutput)")
                #expect(status == SIGKILL, "round \(round): the child ended with \(status); \(child.errorOutput)")

                let begun =
                    child.lines.compactMap { $0.hasPrefix("begin ") ? Int($0.dropFirst(6)) : nil }.max() ?? lastDone
                let done =
                    child.lines.compactMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil }.max() ?? lastDone
                if child.lines.last?.hasPrefix("done ") == false { midMigration += 1 }

                let db = try Database(path: path)
                defer { db.close() }
                let current = try db.userVersion
                #expect(
                    current >= done && current <= begun,
                    "round \(round): version \(current), done \(done), begun \(begun)")
                if mode == "migrator" { recordedUpTo = current }
                try expectSchema(of: db, atVersion: current, recordedUpTo: recordedUpTo, rows: rows, round: round)
                #expect(try db.integrityCheck() == ["ok"], "round \(round)")
                lastDone = current
            }
            // Most kills land inside a migration's transaction, not between two.
            #expect(midMigration >= kills / 2, "only \(midMigration) of \(kills) kills landed inside a migration")
            print("crash durability: \(kills) migration kills, \(midMigration) inside a migration, version \(lastDone)")
        }
    #endif

    @Test("A SQL migration that ends its own transaction and then fails leaves the schema as before")
    func migrationThatEndsItsTransaction() throws {
        // Found by the migrations fuzz target: 0001_step.sql = "ROLLBACK; CREATE TABLE t0 ...; CREATE TABLE t0 ...;".
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("ROLLBACK; CREATE TABLE t0 (a INTEGER); CREATE TABLE t0 (a INTEGER);".utf8)
            .write(to: folder.appendingPathComponent("0001_step.sql"))
        var migrator = Migrator()
        try migrator.registerSQLFiles(in: folder)
        let db = try Database(path: directory.path("split.sqlite"))
        let error = #expect(throws: DatabaseError.self) { try migrator.migrate(db) }
        #expect(error?.code == .migration)
        #expect(try db.userVersion == 0)
        #expect(!db.isInTransaction)
        // The ROLLBACK is refused, so nothing of the step is left: the schema is exactly version 0's.
        let names = try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema")
        #expect(names.isEmpty, "schema after the failed migration: \(names)")
    }

    /// The schema of version `version`, exactly: tables m1...mN with their rows and indexes, and the
    /// column each migration adds to the table before it.
    private func expectSchema(
        of db: Database, atVersion version: Int, recordedUpTo: Int, rows: Int, round: Int
    ) throws {
        let names = try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema ORDER BY name")
        let expected =
            ((version == 0 ? [] : (1...version).flatMap { ["m\($0)", "m\($0)_payload"] })
            + (recordedUpTo > 0 ? ["strata_migrations"] : [])).sorted()
        #expect(names == expected, "round \(round): version \(version) with schema \(names)")
        guard version > 0 else { return }
        // The history holds a row exactly for each migration the migrator committed or recorded.
        if recordedUpTo > 0 {
            #expect(
                try db.fetchAll(Int.self, query: "SELECT version FROM strata_migrations ORDER BY version")
                    == Array(1...recordedUpTo), "round \(round): history")
        }
        for table in 1...version {
            #expect(
                try db.fetchOne(Int.self, query: "SELECT count(*) FROM m\(table)") == rows, "round \(round): m\(table)")
            let columns = try db.fetchAll(String.self, query: "SELECT name FROM pragma_table_info('m\(table)')")
            let expectedColumns = table < version ? ["id", "payload", "next_version"] : ["id", "payload"]
            #expect(columns == expectedColumns, "round \(round): m\(table) has \(columns)")
        }
    }

    @Test("A file database opens in WAL mode with the synchronous level docs/Guarantees.md states")
    func defaults() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.path("defaults.sqlite"))
        #expect(try db.journalMode == .wal)
        // 2 = FULL: SQLite's default, which Strata keeps; see docs/Guarantees.md.
        #expect(try db.fetchOne(Int.self, query: "PRAGMA synchronous") == 2)
    }
}

#if canImport(Glibc)
    /// A running `strata-durability-child`, whose stdout is read line by line with a deadline.
    ///
    /// Started with StrataTesting's `ChildProcess` (posix_spawn), not Foundation's `Process`, whose `run()` overflowed
    /// a heap buffer under the address sanitizer.
    final class DurabilityChild {
        private let child: ChildProcess

        /// The child binary, built next to the test bundle (StrataTests depends on it).
        static var executable: URL {
            let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let candidates = [
                testBinary.deletingLastPathComponent(),
                Bundle.main.bundleURL.deletingLastPathComponent(),
                Bundle.main.bundleURL,
            ]
            for folder in candidates {
                let url = folder.appendingPathComponent("strata-durability-child")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            return candidates[0].appendingPathComponent("strata-durability-child")
        }

        init(arguments: [String]) throws {
            var environment = ProcessInfo.processInfo.environment
            environment["SWIFT_BACKTRACE"] = "enable=no"
            // Not the inherited working directory: the doc tests change it, to folders they delete when done, and a
            // child started in a deleted folder fails to launch.
            child = try ChildProcess.spawn(
                Self.executable.path, arguments, in: FileManager.default.temporaryDirectory.path,
                environment: environment, standardOutput: .pipe, standardError: .pipe)
        }

        /// The complete lines the child wrote to stdout so far.
        var lines: [String] { Self.lines(in: child.output) }

        /// What the child wrote to stderr, for failure messages.
        var errorOutput: String { String(decoding: child.errorOutput, as: UTF8.self) }

        /// Reads lines until `condition` holds, the child exits or `timeout` passes; returns whether `condition` held.
        func readLines(timeout: Duration, until condition: ([String]) -> Bool) -> Bool {
            child.read(timeout: timeout) { condition(Self.lines(in: $0)) }
        }

        /// Kills the child with SIGKILL, waits for it, and reads what it wrote before it died.
        ///
        /// - Returns: The signal that ended the child, or its exit status when it exited by itself.
        @discardableResult
        func kill() throws -> Int32 {
            switch try child.kill() {
            case .exited(let status): status
            case .signaled(let signal): signal
            }
        }

        private static func lines(in output: [UInt8]) -> [String] {
            guard let last = output.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
            return output[..<last].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
        }
    }
#endif
