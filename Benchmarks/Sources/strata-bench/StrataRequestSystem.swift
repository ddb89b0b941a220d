import Foundation
import Strata

/// `strata-request`: the query interface. INSERT as `strata-codable`; FETCH `db.fetchAll(StrataItem.all())`, whose
/// SQL (`SELECT "item".* FROM "item"`) reads what `strata-codable`'s `SELECT * FROM item` reads; LOOKUP
/// `db.fetchOne(StrataItem.filter(Column("id") == id))`, a request built and rendered for every row.
final class StrataRequestSystem: BenchmarkSystem {
    static let name = "strata-request"
    private let items: [StrataItem]
    private var database: Strata.Database?

    init(items: [Item]) { self.items = items.map(StrataItem.init) }

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

    @inline(never)
    func fetchBody() throws -> [StrataItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        return try database.fetchAll(StrataItem.all())
    }

    @inline(never)
    func lookupBody(ids: [Int64]) throws -> [StrataItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        var items: [StrataItem] = []
        items.reserveCapacity(ids.count)
        for id in ids {
            guard let item = try database.fetchOne(StrataItem.filter(Column("id") == id)) else {
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
