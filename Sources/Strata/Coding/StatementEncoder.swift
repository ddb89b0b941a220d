import Foundation

/// Encodes `Encodable` values into a statement's named parameters: each coding key binds the
/// parameter of the same name.
///
/// ```swift
/// let statement = try db.prepare(query: "INSERT INTO foo (b, c, d, e) VALUES (:b, :c, :d, :e)")
/// try StatementEncoder().encode(foo, to: statement)
/// try statement.perform()
/// ```
///
/// - **Every parameter is bound by the value or the encode throws**: bindings are cleared
///   first, so a value never runs with one left over from the statement's previous use.
/// - Keys the statement has no parameter for are skipped.
/// - `nil` binds NULL.
/// - Nested structs, arrays, dictionaries and sets bind one column of JSON TEXT (or a binary
///   property list under ``ArrayStrategy/bplist``); raw-value enums bind their raw value.
/// - A dictionary is a parameter set: `["age": 30]` binds `:age`.
///
/// Errors are `EncodingError`s with the coding path and a message naming the parameter.
public struct StatementEncoder: Sendable {
    /// How coding keys become parameter names. `.useDefaultKeys` by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// Overrides the statement's date strategy.
    public var dateStrategy: DateStrategy?
    /// Overrides the statement's array strategy.
    public var arrayStrategy: ArrayStrategy?
    /// Overrides the statement's UUID strategy.
    public var uuidStrategy: UUIDStrategy?
    /// Contextual information for custom `encode(to:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    /// Binds the parameters of `statement` from `value`.
    ///
    /// The statement is reset first, so rows read from it before are stale.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value or a value cannot be
    ///   stored; ``DatabaseError`` when the database is closed.
    public func encode<T: Encodable>(_ value: T, to statement: Statement) throws {
        try encodePass(value, to: statement)
    }

    /// One encode pass; records pass `watching` (the primary key's parameter) and `forRecord`.
    @discardableResult
    func encodePass<T: Encodable>(
        _ value: T, to statement: Statement, watching watchedParameter: Int32 = 0, forRecord: Bool = false
    ) throws -> StatementEncoding {
        _ = try statement.connection.openHandle(sql: statement.sql)
        statement.prepareForBinding(clearing: !forRecord)
        let strategies = statement.strategies.overridden(date: dateStrategy, array: arrayStrategy, uuid: uuidStrategy)
        let encoding = StatementEncoding(
            statement: statement, mapping: keyEncodingStrategy.mapping, strategies: strategies, userInfo: userInfo)
        encoding.watchedParameter = watchedParameter
        encoding.forRecord = forRecord
        try encoding.encodeTopLevel(value)
        return encoding
    }
}

