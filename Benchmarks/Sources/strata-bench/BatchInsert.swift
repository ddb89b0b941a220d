import Foundation
import Strata
import StrataRecord

/// `--scenario batch-insert`: `rows` new models (nil keys, so SQLite assigns them and each row is read back through
/// `RETURNING`) inserted into an empty `item` table, in memory or (`--batch-file`) in a WAL file with
/// `synchronous = NORMAL`, two ways, for a Codable model and a `@Table` model:
///
/// - `loop`: `insert(&model)` for each model, in one `transaction { }`;
/// - `batch`: one `insert(contentsOf: &models)`.
///
/// Each run starts from an empty table and a fresh copy of the models, made before the clock starts; the run is
/// checked afterwards (every key filled in, every row stored). Reports the median and minimum of `reps` runs.
struct BatchInsert {
    static let variants = ["codable-loop", "codable-batch", "table-loop", "table-batch"]

    let rows: Int
    let reps: Int
    let warmup: Int
    /// Where the file databases go; nil for in-memory databases.
    let directory: URL?

    func run() throws {
        print(machineDescription())
        let place = directory == nil ? "an in-memory table" : "a table in a WAL file"
        print("batch-insert: \(rows) models with nil keys into \(place), \(reps) runs (\(warmup) warm-up)")
        let items = Workload.items(count: rows)
        let codable = items.map(NewItem.init)
        let table = items.map(NewTableItem.init)
        var times: [String: [Duration]] = [:]
        for round in 0..<(warmup + reps) {
            // Rotated, so that no variant always runs first.
            let offset = round % Self.variants.count
            for variant in Self.variants[offset...] + Self.variants[..<offset] {
                let elapsed =
                    switch variant {
                    case "codable-loop": try measure(codable, insert: Self.loop)
                    case "codable-batch": try measure(codable, insert: Self.batch)
                    case "table-loop": try measure(table, insert: Self.loop)
                    default: try measure(table, insert: Self.batch)
                    }
                if round >= warmup { times[variant, default: []].append(elapsed) }
            }
        }
        printTable(times)
    }

    /// One run: the timed `insert` of a fresh copy of `models`, then the check.
    private func measure<T: NewModel>(_ models: [T], insert: (inout [T], Database) throws -> Void) throws -> Duration {
        let path = directory?.appendingPathComponent("batch-\(UUID().uuidString).sqlite").path
        let db = try Database.benchmarkEmpty(path: path)
        defer {
            db.close()
            if let path {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }
        var fresh = models
        // The copy is made here, not by the first key written inside the clock.
        fresh.withUnsafeMutableBufferPointer { _ in }
        let (elapsed, _) = try timed { try insert(&fresh, db) }
        guard fresh.map(\.id) == (1...Int64(rows)).map(Optional.some) else {
            throw BenchmarkFailure("batch-insert \(T.self): the keys were not filled in as 1...\(rows)")
        }
        let stored = try db.fetchOne(Int.self, query: "SELECT count(*) FROM item") ?? -1
        guard stored == rows else { throw BenchmarkFailure("batch-insert \(T.self): \(stored) rows, not \(rows)") }
        return elapsed
    }

    // The timed parts, each on its own for profilers, called with the concrete type as a caller calls them: the
    // `@Table` type gets its generated overloads.

    @inline(never)
    private static func batch(_ models: inout [NewItem], into db: Database) throws {
        try db.insert(contentsOf: &models)
    }

    @inline(never)
    private static func loop(_ models: inout [NewItem], into db: Database) throws {
        try db.transaction { db in
            for index in models.indices { try db.insert(&models[index]) }
        }
    }

    @inline(never)
    private static func batch(_ models: inout [NewTableItem], into db: Database) throws {
        try db.insert(contentsOf: &models)
    }

    @inline(never)
    private static func loop(_ models: inout [NewTableItem], into db: Database) throws {
        try db.transaction { db in
            for index in models.indices { try db.insert(&models[index]) }
        }
    }

    private func printTable(_ times: [String: [Duration]]) {
        print("")
        print("| Insert \(rows) new models | median ms | min ms | batch vs loop |")
        print("|---|---:|---:|---:|")
        for variant in Self.variants {
            let stats = Statistics(times[variant] ?? [])
            var ratio = "-"
            if variant.hasSuffix("-batch"), let loop = times[variant.replacingOccurrences(of: "-batch", with: "-loop")]
            {
                ratio = format(stats.median / Statistics(loop).median, digits: 2) + "x"
            }
            print("| \(variant) | \(format(stats.median, digits: 2)) | \(format(stats.min, digits: 2)) | \(ratio) |")
        }
    }
}

/// A workload row as a model with a nil key: what a server inserts.
protocol NewModel {
    var id: Int64? { get }
}

/// The workload's record as a Codable `Model` with an optional key.
struct NewItem: Model, NewModel {
    static let tableName = "item"
    var id: Int64?
    var a: Int64
    var b: Int
    var c: Int
    var d: Double
    var e: Double
    var name: String
    var note: String
    var flag: Bool
    var payload: Data

    init(_ item: Item) {
        id = nil
        (a, b, c, d, e) = (item.a, item.b, item.c, item.d, item.e)
        (name, note, flag, payload) = (item.name, item.note, item.flag, item.payload)
    }
}

/// The same record with `@Table`.
@Table("item")
struct NewTableItem: Codable, NewModel {
    var id: Int64?
    var a: Int64
    var b: Int
    var c: Int
    var d: Double
    var e: Double
    var name: String
    var note: String
    var flag: Bool
    var payload: Data

    init(_ item: Item) {
        id = nil
        (a, b, c, d, e) = (item.a, item.b, item.c, item.d, item.e)
        (name, note, flag, payload) = (item.name, item.note, item.flag, item.payload)
    }
}
