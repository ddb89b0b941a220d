import Foundation
import StrataRecord
import Testing

@testable import Strata

// The `@Table` types of the differential tests: each is read and written by its generated code and, through a
// decoder or encoder whose `usesGeneratedCode` is false (or through `CodableTwin`), by its `Codable` conformance.

// MARK: Value kinds

/// A String raw-value enum, stored as its raw value.
enum GMood: String, Codable, Equatable, CaseIterable, Sendable {
    case happy, sad
    case quoted = "it's \"quoted\""
    case empty = ""
}

/// An Int raw-value enum, stored as its raw value.
enum GLevel: Int, Codable, Equatable, CaseIterable, Sendable {
    case lowest = -9_223_372_036_854_775_808
    case minusOne = -1
    case zero = 0
    case high = 100
    case highest = 9_223_372_036_854_775_807
}

/// A nested Codable struct, stored as JSON (or a binary property list).
struct GPoint: Codable, Equatable, Sendable {
    var x: Double
    var y: Double?
    var label: String
    var tags: [String]
}

/// Every value kind Strata stores, with an optional of each.
@Table("all_kinds")
struct GAllKinds: Codable, Equatable {
    var id: Int64?
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var bool: Bool
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var mood: GMood
    var level: GLevel
    var point: GPoint
    var list: [Int]
    var dict: [String: Int]
    var optInt: Int?
    var optInt8: Int8?
    var optInt16: Int16?
    var optInt32: Int32?
    var optInt64: Int64?
    var optUInt: UInt?
    var optUInt8: UInt8?
    var optUInt16: UInt16?
    var optUInt32: UInt32?
    var optUInt64: UInt64?
    var optBool: Bool?
    var optDouble: Double?
    var optFloat: Float?
    var optString: String?
    var optData: Data?
    var optDate: Date?
    var optUUID: UUID?
    var optURL: URL?
    var optDecimal: Decimal?
    var optMood: GMood?
    var optLevel: GLevel?
    var optPoint: GPoint?
    var optList: [String]?
    var optDict: [String: Double]?
}

/// Custom `CodingKeys`: a renamed key, a property left out with a default, a `let` with an initial value (encoded,
/// never decoded).
@Table("renamed")
struct GRenamed: Codable, Equatable {
    var id: Int64?
    var title: String
    var cache: Int = 7
    let version: Int = 3
    var note: String?

    enum CodingKeys: String, CodingKey {
        case id
        case title = "title_text"
        case version
        case note
    }

    init(id: Int64?, title: String, note: String?, cache: Int = 7) {
        self.id = id
        self.title = title
        self.note = note
        self.cache = cache
    }
}

/// snake_case columns through the model's key strategy.
@Table("snake_model")
struct GSnake: Codable, Equatable {
    static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase

    var id: Int64?
    var createdAt: Date
    var displayName: String
    var isActive: Bool
    var parentID: Int?
    var homePage: URL?

    static let createTable = """
        CREATE TABLE snake_model (id INTEGER PRIMARY KEY, created_at, display_name, is_active, parent_id, home_page)
        """
}

/// The one-column box of the decode matrix.
@Table("t")
struct GBox<T: Codable>: Codable {
    var v: T
}

/// The one-column optional box of the decode matrix.
@Table("t")
struct GOptionalBox<T: Codable>: Codable {
    var v: T?
}

/// The model of the error cases: one column per kind of failure.
@Table("err_model")
struct GErrModel: Codable, Equatable {
    var id: Int64?
    var count: Int
    var name: String
    var ratio: Double
    var float: Float
    var tiny: Int8
    var big: UInt64
    var flag: Bool
    var mood: GMood
    var level: GLevel
    var when: Date
    var uuid: UUID
    var link: URL
    var amount: Decimal
    var point: GPoint
    var tags: [String]
    var optCount: Int?
    var optRatio: Double?
    var optFloat: Float?
    var optPoint: GPoint?

    static func createTable(_ name: String) -> String {
        """
        CREATE TABLE \(name) (id INTEGER PRIMARY KEY, count, name, ratio, float, tiny, big, flag, mood, level,
            "when", uuid, link, amount, point, tags, optCount, optRatio, optFloat, optPoint)
        """
    }

    static let sample = GErrModel(
        id: 1, count: 2, name: "n", ratio: 1.5, float: 0.25, tiny: 3, big: 4, flag: true, mood: .happy,
        level: .high, when: Date(timeIntervalSince1970: 1_700_000_000.5), uuid: UUID(uuid: StoredUUID.bytes),
        link: Edge.url("https://example.com/x"), amount: Decimal(sign: .plus, exponent: -2, significand: 125),
        point: GPoint(x: 1, y: nil, label: "p", tags: ["a"]), tags: ["t"], optCount: nil, optRatio: 2.5,
        optFloat: nil, optPoint: nil)
}

