import Foundation
import Strata
import StrataRecord

/// The workload's record with `@Table`: the same struct as `StrataItem`, read and written by generated code.
@Table("item")
struct TableItem: Codable, ItemFields {
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

/// `strata-table`: `strata-codable`'s calls (`db.insert(model)`, `db.fetchAll(_:query:)`, `db.find(_:id:)`) on a
/// `@Table` struct.
final class StrataTableSystem: BenchmarkSystem {
    static let name = "strata-table"
    private let items: [TableItem]
    private var database: Strata.Database?

    init(items: [Item]) { self.items = items.map(TableItem.init) }

    func openEmpty(path: String?) throws { database = try .benchmarkEmpty(path: path) }

    /// The timed part of INSERT and INSERT into a file.
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

    /// The timed part of FETCH, on its own for profilers.
    @inline(never)
    func fetchBody() throws -> [TableItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        return try database.fetchAll(TableItem.self, query: Workload.selectAllSQL)
    }

    /// The timed part of LOOKUP, on its own for profilers.
    @inline(never)
    func lookupBody(ids: [Int64]) throws -> [TableItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        var items: [TableItem] = []
        items.reserveCapacity(ids.count)
        for id in ids {
            guard let item = try database.find(TableItem.self, id: id) else {
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
}
