import Foundation
import GRDB

/// The workload's record as a GRDB user writes it with Codable: conformances only.
struct GRDBItem: Codable, FetchableRecord, PersistableRecord, ItemFields {
    static let databaseTableName = "item"
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

/// The same record with GRDB's hand-written conformances: `init(row:)` by index and `encode(to:)`.
struct GRDBManualItem: FetchableRecord, PersistableRecord, ItemFields {
    static let databaseTableName = "item"
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

    init(row: Row) {
        id = row[0]
        a = row[1]
        b = row[2]
        c = row[3]
        d = row[4]
        e = row[5]
        name = row[6]
        note = row[7]
        flag = row[8]
        payload = row[9]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["a"] = a
        container["b"] = b
        container["c"] = c
        container["d"] = d
        container["e"] = e
        container["name"] = name
        container["note"] = note
        container["flag"] = flag
        container["payload"] = payload
    }
}

extension DatabaseQueue {
    /// A new empty database with the `item` table: in memory, or a WAL file with `synchronous = NORMAL`.
    static func benchmarkEmpty(path: String?) throws -> DatabaseQueue {
        let queue: DatabaseQueue
        if let path {
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } else {
            queue = try DatabaseQueue()
        }
        try queue.writeWithoutTransaction { db in try db.execute(sql: Workload.createTable) }
        return queue
    }

    /// A new in-memory database holding the rows of the file `source`.
    static func benchmarkLoaded(source: String) throws -> DatabaseQueue {
        let queue = try benchmarkEmpty(path: nil)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: Workload.attachSQL, arguments: [source])
            try db.execute(sql: Workload.copySQL)
            try db.execute(sql: Workload.detachSQL)
        }
        return queue
    }

    func exportForChecksum(to path: String) throws {
        try writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
    }
}

/// `grdb-codable`: GRDB with Codable records. `item.insert(db)`, `Item.fetchAll(db)`, `Item.fetchOne(db, key:)`.
final class GRDBCodableSystem: BenchmarkSystem {
    static let name = "grdb-codable"
    private let items: [GRDBItem]
    private var queue: DatabaseQueue?

    init(items: [Item]) { self.items = items.map(GRDBItem.init) }

    func openEmpty(path: String?) throws { queue = try .benchmarkEmpty(path: path) }

    func insertAll() throws {
        guard let queue else { throw BenchmarkFailure("no database") }
        try queue.write { db in
            for item in items {
                try item.insert(db)
            }
        }
    }

    func exportAndClose(to path: String) throws {
        try queue?.exportForChecksum(to: path)
        close()
    }

    func openLoaded(source: String) throws { queue = try .benchmarkLoaded(source: source) }

    func fetchAll() throws -> Measurement {
        guard let queue else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            try queue.read { db in try GRDBItem.fetchAll(db) }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func lookup(ids: [Int64]) throws -> Measurement {
        guard let queue else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            try queue.read { db in
                var items: [GRDBItem] = []
                items.reserveCapacity(ids.count)
                for id in ids {
                    guard let item = try GRDBItem.fetchOne(db, key: id) else {
                        throw BenchmarkFailure("no item \(id)")
                    }
                    items.append(item)
                }
                return items
            }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func close() {
        try? queue?.close()
        queue = nil
    }
}

/// `grdb-manual`: GRDB with hand-written record conformances and cached statements.
final class GRDBManualSystem: BenchmarkSystem {
    static let name = "grdb-manual"
    private let items: [GRDBManualItem]
    private var queue: DatabaseQueue?

    init(items: [Item]) { self.items = items.map(GRDBManualItem.init) }

    func openEmpty(path: String?) throws { queue = try .benchmarkEmpty(path: path) }

    func insertAll() throws {
        guard let queue else { throw BenchmarkFailure("no database") }
        try queue.write { db in
            for item in items {
                try item.insert(db)
            }
        }
    }

    func exportAndClose(to path: String) throws {
        try queue?.exportForChecksum(to: path)
        close()
    }

    func openLoaded(source: String) throws { queue = try .benchmarkLoaded(source: source) }

    func fetchAll() throws -> Measurement {
        guard let queue else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            try queue.read { db in
                let statement = try db.cachedStatement(sql: Workload.selectAllSQL)
                return try GRDBManualItem.fetchAll(statement)
            }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func lookup(ids: [Int64]) throws -> Measurement {
        guard let queue else { throw BenchmarkFailure("no database") }
        let (elapsed, items) = try timed {
            try queue.read { db in
                let statement = try db.cachedStatement(sql: Workload.selectByIDSQL)
                var items: [GRDBManualItem] = []
                items.reserveCapacity(ids.count)
                for id in ids {
                    guard let item = try GRDBManualItem.fetchOne(statement, arguments: [id]) else {
                        throw BenchmarkFailure("no item \(id)")
                    }
                    items.append(item)
                }
                return items
            }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func close() {
        try? queue?.close()
        queue = nil
    }
}
