import Foundation
import Strata
import StrataPostgres
import Testing

/// One step of a write's body, which each backend runs with its own calls.
indirect enum WriteStep: Sendable {
    /// Inserts `name`; its error ends the body.
    case insert(String)
    /// Inserts `name` and catches its error, noting it.
    case insertCatching(String)
    /// Runs `steps` in a nested `transaction { }`; its error ends the body.
    case nested([WriteStep])
    /// Runs `steps` in a nested `transaction { }` and catches its error, noting it.
    case nestedCatching([WriteStep])
}

/// What a failure was, in words both backends share.
enum FailureKind: Sendable, Equatable {
    case uniqueViolation, transactionAborted, other
}

/// What a write did: the error it threw, the errors its body caught, in order, and the names stored afterwards.
struct WriteOutcome: Sendable, Equatable {
    var thrown: FailureKind?
    var caught: [FailureKind]
    var names: [String]
}

/// A backend that runs ``WriteStep``s in a `write`, on a table `item (name UNIQUE)` holding one row, "taken".
protocol TransactionRuleBackend: Sendable {
    func run(_ steps: [WriteStep]) async throws -> WriteOutcome
}

/// SQLite, through a `DatabasePool` on a file.
struct SQLiteRuleBackend: TransactionRuleBackend {
    let pool: DatabasePool

    static func kind(_ error: any Error) -> FailureKind {
        guard let error = error as? DatabaseError else { return .other }
        if error.code == .transactionAborted { return .transactionAborted }
        return error.code == .uniqueViolation ? .uniqueViolation : .other
    }

    func run(_ steps: [WriteStep]) async throws -> WriteOutcome {
        try await pool.write { db in
            try db.execute(query: "DELETE FROM item")
            try db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
        }
        let caught = LockedBox<[FailureKind]>([])
        func perform(_ steps: [WriteStep], _ db: Database) throws {
            for step in steps {
                switch step {
                case .insert(let name):
                    try db.execute("INSERT INTO item (name) VALUES (\(name))")
                case .insertCatching(let name):
                    do {
                        try db.execute("INSERT INTO item (name) VALUES (\(name))")
                    } catch {
                        caught.update { $0.append(Self.kind(error)) }
                    }
                case .nested(let inner):
                    try db.transaction { db in try perform(inner, db) }
                case .nestedCatching(let inner):
                    do {
                        try db.transaction { db in try perform(inner, db) }
                    } catch {
                        caught.update { $0.append(Self.kind(error)) }
                    }
                }
            }
        }
        var thrown: FailureKind?
        do {
            try await pool.write { db in try perform(steps, db) }
        } catch {
            thrown = Self.kind(error)
        }
        let names = try await pool.read { db in
            try db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY id")
        }
        return WriteOutcome(thrown: thrown, caught: caught.get(), names: names)
    }
}

/// PostgreSQL, through a `PostgresPool`.
struct PostgresRuleBackend: TransactionRuleBackend {
    let pool: PostgresPool

    static func kind(_ error: any Error) -> FailureKind {
        guard let error = error as? DatabaseError else { return .other }
        if error.code == .transactionAborted { return .transactionAborted }
        return error.code == .uniqueViolation ? .uniqueViolation : .other
    }

