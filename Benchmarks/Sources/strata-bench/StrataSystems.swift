import Foundation
import Strata

/// The workload's record as a Strata user writes it: a `Model`, Codable by synthesis.
struct StrataItem: Model, ItemFields {
    static let tableName = "item"
    var id: Int64
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
        (id, a, b, c, d, e) = (item.id, item.a, item.b, item.c, item.d, item.e)
        (name, note, flag, payload) = (item.name, item.note, item.flag, item.payload)
    }
}

extension Strata.Database {
    /// A new empty database with the `item` table: in memory, or a WAL file with `synchronous = NORMAL`.
    static func benchmarkEmpty(path: String?) throws -> Strata.Database {
        let database = try path.map { try Strata.Database(path: $0) } ?? Strata.Database()
        if path != nil {
            try database.execute(query: "PRAGMA synchronous = NORMAL")
        }
        try database.execute(query: Workload.createTable)
        return database
    }

    /// A new in-memory database holding the rows of the file `source`.
    static func benchmarkLoaded(source: String) throws -> Strata.Database {
        let database = try benchmarkEmpty(path: nil)
        try database.execute(query: Workload.attachSQL, parameters: source)
        try database.execute(query: Workload.copySQL)
        try database.execute(query: Workload.detachSQL)
        return database
    }

    func exportForChecksum(to path: String) throws {
        try execute(query: "VACUUM INTO ?", parameters: path)
    }
}

/// `strata-codable`: what users write. `db.insert(model)`, `db.fetchAll(_:query:)`, `db.find(_:id:)`.
class StrataCodableSystem: BenchmarkSystem {
    class var name: String { "strata-codable" }
    private let items: [StrataItem]
    /// The open database; `strata-request` reads through it too.
    private(set) var database: Strata.Database?

    required init(items: [Item]) { self.items = items.map(StrataItem.init) }

    func openEmpty(path: String?) throws { database = try .benchmarkEmpty(path: path) }

    func insertAll() throws {
        guard let database else { throw BenchmarkFailure("no database") }
        try database.transaction { db in
            for item in items {
                try db.insert(item)
            }
        }
    }

    func exportAndClose(to path: String) throws {
        try database?.exportForChecksum(to: path)
        close()
    }

    func openLoaded(source: String) throws { database = try .benchmarkLoaded(source: source) }

    func fetchAll() throws -> Measurement {
        let (elapsed, items) = try timed { try fetchBody() }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func lookup(ids: [Int64]) throws -> Measurement {
        let (elapsed, items) = try timed { try lookupBody(ids: ids) }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    /// The timed part of FETCH, on its own for profilers (`--toggle-collect='*StrataCodableSystem*fetchBody*'`).
    @inline(never)
    func fetchBody() throws -> [StrataItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        return try database.fetchAll(StrataItem.self, query: Workload.selectAllSQL)
    }

    /// The timed part of LOOKUP, on its own for profilers.
    @inline(never)
    func lookupBody(ids: [Int64]) throws -> [StrataItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        var items: [StrataItem] = []
        items.reserveCapacity(ids.count)
        for id in ids {
            guard let item = try database.find(StrataItem.self, id: id) else {
                throw BenchmarkFailure("no item \(id)")
            }
            items.append(item)
        }
        return items
    }

    func close() {
        database?.close()
        database = nil
    }

    /// Walks every row of the file `source` with the lazy cursor, one `StrataItem` at a time,
    /// and reports the resident-set growth the walk caused.
    static func cursorMemory(source: String) throws -> (checksum: Checksum, baselineKB: Int, peakKB: Int) {
        let database = try Strata.Database(path: source, readOnly: true)
        let cursor = try database.fetchCursor(StrataItem.self, query: Workload.selectAllSQL)
        resetPeakResident()
        let baseline = currentResidentKB()
        var checksum = Checksum()
        while let item = try cursor.next() {
            checksum.add(item)
        }
        return (checksum, baseline, peakResidentKB())
    }
}

/// `strata-row`: Strata's Statement and Row API, by index.
final class StrataRowSystem: BenchmarkSystem {
    static let name = "strata-row"
    private let items: [Item]
    private var database: Strata.Database?
    private var selectAll: Strata.Statement?
    private var selectByID: Strata.Statement?

    init(items: [Item]) { self.items = items }

    func openEmpty(path: String?) throws { database = try .benchmarkEmpty(path: path) }

    func insertAll() throws {
        guard let database else { throw BenchmarkFailure("no database") }
        let insert = try database.prepare(query: Workload.insertSQL)
        try database.transaction { _ in
            for item in items {
                try insert.bind(value: item.id, at: 1)
                try insert.bind(value: item.a, at: 2)
                try insert.bind(value: item.b, at: 3)
                try insert.bind(value: item.c, at: 4)
                try insert.bind(value: item.d, at: 5)
                try insert.bind(value: item.e, at: 6)
                try insert.bind(value: item.name, at: 7)
                try insert.bind(value: item.note, at: 8)
                try insert.bind(value: item.flag, at: 9)
                try insert.bind(value: item.payload, at: 10)
                try insert.perform()
            }
        }
    }

    func exportAndClose(to path: String) throws {
        try database?.exportForChecksum(to: path)
        close()
    }

    func openLoaded(source: String) throws {
        let database = try Strata.Database.benchmarkLoaded(source: source)
        selectAll = try database.prepare(query: Workload.selectAllSQL)
        selectByID = try database.prepare(query: Workload.selectByIDSQL)
        self.database = database
    }

    @inline(__always)
    private static func item(_ row: Strata.Row) throws -> Item {
        Item(
            id: try row[0], a: try row[1], b: try row[2], c: try row[3], d: try row[4], e: try row[5],
            name: try row[6], note: try row[7], flag: try row[8], payload: try row[9])
    }

    func fetchAll() throws -> Measurement {
        guard let select = selectAll else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            select.reset()
            var items: [Item] = []
            while let row = try select.next() {
                items.append(try Self.item(row))
            }
            return items
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func lookup(ids: [Int64]) throws -> Measurement {
        guard let select = selectByID else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            var items: [Item] = []
            items.reserveCapacity(ids.count)
            for id in ids {
                select.reset()
                try select.bind(value: id, at: 1)
                guard let row = try select.next() else { throw BenchmarkFailure("no item \(id)") }
                items.append(try Self.item(row))
            }
            select.reset()
            return items
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func close() {
        selectAll = nil
        selectByID = nil
        database?.close()
        database = nil
    }
}
