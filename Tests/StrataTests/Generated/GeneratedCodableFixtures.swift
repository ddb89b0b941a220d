import Foundation
import Strata
import StrataRecord

// The `@Table` types of the Codable differential tests, each with a twin: the same declaration without `@Table`,
// whose `Codable` conformance Swift synthesizes. A `@Table` type codes through the `CodingKeys`, `init(from:)` and
// `encode(to:)` that the macro declares; its twin through the compiler's. The tests compare them call by call.

/// An optional through a typealias: synthesized Codable sees an `Optional` (`decodeIfPresent`), the macro only a
/// name.
typealias CMaybeInt = Int?
/// A non-optional through a typealias.
typealias CMeters = Double

/// The declaration shapes synthesized `Codable` treats apart, with its implicit `CodingKeys`.
@Table("c_shapes")
struct CShapes: Codable, Equatable {
    static let ignored = 1

    var id: Int64?
    var plain: Int
    var aliasedOptional: CMaybeInt
    var aliased: CMeters
    var doubleOptional: Int??
    // swift-format-ignore: UseShorthandTypeNames
    var spelled: Optional<String>
    var mood: GMood
    var moods: [GMood]?
    var `default`: Int = 3
    private var secret: String = "s"
    var observed: Int = 0 {
        didSet { _ = oldValue }
    }
    lazy var lazyValue: Int = 4
    var computed: Int { plain + 1 }
    var parenthesized: (GLevel)?
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var unwrapped: Int!
    var point: GPoint
    var date: Date
    var dict: [String: Int]?
    var small: Int8
    var flag: Bool?

    init(seed: Int) {
        id = seed.isMultiple(of: 4) ? nil : Int64(seed + 100)
        plain = seed * 7
        aliasedOptional = seed.isMultiple(of: 2) ? nil : seed
        aliased = Double(seed) / 4
        doubleOptional = seed.isMultiple(of: 3) ? .some(nil) : seed.isMultiple(of: 5) ? nil : seed
        spelled = seed.isMultiple(of: 2) ? "s\(seed)" : nil
        mood = seed.isMultiple(of: 2) ? .happy : .quoted
        moods = seed.isMultiple(of: 3) ? nil : [.sad, .empty]
        self.default = -seed
        secret = "secret \(seed)"
        observed = seed + 1
        parenthesized = seed.isMultiple(of: 2) ? .high : nil
        unwrapped = seed.isMultiple(of: 3) ? nil : seed * 2
        point = GPoint(x: Double(seed), y: seed.isMultiple(of: 2) ? nil : -0.0, label: "p\(seed)", tags: ["t"])
        date = Date(timeIntervalSince1970: 1_700_000_000 + Double(seed))
        dict = seed.isMultiple(of: 2) ? ["k": seed] : nil
        small = Int8(truncatingIfNeeded: seed)
        flag = seed.isMultiple(of: 3) ? nil : seed.isMultiple(of: 2)
    }

    static func createTable(_ name: String) -> String {
        "CREATE TABLE \(name) (id INTEGER PRIMARY KEY, plain, aliasedOptional, aliased, doubleOptional, spelled, "
            + "mood, moods, \"default\", secret, observed, parenthesized, unwrapped, point, date, dict, small, flag)"
    }
}

struct CShapesTwin: Codable, Equatable, Model {
    static let tableName = "c_shapes"
    static let ignored = 1

    var id: Int64?
    var plain: Int
    var aliasedOptional: CMaybeInt
    var aliased: CMeters
    var doubleOptional: Int??
    // swift-format-ignore: UseShorthandTypeNames
    var spelled: Optional<String>
    var mood: GMood
    var moods: [GMood]?
    var `default`: Int = 3
    private var secret: String = "s"
    var observed: Int = 0 {
        didSet { _ = oldValue }
    }
    lazy var lazyValue: Int = 4
    var computed: Int { plain + 1 }
    var parenthesized: (GLevel)?
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var unwrapped: Int!
    var point: GPoint
    var date: Date
    var dict: [String: Int]?
    var small: Int8
    var flag: Bool?