/// A model whose table changes under cached statements.
@Table("sc")
struct GSchema: Codable, Equatable {
    var id: Int64?
    var a: String
    var b: Int
    var c: String?
}

/// The first model of the joins.
@Table("g_note")
struct GNote: Codable, Equatable {
    var id: Int64?
    var title: String
    var body: String?
}

/// The second model of the joins; `id` and `title` clash with `GNote`'s.
@Table("g_tag")
struct GTag: Codable, Equatable {
    var id: Int64?
    var noteId: Int64
    var title: String
}

enum StoredUUID {
    static let bytes: uuid_t = (
        0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F
    )
}

// MARK: The Codable path for record operations

/// `Base` through its `Codable` conformance only: not a `GeneratedRecord`, so every record operation (`insert`,
/// `update`, `upsert`, `find`, requests, joins) reads and writes it through `init(from:)` and `encode(to:)`.
struct CodableTwin<Base: Model & Equatable>: Model, Equatable {
    static var tableName: String { Base.tableName }
    static var primaryKey: String { Base.primaryKey }
    static var keyEncodingStrategy: StatementEncoder.KeyEncodingStrategy { Base.keyEncodingStrategy }

    var base: Base

    init(_ base: Base) { self.base = base }
    init(from decoder: any Decoder) throws { base = try Base(from: decoder) }
    func encode(to encoder: any Encoder) throws { try base.encode(to: encoder) }
}

// MARK: A hand-written generated record that tells which path ran

/// A ``GeneratedRecord`` written by hand whose generated reader and writer differ from its `Codable` conformance
/// on purpose: `reader` tells which one read the row, and the `writer` column which one bound the parameters.
struct GProbe: GeneratedRecord, Equatable {
    static let tableName = "probe"
    static var recordKeys: [String] { ["id", "name", "writer"] }

    static let createTable = "CREATE TABLE probe (id INTEGER PRIMARY KEY, name TEXT NOT NULL, writer TEXT)"

    var id: Int64?
    var name: String
    /// "generated" after `init(row:)`, "codable" after `init(from:)`, "new" otherwise.
    var reader = "new"

    enum CodingKeys: String, CodingKey {
        case id, name, writer
    }

    init(id: Int64?, name: String) {
        self.id = id
        self.name = name
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        reader = "codable"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode("codable", forKey: .writer)
    }

    init(row: some RecordRow) throws {
        id = try row.decode(Int64?.self, 0)
        name = try row.decode(String.self, 1)
        reader = "generated"
    }

    func encode(to parameters: some RecordParameters) throws {
        try parameters.encode(id, 0)
        try parameters.encode(name, 1)
        try parameters.encode("generated", 2)
    }
}

// MARK: Generation of edge values

extension GAllKinds {
    /// The columns, in declaration order: the coding keys, written out (not read from the generated code).
    static let columnNames = [
        "id", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "bool",
        "double", "float", "string", "data", "date", "uuid", "url", "decimal", "mood", "level", "point", "list",
        "dict", "optInt", "optInt8", "optInt16", "optInt32", "optInt64", "optUInt", "optUInt8", "optUInt16",
        "optUInt32", "optUInt64", "optBool", "optDouble", "optFloat", "optString", "optData", "optDate", "optUUID",
        "optURL", "optDecimal", "optMood", "optLevel", "optPoint", "optList", "optDict",
    ]

    /// The table, every column but the key without a declared type, so that each value keeps its storage class.
    static func createTable(_ name: String) -> String {
        let columns = columnNames.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ")
        return "CREATE TABLE \(name) (id INTEGER PRIMARY KEY, \(columns))"
    }

    static func insertSQL(_ table: String) -> String {
        let columns = columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
        let parameters = columnNames.map { ":" + $0 }.joined(separator: ", ")
        return "INSERT INTO \(table) (\(columns)) VALUES (\(parameters))"
    }

    /// The value with its dates at whole milliseconds, the precision Strata promises.
    var normalized: GAllKinds {
        var copy = self
        copy.date = Sample.millisecondDate(date)
        copy.optDate = optDate.map(Sample.millisecondDate)
        return copy
    }

