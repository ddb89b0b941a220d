import Foundation

/// The ten columns every system reads and writes. Each system has its own record type with
/// these fields (Strata `Model`, GRDB Codable record, GRDB hand-written record); the plain
/// `Item` serves the C baseline, Strata's Row API, and the generator.
protocol ItemFields {
    var id: Int64 { get }
    var a: Int64 { get }
    var b: Int { get }
    var c: Int { get }
    var d: Double { get }
    var e: Double { get }
    var name: String { get }
    var note: String { get }
    var flag: Bool { get }
    var payload: Data { get }
}

struct Item: ItemFields, Sendable {
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
}

enum Workload {
    static let createTable = """
        CREATE TABLE item (
            id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, d REAL, e REAL,
            name TEXT, note TEXT, flag INTEGER, payload BLOB)
        """
    static let insertSQL =
        "INSERT INTO item (id, a, b, c, d, e, name, note, flag, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let selectAllSQL = "SELECT * FROM item"
    static let selectByIDSQL = "SELECT * FROM item WHERE id = ?"
    /// Copies the rows of an attached source file into `main.item`; the path is a bound parameter.
    static let attachSQL = "ATTACH DATABASE ? AS source"
    static let copySQL = "INSERT INTO main.item SELECT * FROM source.item"
    static let detachSQL = "DETACH DATABASE source"

    private static let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
        "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    ]

    /// The row with primary key `id`: a pure function of `id`, so that 1,000,000 rows can be
    /// checked in a stream without holding them.
    static func item(id: Int64) -> Item {
        var random = SplitMix64(seed: UInt64(bitPattern: id))
        let nameWord = words[Int(random.next() % UInt64(words.count))]
        let noteWords = 3 + Int(random.next() % 8)
        var note = ""
        for index in 0..<noteWords {
            if index > 0 { note += " " }
            note += words[Int(random.next() % UInt64(words.count))]
        }
        let payloadCount = 16 + Int(random.next() % 49)
        var payload = Data(count: payloadCount)
        for index in 0..<payloadCount {
            payload[index] = UInt8(truncatingIfNeeded: random.next())
        }
        return Item(
            id: id,
            a: Int64(bitPattern: random.next()),
            b: Int(random.next() % 1_000_000),
            c: Int(random.next() % 2001) - 1000,
            d: Double(random.next() % 10_000_000) / 1000,
            e: Double(Int64(random.next() % 2_000_000) - 1_000_000) * 0.125,
            name: "\(nameWord)-\(id)",
            note: note,
            flag: random.next() % 3 == 0,
            payload: payload)
    }

    static func items(count: Int) -> [Item] {
        (0..<count).map { item(id: Int64($0 + 1)) }
    }

    /// `count` primary keys in 1...rows, scattered deterministically (repeats allowed).
    static func lookupIDs(count: Int, rows: Int) -> [Int64] {
        var random = SplitMix64(seed: 0x5EED)
        return (0..<count).map { _ in Int64(random.next() % UInt64(rows)) + 1 }
    }
}

/// A small deterministic generator (SplitMix64), so every run and every system sees the same data.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Every field of every row, folded so that no system can be measured doing less work.
struct Checksum: Equatable, CustomStringConvertible {
    var count = 0
    var integerSum: Int64 = 0
    var doubleSum: Double = 0
    var textBytes = 0
    var blobBytes = 0
    var flags = 0
    /// FNV-1a over every name, in row order.
    var nameHash: UInt64 = 0xCBF2_9CE4_8422_2325
    /// A rolling sum over payload bytes.
    var blobSum: UInt64 = 0

    init() {}

    init(_ items: some Sequence<some ItemFields>) {
        for item in items { add(item) }
    }

    mutating func add(_ item: some ItemFields) {
        count += 1
        integerSum = integerSum &+ item.id &+ item.a &+ Int64(item.b) &+ Int64(item.c)
        doubleSum += item.d + item.e
        textBytes += item.name.utf8.count + item.note.utf8.count
        blobBytes += item.payload.count
        if item.flag { flags += 1 }
        for byte in item.name.utf8 {
            nameHash = (nameHash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        nameHash = (nameHash ^ 0xFF) &* 0x100_0000_01B3
        for byte in item.payload {
            blobSum = blobSum &* 31 &+ UInt64(byte)
        }
    }

    var description: String {
        "rows \(count), ints \(integerSum), doubles \(doubleSum), text bytes \(textBytes), "
            + "blob bytes \(blobBytes), flags \(flags), name hash \(String(nameHash, radix: 16)), "
            + "blob sum \(String(blobSum, radix: 16))"
    }
}