    init(seed: Int) {
        id = seed.isMultiple(of: 4) ? nil : Int64(seed + 100)
        plain = seed * 7
        aliasedOptional = seed.isMultiple(of: 2) ? nil : seed
        aliased = Double(seed) / 4
        doubleOptional = seed.isMultiple(of: 3) ? .some(nil) : seed.isMultiple(of: 5) ? nil : seed
        spelled = seed.isMultiple(of: 2) ? "s\(seed)" : nil
        mood = seed.isMultiple(of: 2) ? .happy : .quoted
        moods = seed.isMultiple(of: 3) ? nil : [.sad, .empty]
        self.default = -seed
        secret = "secret \(seed)"
        observed = seed + 1
        parenthesized = seed.isMultiple(of: 2) ? .high : nil
        unwrapped = seed.isMultiple(of: 3) ? nil : seed * 2
        point = GPoint(x: Double(seed), y: seed.isMultiple(of: 2) ? nil : -0.0, label: "p\(seed)", tags: ["t"])
        date = Date(timeIntervalSince1970: 1_700_000_000 + Double(seed))
        dict = seed.isMultiple(of: 2) ? ["k": seed] : nil
        small = Int8(truncatingIfNeeded: seed)
        flag = seed.isMultiple(of: 3) ? nil : seed.isMultiple(of: 2)
    }
}

/// Custom `CodingKeys` in an order of their own: a renamed key, a property left out with a default, an optional left
/// out without one (nil), a `let` with an initial value (encoded, never decoded).
@Table("c_keyed")
struct CKeyed: Codable, Equatable {
    var id: Int64?
    var title: String
    var cache: Int = 7
    var note: String?
    let version: Int = 3
    var count: Int
    var ratio: Double

    enum CodingKeys: String, CodingKey {
        case ratio
        case count = "the_count"
        case version
        case title = "title_text"
        case id
    }

    init(id: Int64?, title: String, count: Int, ratio: Double) {
        self.id = id
        self.title = title
        self.count = count
        self.ratio = ratio
    }

    static let createTable = "CREATE TABLE c_keyed (id INTEGER PRIMARY KEY, ratio, the_count, version, title_text)"
}

struct CKeyedTwin: Codable, Equatable, Model {
    static let tableName = "c_keyed"

    var id: Int64?
    var title: String
    var cache: Int = 7
    var note: String?
    let version: Int = 3
    var count: Int
    var ratio: Double

    enum CodingKeys: String, CodingKey {
        case ratio
        case count = "the_count"
        case version
        case title = "title_text"
        case id
    }

    init(id: Int64?, title: String, count: Int, ratio: Double) {
        self.id = id
        self.title = title
        self.count = count
        self.ratio = ratio
    }
}

/// `CodingKeys` without a raw type whose `stringValue` is its own: the keys are what it says, not the case names.
@Table("c_string_value")
struct CStringValue: Codable, Equatable {
    var id: Int64?
    var displayName: String

    enum CodingKeys: CodingKey {
        case id, displayName

        var stringValue: String { self == .id ? "id" : "display_name" }
        var intValue: Int? { nil }
        init?(stringValue: String) {
            switch stringValue {
            case "id": self = .id
            case "display_name": self = .displayName
            default: return nil
            }
        }
        init?(intValue: Int) { nil }
    }

    static let createTable = "CREATE TABLE c_string_value (id INTEGER PRIMARY KEY, display_name)"
}

struct CStringValueTwin: Codable, Equatable, Model {
    static let tableName = "c_string_value"

    var id: Int64?
    var displayName: String

    enum CodingKeys: CodingKey {
        case id, displayName

