import Foundation
import PostgresNIO
import Strata
import StrataPostgres

/// One PostgreSQL stack under test: the same `item` table, the same rows and the same checks as the SQLite
/// systems, through async calls. The harness creates the table; a system only inserts and reads.
protocol PostgresBenchmarkSystem: Sendable {
    /// The name used by `--only` and in the JSON output.
    static var name: String { get }

    /// Takes the rows to insert, converted to the system's own record type outside any timing, and makes its
    /// client (not yet connected) for the server at `url`.
    init(items: [Item], url: String) throws

    /// Runs the system's client or pool until the task is cancelled.
    func run() async throws

    /// The INSERT phase: every row in one transaction. Timed by the caller.
    func insertAll() async throws

    /// The FETCH phase: every row into an array of records.
    func fetchAll() async throws -> Measurement

    /// The LOOKUP phase: one record per primary key in `ids`, in order.
    func lookup(ids: [Int64]) async throws -> Measurement
}

/// Every PostgreSQL system, in table order: the floor first.
let allPostgresSystems: [any PostgresBenchmarkSystem.Type] = [PostgresNIOSystem.self, StrataPostgresSystem.self]

/// Runs `body` between two readings of the monotonic clock.
func timedAsync<T>(_ body: () async throws -> T) async rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    return (clock.now - start, result)
}

enum PostgresWorkload {
    /// The SQLite table in PostgreSQL's types: what StrataPostgres maps `Int`, `Int64`, `Double`, `String`, `Bool`
    /// and `Data` to.
    static let createTable = """
        CREATE TABLE item (
            id int8 PRIMARY KEY, a int8, b int8, c int8, d float8, e float8,
            name text, note text, flag bool, payload bytea)
        """

    /// A postgres-nio client configuration for `url` (`postgres://user[:password]@host[:port]/database`).
    static func configuration(url: String, connections: Int) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user
        else {
            // Not the URL itself: it may hold a password.
            throw BenchmarkFailure("--postgres takes postgres://user[:password]@host[:port]/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.maximumConnections = connections
        return configuration
    }

    /// A logger that stays quiet.
    static var logger: Logger {
        var logger = Logger(label: "strata-bench")
        logger.logLevel = .critical
        return logger
    }
}

/// `postgres-nio`: the floor. What a competent postgres-nio user writes: `PostgresClient.withTransaction` and one
/// `query` per row with `PostgresQuery` interpolation, `row.decode` of a tuple, by position.
final class PostgresNIOSystem: PostgresBenchmarkSystem {
    static let name = "postgres-nio"
    private let items: [Item]
    let client: PostgresClient
    private let logger = PostgresWorkload.logger

    init(items: [Item], url: String) throws {
        self.items = items
        client = PostgresClient(configuration: try PostgresWorkload.configuration(url: url, connections: 4))
    }

    func run() async throws { await client.run() }

    func insertAll() async throws {
        try await client.withTransaction(logger: logger) { connection in
            for item in items {
                try await connection.query(
                    """
                    INSERT INTO item (id, a, b, c, d, e, name, note, flag, payload) VALUES \
                    (\(item.id), \(item.a), \(item.b), \(item.c), \(item.d), \(item.e), \(item.name), \(item.note), \
                    \(item.flag), \(item.payload))
                    """,
                    logger: logger)
            }
        }
    }

    func fetchAll() async throws -> Measurement {
        let (elapsed, items) = try await timedAsync { try await fetchBody() }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    /// Every row of `item`, in primary key order, as StrataPostgres's `fetchAll` asks for them.
    func fetchBody() async throws -> [Item] {
        try await client.withConnection { connection in
            let rows = try await connection.query("SELECT * FROM item ORDER BY id", logger: logger)
            var items: [Item] = []
            for try await row in rows {
                items.append(try Self.item(row))
            }
            return items
        }
    }

    func lookup(ids: [Int64]) async throws -> Measurement {
        let (elapsed, items) = try await timedAsync {
            try await client.withConnection { connection in
                var items: [Item] = []
                items.reserveCapacity(ids.count)
                for id in ids {
                    let rows = try await connection.query("SELECT * FROM item WHERE id = \(id)", logger: logger)
                    var iterator = rows.makeAsyncIterator()
                    guard let row = try await iterator.next() else { throw BenchmarkFailure("no item \(id)") }
                    items.append(try Self.item(row))
                }
                return items
            }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    /// One row of `SELECT * FROM item`, by position.
    private static func item(_ row: PostgresRow) throws -> Item {
        let (id, a, b, c, d, e, name, note, flag, payload) = try row.decode(
            (Int64, Int64, Int, Int, Double, Double, String, String, Bool, Data).self)
        return Item(id: id, a: a, b: b, c: c, d: d, e: e, name: name, note: note, flag: flag, payload: payload)
    }
}

/// The workload's record as a StrataPostgres user writes it: a `Model`, Codable by synthesis.
struct StrataPostgresItem: Model, ItemFields {
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

/// `strata-postgres`: what StrataPostgres users write. `db.insert(&model)` in one `pool.write`,
/// `db.fetchAll(Model.self)`, `db.find(_:id:)` in a `pool.read`.
final class StrataPostgresSystem: PostgresBenchmarkSystem {
    static let name = "strata-postgres"
    private let items: [StrataPostgresItem]
    private let pool: PostgresPool

    init(items: [Item], url: String) throws {
        self.items = items.map(StrataPostgresItem.init)
        pool = try PostgresPool(url: url, connections: 4)
    }

    func run() async throws { try await pool.run() }

    func insertAll() async throws {
        try await pool.write { db in
            for item in items {
                var item = item
                try await db.insert(&item)
            }
        }
    }

    func fetchAll() async throws -> Measurement {
        let (elapsed, items) = try await timedAsync { try await fetchBody() }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }

    func fetchBody() async throws -> [StrataPostgresItem] {
        try await pool.read { db in try await db.fetchAll(StrataPostgresItem.self) }
    }

    func lookup(ids: [Int64]) async throws -> Measurement {
        let (elapsed, items) = try await timedAsync {
            try await pool.read { db in
                var items: [StrataPostgresItem] = []
                items.reserveCapacity(ids.count)
                for id in ids {
                    guard let item = try await db.find(StrataPostgresItem.self, id: id) else {
                        throw BenchmarkFailure("no item \(id)")
                    }
                    items.append(item)
                }
                return items
            }
        }
        return Measurement(elapsed: elapsed, checksum: Checksum(items))
    }
}