    static func generate(id: Int64?, using generator: inout SplitMix64) -> GAllKinds {
        var g = generator
        defer { generator = g }
        func maybe<T>(_ make: (inout SplitMix64) -> T) -> T? {
            Bool.random(using: &g) ? nil : make(&g)
        }
        return GAllKinds(
            id: id,
            int: Sample.extreme(Int.self, &g), int8: Sample.extreme(Int8.self, &g),
            int16: Sample.extreme(Int16.self, &g),
            int32: Sample.extreme(Int32.self, &g), int64: Sample.extreme(Int64.self, &g),
            // Unsigned values above Int64.max cannot be stored (an error case of its own).
            uint: Sample.extreme(UInt.self, &g) & UInt(Int64.max), uint8: Sample.extreme(UInt8.self, &g),
            uint16: Sample.extreme(UInt16.self, &g), uint32: Sample.extreme(UInt32.self, &g),
            uint64: Sample.extreme(UInt64.self, &g) & UInt64(Int64.max),
            bool: Bool.random(using: &g), double: Sample.double(&g), float: Sample.float(&g), string: Sample.text(&g),
            data: Sample.data(&g), date: Sample.date(&g), uuid: Sample.uuid(&g), url: Edge.url(&g),
            decimal: Edge.decimal(&g), mood: Edge.pick(GMood.allCases, &g),
            level: Edge.pick(GLevel.allCases, &g), point: Edge.point(&g),
            list: (0..<Int.random(in: 0...5, using: &g)).map { _ in Sample.extreme(Int.self, &g) },
            dict: Edge.dictionary(&g) { Sample.extreme(Int.self, &$0) },
            optInt: maybe { Sample.extreme(Int.self, &$0) }, optInt8: maybe { Sample.extreme(Int8.self, &$0) },
            optInt16: maybe { Sample.extreme(Int16.self, &$0) }, optInt32: maybe { Sample.extreme(Int32.self, &$0) },
            optInt64: maybe { Sample.extreme(Int64.self, &$0) },
            optUInt: maybe { Sample.extreme(UInt.self, &$0) & UInt(Int64.max) },
            optUInt8: maybe { Sample.extreme(UInt8.self, &$0) }, optUInt16: maybe { Sample.extreme(UInt16.self, &$0) },
            optUInt32: maybe { Sample.extreme(UInt32.self, &$0) },
            optUInt64: maybe { Sample.extreme(UInt64.self, &$0) & UInt64(Int64.max) },
            optBool: maybe { Bool.random(using: &$0) }, optDouble: maybe(Sample.double), optFloat: maybe(Sample.float),
            optString: maybe { Sample.text(&$0) }, optData: maybe(Sample.data), optDate: maybe(Sample.date),
            optUUID: maybe(Sample.uuid), optURL: maybe(Edge.url), optDecimal: maybe(Edge.decimal),
            optMood: maybe { Edge.pick(GMood.allCases, &$0) },
            optLevel: maybe { Edge.pick(GLevel.allCases, &$0) }, optPoint: maybe(Edge.point),
            optList: maybe { g in (0..<Int.random(in: 0...3, using: &g)).map { _ in Sample.text(&g) } },
            optDict: maybe { Edge.dictionary(&$0) { Double(Int32.random(in: .min ... .max, using: &$0)) / 8 } })
    }
}

/// Edge values of the kinds the reliability suite's `Sample` does not draw, from a seeded generator; the others come
/// from `Sample`'s generators.
enum Edge {
    static func pick<T>(_ values: [T], _ generator: inout SplitMix64) -> T {
        values[Int.random(in: 0..<values.count, using: &generator)]
    }

    /// A URL known to parse (a file URL of the text otherwise, which no comparison would take for it).
    static func url(_ text: String) -> URL {
        URL(string: text) ?? URL(fileURLWithPath: "/unparsable/" + text)
    }

    static let urls: [URL] = [
        "https://example.com/a?b=c#d", "file:///tmp/x%20y", "relative/path", "mailto:someone@example.com",
        "https://user:pw@example.com:8080/%E2%9C%93?q=%20", "urn:isbn:0451450523", "a", "https://example.com/",
    ].compactMap { URL(string: $0) }

    static func url(_ generator: inout SplitMix64) -> URL {
        urls[Int.random(in: 0..<urls.count, using: &generator)]
    }

