import Foundation
import Strata

/// Shapes a user writes, shared by the Codable suites.
enum Mood: String, Codable, Equatable, CaseIterable {
    case happy, sad
}

enum Priority: Int, Codable, Equatable {
    case low = 1
    case high = 9
}

struct Address: Codable, Equatable, Hashable {
    var street: String
    var zip: Int
}

/// A custom single-value type.
struct Celsius: Codable, Equatable {
    var degrees: Double
    init(_ degrees: Double) { self.degrees = degrees }
    init(from decoder: any Decoder) throws { degrees = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(degrees)
    }
}

/// Every column kind the Codable layer maps, in one struct.
struct Everything: Codable, Equatable {
    var id: Int64?
    var bool: Bool
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
    var float: Float
    var double: Double
    var string: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var mood: Mood
    var priority: Priority
    var address: Address
    var tags: [String]
    var scores: [String: Int]
    var labels: Set<String>
    var temperature: Celsius
    var optionalString: String?
    var optionalAddress: Address?
    var optionalMood: Mood?

    static let columns = """
        id INTEGER PRIMARY KEY, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
        float, double, string, data, date, uuid, url, decimal, mood, priority, address, tags, scores, labels,
        temperature, optionalString, optionalAddress, optionalMood
        """

    static let insertSQL = """
        INSERT INTO everything (bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
        float, double, string, data, date, uuid, url, decimal, mood, priority, address, tags, scores, labels,
        temperature, optionalString, optionalAddress, optionalMood)
        VALUES (:bool, :int, :int8, :int16, :int32, :int64, :uint, :uint8, :uint16, :uint32, :uint64,
        :float, :double, :string, :data, :date, :uuid, :url, :decimal, :mood, :priority, :address, :tags, :scores,
        :labels, :temperature, :optionalString, :optionalAddress, :optionalMood)
        """

    static func sample(_ n: Int = 1) -> Everything {
        Everything(
            id: nil, bool: n % 2 == 0, int: n, int8: -8, int16: -16, int32: -32, int64: Int64.min + Int64(n),
            uint: 7, uint8: 255, uint16: 65535, uint32: UInt32.max, uint64: UInt64(Int64.max),
            float: 1.5, double: -0.25, string: "héllo \(n) 🎉", data: Data([0, 1, 2, 255]),
            date: Date(timeIntervalSince1970: 1_700_000_000.123), uuid: UUID(), url: URL(fileURLWithPath: "/tmp/a b"),
            decimal: Decimal(123_456_789) / Decimal(10_000), mood: .sad, priority: .high,
            address: Address(street: "1 Infinite Loop", zip: 95014), tags: ["a", "b"], scores: ["x": 1, "y": 2],
            labels: ["red", "blue"], temperature: Celsius(21.5), optionalString: nil,
            optionalAddress: Address(street: "2nd", zip: 1), optionalMood: nil)
    }
}

func makeEverythingDatabase() throws -> Database {
    let db = try Database()
    try db.execute(query: "CREATE TABLE everything (\(Everything.columns))")
    return db
}
