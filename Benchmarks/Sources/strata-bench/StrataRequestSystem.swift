import Foundation
import Strata

/// `strata-request`: the query interface. INSERT as `strata-codable`; FETCH `db.fetchAll(StrataItem.all())`, whose
/// SQL (`SELECT "item".* FROM "item"`) reads what `strata-codable`'s `SELECT * FROM item` reads; LOOKUP
/// `db.fetchOne(StrataItem.filter(Column("id") == id))`, a request built and rendered for every row.
final class StrataRequestSystem: StrataCodableSystem {
    override class var name: String { "strata-request" }

    @inline(never)
    override func fetchBody() throws -> [StrataItem] {
        guard let database else { throw BenchmarkFailure("no database") }
        return try database.fetchAll(StrataItem.all())
    }

    @inline(never)
    override func lookupBody(ids: [Int64]) throws -> [StrataItem] {
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
}