        var stringValue: String { self == .id ? "id" : "display_name" }
        var intValue: Int? { nil }
        init?(stringValue: String) {
            switch stringValue {
            case "id": self = .id
            case "display_name": self = .displayName
            default: return nil
            }
        }
        init?(intValue: Int) { nil }
    }
}

/// A generic property: synthesized Codable decodes `T` with `decode` even when `T` is an `Optional`, and `T?` with
/// `decodeIfPresent`.
@Table("c_generic")
struct CGeneric<T: Codable & Equatable>: Codable, Equatable {
    var id: Int64?
    var value: T
    var maybe: T?

    static var createTable: String { "CREATE TABLE c_generic (id INTEGER PRIMARY KEY, value, maybe)" }
}

struct CGenericTwin<T: Codable & Equatable>: Codable, Equatable, Model {
    static var tableName: String { "c_generic" }

    var id: Int64?
    var value: T
    var maybe: T?
}

/// Stored properties and coding keys inside `#if`: coded in the configurations that declare them, as synthesized
/// Codable codes them.
@Table("c_conditional")
struct CConditional: Codable, Equatable {
    var id: Int64?
    #if compiler(>=5)
        var active: String
    #else
        var inactive: Int
    #endif
    #if compiler(<5)
        var never: Int
    #endif
    var tail: Int
    var keyed: String = "k"

    enum CodingKeys: String, CodingKey {
        case id
        #if compiler(>=5)
            case active = "active_column"
        #else
            case inactive
        #endif
        #if compiler(<5)
            case never
        #endif
        case tail
        case keyed
    }

    init(id: Int64?, active: String, tail: Int, keyed: String) {
        self.id = id
        self.active = active
        self.tail = tail
        self.keyed = keyed
    }

    static let createTable = "CREATE TABLE c_conditional (id INTEGER PRIMARY KEY, active_column, tail, keyed)"
}

struct CConditionalTwin: Codable, Equatable, Model {
    static let tableName = "c_conditional"

    var id: Int64?
    #if compiler(>=5)
        var active: String
    #else
        var inactive: Int
    #endif
    #if compiler(<5)
        var never: Int
    #endif
    var tail: Int
    var keyed: String = "k"

    enum CodingKeys: String, CodingKey {
        case id
        #if compiler(>=5)
            case active = "active_column"
        #else
            case inactive
        #endif
        #if compiler(<5)
            case never
        #endif
        case tail
        case keyed
    }

    init(id: Int64?, active: String, tail: Int, keyed: String) {
        self.id = id
        self.active = active
        self.tail = tail
        self.keyed = keyed
    }
}

/// Stored properties inside `#if` with the keys synthesized: the case, whose values were stored as NULL and
/// never read (an optional, and a property with an initial value, so that it compiled).
@Table("c_conditional_implicit")
struct CConditionalImplicit: Codable, Equatable {
    var id: Int64?
    #if compiler(>=5)
        var note: String?
    #endif
    #if os(Linux) || os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS) || os(Windows) || os(Android)
        var platformNote: String = "none"
    #else
        var otherNote: String?
    #endif

    static let createTable = "CREATE TABLE c_conditional_implicit (id INTEGER PRIMARY KEY, note, platformNote)"
}

struct CConditionalImplicitTwin: Codable, Equatable, Model {
    static let tableName = "c_conditional_implicit"

    var id: Int64?
    #if compiler(>=5)
        var note: String?
    #endif
    #if os(Linux) || os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS) || os(Windows) || os(Android)
        var platformNote: String = "none"
    #else
        var otherNote: String?
    #endif
}

/// A `@Table` struct nested in a generic type.
enum COuter<U: Codable & Equatable & Sendable> {
    @Table("c_inner")
    struct Inner: Codable, Equatable {
        var id: Int64?
        var u: U
        var maybe: U?
    }

    struct InnerTwin: Codable, Equatable, Model {
        static var tableName: String { "c_inner" }

        var id: Int64?
        var u: U
        var maybe: U?
    }
}
