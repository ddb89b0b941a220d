// The child process of the crash-durability tests (Tests/StrataTests/Reliability/CrashDurabilityTests.swift).
//
// It writes to a file database through Strata and reports on stdout, one line at a time and
// unbuffered, only what has been committed; the parent kills it with SIGKILL at a random point and
// checks that everything reported is in the file.
//
//   strata-durability-child commit PATH [synchronous]
//       Commits numbered transactions forever: each inserts row n (and a payload) into `event`,
//       then prints "n" once `transaction` has returned. Starts after the highest n in the file.
//   strata-durability-child migrate PATH database|migrator ROWS
//       Applies migrations 1, 2, 3, ... forever. Migration v creates table m<v>, inserts ROWS rows
//       in a loop, indexes them and adds a column to m<v-1>. Prints "begin v" before, "progress v k"
//       while it runs (uncommitted), and "done v" after it committed. `database` applies each with
//       Database.migrate(version:), `migrator` with a Migrator.
//   strata-durability-child insert PATH
//       Opens PATH, inserts one row ('child') into `item` in its own transaction, waiting for the write lock in
//       SQLite's busy handler (timeout 60 s), and prints "inserted MS", MS the milliseconds the insert took.
import Foundation
import Strata

/// Writes one line to stdout with write(2): nothing is buffered in the process when it is killed.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("strata-durability-child: " + message + "\n").utf8))
    exit(2)
}

/// The work of migration `version`: a table, `rows` rows, an index, and a column added to the previous table.
func migration(version: Int, rows: Int) -> @Sendable (Database) throws -> Void {
    { db in
        try db.execute(query: "CREATE TABLE m\(version) (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
        let insert = try db.prepare(query: "INSERT INTO m\(version) (payload) VALUES (?)")
        for row in 1...rows {
            try insert.bind(value: "migration \(version) row \(row) " + String(repeating: "x", count: 64), at: 1)
            try insert.perform()
            if row % (rows / 10) == 0 {
                report("progress \(version) \(row)")
            }
        }
        try db.execute(query: "CREATE INDEX m\(version)_payload ON m\(version) (payload)")
        if version > 1 {
            try db.execute(query: "ALTER TABLE m\(version - 1) ADD COLUMN next_version INTEGER DEFAULT \(version)")
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    fail(
        "usage: strata-durability-child commit PATH [synchronous] | migrate PATH database|migrator ROWS | insert PATH")
}
let path = arguments[2]

do {
    let db = try Database(path: path, busyTimeout: arguments[1] == "insert" ? 60 : 5)
    switch arguments[1] {
    case "insert":
        let clock = ContinuousClock()
        let start = clock.now
        try db.execute(query: "INSERT INTO item (source) VALUES ('child')")
        report("inserted \((clock.now - start) / .milliseconds(1))")
    case "commit":
        if arguments.count > 3 {
            try db.execute(query: "PRAGMA synchronous = \(arguments[3])")
        }
        try db.execute(
            query: "CREATE TABLE IF NOT EXISTS event (n INTEGER PRIMARY KEY, payload BLOB NOT NULL, note TEXT NOT NULL)"
        )
        var n = try db.fetchOne(Int.self, query: "SELECT coalesce(max(n), 0) FROM event") ?? 0
        let insert = try db.prepare(query: "INSERT INTO event (n, payload, note) VALUES (?, randomblob(?), ?)")
        while n < 10_000_000 {
            n += 1
            try db.transaction { _ in
                try insert.bind(value: n, at: 1)
                try insert.bind(value: 100 + n % 900, at: 2)
                try insert.bind(value: "transaction \(n)", at: 3)
                try insert.perform()
            }
            report("\(n)")
        }
    case "migrate":
        guard arguments.count >= 5, let rows = Int(arguments[4]), rows >= 10 else {
            fail("migrate needs database|migrator and a row count of at least 10")
        }
        let useMigrator = arguments[3] == "migrator"
        var migrator = Migrator()
        for version in 1...1_000 {
            migrator.register(version: version, name: "step \(version)", migration(version: version, rows: rows))
        }
        var version = try db.userVersion
        while version < 1_000 {
            version += 1
            report("begin \(version)")
            if useMigrator {
                try migrator.migrate(db, to: version)
            } else {
                try db.migrate(version: version, migration(version: version, rows: rows))
            }
            report("done \(version)")
        }
    default:
        fail("unknown mode \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