    func run(_ steps: [WriteStep]) async throws -> WriteOutcome {
        try await pool.write { db in
            try await db.execute(query: "DELETE FROM item")
            try await db.execute(query: "INSERT INTO item (name) VALUES ('taken')")
        }
        let caught = LockedBox<[FailureKind]>([])
        func perform(_ steps: [WriteStep], _ db: PostgresSession) async throws {
            for step in steps {
                switch step {
                case .insert(let name):
                    try await db.execute("INSERT INTO item (name) VALUES (\(name))")
                case .insertCatching(let name):
                    do {
                        try await db.execute("INSERT INTO item (name) VALUES (\(name))")
                    } catch {
                        caught.update { $0.append(Self.kind(error)) }
                    }
                case .nested(let inner):
                    try await db.transaction { db in try await perform(inner, db) }
                case .nestedCatching(let inner):
                    do {
                        try await db.transaction { db in try await perform(inner, db) }
                    } catch {
                        caught.update { $0.append(Self.kind(error)) }
                    }
                }
            }
        }
        var thrown: FailureKind?
        do {
            try await pool.write { db in try await perform(steps, db) }
        } catch {
            thrown = Self.kind(error)
        }
        let names = try await pool.read { db in
            try await db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY id")
        }
        return WriteOutcome(thrown: thrown, caught: caught.get(), names: names)
    }
}

/// The rule for a statement that fails inside a transaction block, run step for step on both backends: the failed
/// statement fails its block even when the body catches its error; later statements of the block are refused with
/// `transactionAborted`; the block rolls back and throws the first failure; a nested `transaction { }` contains a
/// failure to itself.
@Suite("Conformance: a failed statement fails its block, on SQLite and on PostgreSQL", .postgresServer)
struct TransactionRuleConformanceTests {
    /// Each case: the steps, and what every backend must give. Made on each call: kept in a static, the boxes of the
    /// indirect steps are reported as leaks by the address sanitizer's leak check.
    static var cases: [(name: String, steps: [WriteStep], expected: WriteOutcome)] {
        [
            (
                "nothing fails: everything commits",
                [.insert("a"), .nested([.insert("b")]), .insert("c")],
                WriteOutcome(thrown: nil, caught: [], names: ["taken", "a", "b", "c"])
            ),
            (
                "a caught failure: later statements refused, the write throws the failure and keeps nothing",
                [.insert("a"), .insertCatching("taken"), .insertCatching("b")],
                WriteOutcome(
                    thrown: .uniqueViolation, caught: [.uniqueViolation, .transactionAborted], names: ["taken"])
            ),
            (
                "a body that rethrows the refusal: the write throws the first failure",
                [.insertCatching("taken"), .insert("b")],
                WriteOutcome(thrown: .uniqueViolation, caught: [.uniqueViolation], names: ["taken"])
            ),
            (
                "a failure in a nested transaction: only the nested work rolls back, the write goes on and commits",
                [.insert("a"), .nestedCatching([.insert("b"), .insert("taken")]), .insert("c")],
                WriteOutcome(thrown: nil, caught: [.uniqueViolation], names: ["taken", "a", "c"])
            ),
            (
                "a caught failure inside a nested transaction fails that transaction only",
                [.insert("a"), .nestedCatching([.insertCatching("taken"), .insertCatching("b")]), .insert("c")],
                WriteOutcome(
                    thrown: nil, caught: [.uniqueViolation, .transactionAborted, .uniqueViolation],
                    names: ["taken", "a", "c"])
            ),
            (
                "a nested failure the body does not catch: the whole write rolls back",
                [.insert("a"), .nested([.insert("taken")])],
                WriteOutcome(thrown: .uniqueViolation, caught: [], names: ["taken"])
            ),
        ]
    }

    static func check(_ backend: some TransactionRuleBackend, _ label: String) async throws {
        for (name, steps, expected) in cases {
            let outcome = try await backend.run(steps)
            #expect(outcome == expected, "\(label): \(name)")
        }
    }

    @Test("SQLite")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-rule-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = try DatabasePool(path: directory.appendingPathComponent("db.sqlite").path)
        try await pool.write { db in
            try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
        }
        try await Self.check(SQLiteRuleBackend(pool: pool), "SQLite")
    }

    @Test("PostgreSQL")
    func postgres() async throws {
        try await PostgresTestServer.withPool { pool in
            try await pool.write { db in
                try await db.execute(query: "CREATE TABLE item (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)")
            }
            try await Self.check(PostgresRuleBackend(pool: pool), "PostgreSQL")
        }
    }
}
