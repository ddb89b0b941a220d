import Foundation

/// A `DatabaseValue` encodes as the plain value it holds (NULL as nil), so dictionaries of them
/// are parameter sets: `["name": "Ada", "age": 36] as [String: DatabaseValue]`.
extension DatabaseValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .blob(try container.decode(Data.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .blob(let value): try container.encode(value)
        }
    }
}
