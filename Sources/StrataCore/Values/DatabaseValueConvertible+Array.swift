import Foundation

/// Arrays are stored per ``ArrayStrategy``: JSON TEXT by default, or a binary property list BLOB.
/// `[UInt8]` is the exception: its bytes are stored as a BLOB.
///
/// Reading accepts either form whatever the strategy.
extension Array: DatabaseValueConvertible, StrategyAwareValue where Element: Codable {
    public var databaseValue: DatabaseValue {
        (try? databaseValue(using: ValueStrategies())) ?? .null
    }

    public init(databaseValue: DatabaseValue) throws {
        try self.init(databaseValue: databaseValue, using: ValueStrategies())
    }

    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        // Check the element type, not the cast: an empty array of any type casts to [UInt8].
        if Element.self == UInt8.self, let bytes = self as? [UInt8] {
            return .blob(Data(bytes))
        }
        return try NestedValueCoding.encode(self, strategy: strategies.array)
    }

    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        if Element.self == UInt8.self {
            switch databaseValue {
            case .blob(let data):
                // The cast cannot fail: Element is UInt8.
                if let bytes = [UInt8](data) as? [Element] {
                    self = bytes
                    return
                }
            case .null:
                throw DatabaseError.conversion(.unexpectedNull, from: databaseValue, to: [Element].self)
            default:
                throw DatabaseError.conversion(.typeMismatch, from: databaseValue, to: [Element].self)
            }
        }
        self = try NestedValueCoding.decode([Element].self, from: databaseValue)
    }
}

/// Nested Codable values in one column: JSON TEXT or a binary property list BLOB.
package enum NestedValueCoding {
    package static func encode<T: Encodable>(_ value: T, strategy: ArrayStrategy) throws -> DatabaseValue {
        do {
            switch strategy {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .custom { date, encoder in
                    // The same sortable UTC text as a Date column, so json_extract values compare like columns.
                    var container = encoder.singleValueContainer()
                    if let text = SQLiteDateFormat.string(from: date) {
                        try container.encode(text)
                    } else {
                        try container.encode(date.timeIntervalSince1970)
                    }
                }
                let data = try encoder.encode(value)
                return .text(String(decoding: data, as: UTF8.self))
            case .bplist:
                let encoder = PropertyListEncoder()
                encoder.outputFormat = .binary
                return .blob(try encoder.encode(value))
            }
        } catch {
            throw DatabaseError(
                code: .invalidValue, message: "could not encode \(T.self) as \(strategy)", underlyingError: error)
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, from value: DatabaseValue) throws -> T {
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        case .null: throw DatabaseError.conversion(.unexpectedNull, from: value, to: T.self)
        default: throw DatabaseError.conversion(.typeMismatch, from: value, to: T.self)
        }
        do {
            if data.starts(with: Array("bplist".utf8)) {
                return try PropertyListDecoder().decode(T.self, from: data)
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                if let seconds = try? container.decode(Double.self) {
                    return Date(timeIntervalSince1970: seconds)
                }
                let text = try container.decode(String.self)
                guard let date = SQLiteDateFormat.date(from: text) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a date: \(text)")
                }
                return date
            }
            return try decoder.decode(T.self, from: data)
        } catch {
            throw DatabaseError(
                code: .invalidValue,
                message: "could not decode \(T.self) from \(value.storageClassName) (malformed JSON or property list)",
                underlyingError: error)
        }
    }
}