/// The `Encoder` for one encode pass over a statement's parameters.
final class StatementEncoding: Encoder {
    let statement: Statement
    let cache: CodingCache
    let mapping: KeyMapping
    let strategies: ValueStrategies
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] = []
    /// How many keys this pass has bound so far. Unchecked for exclusivity as in `CodingCache`.
    @exclusivity(unchecked) var position = 0
    /// The first failure inside a container method that cannot throw; reported when the pass ends.
    var deferredError: (any Error)?
    /// A parameter index to watch, 0 for none, and whether the pass bound NULL to it.
    var watchedParameter: Int32 = 0
    @exclusivity(unchecked) var watchedWasNull = false
    /// Records leave unbound parameters NULL (a custom `encode(to:)` may omit nil values) and
    /// collect the keys that found no parameter, so that their SQL can grow to include them.
    var forRecord = false
    @exclusivity(unchecked) var skippedKeys: [String] = []

    init(
        statement: Statement, mapping: KeyMapping, strategies: ValueStrategies,
        userInfo: [CodingUserInfoKey: any Sendable]
    ) {
        self.statement = statement
        self.cache = statement.coding
        self.mapping = mapping
        self.strategies = strategies
        self.userInfo = userInfo
    }

    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        cache.beginEncoding(mapping: mapping)
        if cache.isSingleValue(T.self), let convertible = value as? any DatabaseValueConvertible {
            // A single value binds the statement's only parameter.
            guard statement.parameterCount == 1 else {
                throw EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: [],
                        debugDescription:
                            "a single \(T.self) binds a statement with one parameter; this one has "
                            + "\(statement.parameterCount); encode a struct or dictionary instead"))
            }
            try bind(convertible, at: [1], key: nil)
        } else {
            try value.encode(to: self)
        }
        if let deferredError { throw deferredError }
        let unbound = cache.unboundParameters()
        if forRecord {
            for index in unbound {
                try statement.bindNull(at: index)
                if index == watchedParameter { watchedWasNull = true }
            }
            return
        }
        guard unbound.isEmpty else {
            let names = unbound.map { index in
                statement.parameterIndexes().first { $0.value.contains(index) }.map { ":" + $0.key } ?? "?\(index)"
            }
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription:
                        "\(T.self) has no value for parameter\(names.count == 1 ? "" : "s") "
                        + names.joined(separator: ", ") + " of `\(statement.sql)`"))
        }
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(StatementKeyedContainer<Key>(encoding: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail(
            EncodingError.invalidValue(
                [Any](),
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a list cannot bind named parameters; encode a struct or dictionary")))
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fail(
            EncodingError.invalidValue(
                (),
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a single value cannot bind named parameters; encode a struct or dictionary")))
        return ColumnEncoder(strategies: strategies, codingPath: codingPath, userInfo: userInfo)
    }

    func fail(_ error: any Error) {
        if deferredError == nil { deferredError = error }
    }

    // MARK: Binding

    /// The parameters of `key`, empty when the statement has none.
    @inline(__always)
    func parameterIndexes(for key: some CodingKey) -> [Int32] {
        defer { position += 1 }
        let indexes = cache.parameterIndexes(for: key.stringValue, at: position, mapping: mapping, statement: statement)
        if forRecord && indexes.isEmpty { skippedKeys.append(key.stringValue) }
        return indexes
    }

    /// Notes that NULL was bound at `indexes`.
    @inline(__always)
    func noteNull(at indexes: [Int32]) {
        if watchedParameter != 0 && indexes.contains(watchedParameter) { watchedWasNull = true }
    }

    /// Binds through `bind` at each index and records them as bound.
    @inline(__always)
    ///
    /// `key` and `value` are only evaluated for an error message: the common path boxes neither.
    func bind(
        at indexes: [Int32], key: @autoclosure () -> (any CodingKey)?, value: @autoclosure () -> Any,
        _ bind: (Int32) throws -> Void
    ) throws {
        for index in indexes {
            do {
                try bind(index)
            } catch {
                throw encodingError(error, value: value(), key: key())
            }
            cache.markBound(index)
        }
    }

    func bind(_ value: any DatabaseValueConvertible, at indexes: [Int32], key: (any CodingKey)?) throws {
        let stored: DatabaseValue
        do {
            stored = try value.storedValue(using: strategies)
        } catch {
            throw encodingError(error, value: value, key: key)
        }
        if case .null = stored { noteNull(at: indexes) }
        try bind(at: indexes, key: key, value: value) { try statement.bindStored(stored, at: $0) }
    }

    /// Binds any `Encodable`: through its ``DatabaseValueConvertible`` conformance, as a single
    /// value, or as nested JSON or property list.
    func bindValue<T: Encodable>(_ value: T, at indexes: [Int32], key: some CodingKey) throws {
        // The common Foundation values, without the conformance look-up of the general path.
        if T.self == Data.self, let data = value as? Data {
            return try bind(at: indexes, key: key, value: value) { try statement.bindBlob(data, at: $0) }
        }
        if T.self == Date.self, let date = value as? Date {
            return try bind(date, at: indexes, key: key)
        }
        if let convertible = value as? any DatabaseValueConvertible {
            return try bind(convertible, at: indexes, key: key)
        }
        let column = ColumnEncoder(strategies: strategies, codingPath: codingPath + [key], userInfo: userInfo)
        var stored: DatabaseValue
        do {
            try value.encode(to: column)
            if let error = column.failure { throw error }
            stored = column.result ?? .null
            if column.isNested {
                stored = try NestedValueCoding.encode(value, strategy: strategies.array)
            }
        } catch {
            throw encodingError(error, value: value, key: key)
        }
        if case .null = stored { noteNull(at: indexes) }
        try bind(at: indexes, key: key, value: value) { try statement.bindStored(stored, at: $0) }
    }

    func encodingError(_ error: any Error, value: Any, key: (any CodingKey)?) -> any Error {
        guard let databaseError = error as? DatabaseError else { return error }
        let path = key.map { codingPath + [$0] } ?? codingPath
        let parameter = key.map { " - parameter :\(mapping.name(for: $0.stringValue))" } ?? ""
        return EncodingError.invalidValue(
            value,
            EncodingError.Context(
                codingPath: path, debugDescription: databaseError.description + parameter,
                underlyingError: databaseError))
    }
}

/// Swallows the elements of a list that cannot be bound; the encoder already recorded the failure.
struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    var count = 0

    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }

    mutating func superEncoder() -> any Encoder {
        ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: [:])
    }
}

/// Swallows a nested keyed value whose column is encoded as a whole elsewhere.
struct DiscardingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: [:])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}