    static let decimals: [Decimal] =
        [
            Decimal(0), Decimal(1), Decimal(-1), Decimal(Int64.max), Decimal(Int64.min), .greatestFiniteMagnitude,
            .leastFiniteMagnitude,
        ]
        + [
            "0.1", "-0.000000000000000000001", "123456789012345678901234567890.0123456789", "1e-100", "3.14159",
            "99999999999999999999999999999999999999",
        ].compactMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }

    static func decimal(_ generator: inout SplitMix64) -> Decimal {
        decimals[Int.random(in: 0..<decimals.count, using: &generator)]
    }

    static func point(_ generator: inout SplitMix64) -> GPoint {
        GPoint(
            x: Double(Int64.random(in: .min ... .max, using: &generator)) / 3,
            y: Bool.random(using: &generator) ? nil : -.greatestFiniteMagnitude,
            label: Sample.text(&generator, allowHuge: false),
            tags: (0..<Int.random(in: 0...3, using: &generator)).map { _ in Sample.text(&generator, allowHuge: false) })
    }

    static func dictionary<Value>(
        _ generator: inout SplitMix64, _ value: (inout SplitMix64) -> Value
    ) -> [String: Value] {
        var result: [String: Value] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            result[Sample.text(&generator, allowHuge: false)] = value(&generator)
        }
        return result
    }
}

// MARK: Declaration shapes

/// An optional spelled through a type alias.
typealias GMaybeInt = Int?

/// A String raw-value enum that is also ``DatabaseValueConvertible``.
enum GColor: String, Codable, Equatable, DatabaseValueConvertible, Sendable {
    case red, green
}

/// A custom ``DatabaseValueConvertible`` type: an INTEGER of cents, read through its conversion, not its keyed
/// `Codable` form.
struct GCents: DatabaseValueConvertible, Codable, Equatable, Sendable {
    struct NotCents: Error, CustomStringConvertible {
        var description: String { "not a number of cents" }
    }

    var cents: Int64

    init(cents: Int64) { self.cents = cents }

    var databaseValue: DatabaseValue { .integer(cents) }

    init(databaseValue: DatabaseValue) throws {
        guard case .integer(let cents) = databaseValue else { throw NotCents() }
        self.cents = cents
    }
}

/// Every way of declaring a stored property that synthesized `Codable` codes, and some it does not.
@Table("edge")
struct GEdge: Codable, Equatable {
    enum Kind: String, Codable, Equatable {
        case one, two
    }

    static let ignoredStatic = 0

    var id: Int64?
    var `default`: Int
    var `where`: String?
    var left, right: Int16
    var observed: String {
        didSet { _ = oldValue }
    }
    private var secret: String
    // swift-format-ignore: UseShorthandTypeNames
    var spelled: Optional<Int>
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var unwrapped: Int!
    var aliased: GMaybeInt
    var kind: Kind
    var color: GColor
    var optColor: GColor?
    var cents: GCents
    var optCents: GCents?
    var bytes: [UInt8]
    var set: Set<String>
    var points: [GPoint?]
    var withDefault: Int = 11
    lazy var lazyValue: Int = 12
    var computed: Int { Int(left) + Int(right) }

    init(id: Int64?, number: Int, secret: String, optionals: Int?) {
        self.id = id
        self.default = number
        self.where = optionals.map(String.init)
        left = Int16(truncatingIfNeeded: number)
        right = -1
        observed = "observed \(number)"
        self.secret = secret
        spelled = optionals
        unwrapped = optionals
        aliased = optionals.map { $0 &+ 1 }
        kind = number.isMultiple(of: 2) ? .one : .two
        color = number.isMultiple(of: 3) ? .red : .green
        optColor = optionals == nil ? nil : .green
        cents = GCents(cents: Int64(number) &* 100)
        optCents = optionals.map { GCents(cents: Int64($0)) }
        bytes = [0, 255, UInt8(truncatingIfNeeded: number)]
        set = ["a", "b\(number)"]
        points = [nil, GPoint(x: -0.0, y: nil, label: secret, tags: [])]
    }

    var secretValue: String { secret }

    static let columnNames = [
        "id", "default", "where", "left", "right", "observed", "secret", "spelled", "unwrapped", "aliased", "kind",
        "color", "optColor", "cents", "optCents", "bytes", "set", "points", "withDefault",
    ]

    static func createTable(_ name: String) -> String {
        "CREATE TABLE \(name) (id INTEGER PRIMARY KEY, "
            + columnNames.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ") + ")"
    }

    static func insertSQL(_ table: String) -> String {
        "INSERT INTO \(table) (\(columnNames.map { "\"\($0)\"" }.joined(separator: ", "))) "
            + "VALUES (\(columnNames.map { ":" + $0 }.joined(separator: ", ")))"
    }
}

/// Three models over the same columns in different orders, to interleave on one statement.
@Table("abc")
struct GABC: Codable, Equatable {
    var a: String
    var b: String?
    var c: Int
}

@Table("abc")
struct GCBA: Codable, Equatable {
    var c: Int
    var b: String?
    var a: String
}

/// The same columns through `Codable` only.
struct GPlainBA: Codable, Equatable {
    var b: String?
    var a: String
}
