import Foundation
internal import StrataCore

/// Encodes an `Encodable` value into a statement's parameters through StrataCore's one parameter encoder (see
/// `ParameterBinder`), as Strata binds them on SQLite: each coding key names the parameter of the same name
/// (through `mapping`), `nil` is NULL, a nested value is one `jsonb` parameter, a list binds `$1`, `$2`... in order
/// and a single value the only parameter.
struct PostgresParameterEncoder {
    /// How coding keys become parameter names.
    var mapping: KeyMapping = .useDefaultKeys

    /// The values of the parameters of `text`, made from `value`, in order: the `$n` first, then the named ones.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value or a value cannot be sent.
    func values<T: Encodable>(_ value: T, for text: PostgresStatementText, positionalCount: Int, sql: String) throws
        -> [PostgresValue]
    {
        let binder = PostgresParameterBinder(
            names: text.names, positionalCount: positionalCount, highestPositional: text.highestPositional,
            mapping: mapping)
        try ParameterEncoding(binder: binder, sql: sql).encode(value)
        return binder.values
    }

    /// The parameters of `value`, by name: every key it encodes names one.
    ///
    /// - Throws: `EncodingError` when `value` is not keyed, nests a container, or has a value that cannot be sent.
    func encode<T: Encodable>(_ value: T) throws -> [String: PostgresValue] {
        let binder = try collect(value)
        return Dictionary(zip(binder.names, binder.values), uniquingKeysWith: { _, last in last })
    }

    /// The top-level coding keys of `model`, in order, once each, with their values: what ``PostgresSession``'s
    /// record methods bind, matched to cached statements by the keys. Nil for a model this cannot encode, whose
    /// caller then takes the path that says why.
    static func encodeRecord<T: Encodable>(_ model: T) -> (keys: [String], values: [PostgresValue])? {
        guard let binder = try? PostgresParameterEncoder().collect(model) else { return nil }
        return (binder.names, binder.values)
    }

    private func collect<T: Encodable>(_ value: T) throws -> PostgresParameterBinder {
        let binder = PostgresParameterBinder(collectingWith: mapping)
        guard TopLevelParameters(T.self) == .keyed else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "\(T.self) has no keys to name parameters: encode a struct"))
        }
        try ParameterEncoding(binder: binder).encode(value)
        return binder
    }
}

/// PostgreSQL's `ParameterBinder`: the value of each `$n` of a statement, as ``PostgresValue``s.
///
/// A binder made for a statement knows its parameters (its `$n`, then its named parameters); one made to collect
/// (for a record, whose SQL follows the keys it encodes) gives each new key the next parameter.
final class PostgresParameterBinder: ParameterBinder {
    let mapping: KeyMapping
    /// The names of the named parameters, after the positional ones: `names[0]` is `$(positionalCount + 1)`.
    private(set) var names: [String]
    /// The number of `$n` parameters given by position.
    let positionalCount: Int
    /// The highest `$n` the statement uses.
    let highestPositional: Int
    /// Whether each new key is a new parameter.
    let collecting: Bool
    /// The value of each parameter, in order.
    private(set) var values: [PostgresValue]

    /// The parameters of a statement: `positionalCount` of them by position, of which the SQL uses up to
    /// `highestPositional`, then `names`.
    init(names: [String], positionalCount: Int, highestPositional: Int, mapping: KeyMapping) {
        self.mapping = mapping
        self.names = names
        self.positionalCount = positionalCount
        self.highestPositional = highestPositional
        collecting = false
        values = Array(repeating: .null, count: positionalCount + names.count)
    }

    /// Parameters named by the keys encoded, in the order they are first encoded.
    init(collectingWith mapping: KeyMapping) {
        self.mapping = mapping
        names = []
        positionalCount = 0
        highestPositional = 0
        collecting = true
        values = []
    }

    var parameterCount: Int { highestPositional + names.count }

    func parameterIndex(forKey key: String) -> Int? {
        let name = mapping.name(for: key)
        if let offset = names.firstIndex(of: name) { return positionalCount + offset + 1 }
        guard collecting else { return nil }
        names.append(name)
        values.append(.null)
        return positionalCount + names.count
    }

    func parameterName(at index: Int) -> String {
        index <= positionalCount ? "$\(index)" : ":" + names[index - positionalCount - 1]
    }

    func bindNull(at index: Int) throws { values[index - 1] = .null }
    func bindBool(_ value: Bool, at index: Int) throws { values[index - 1] = .bool(value) }
    func bindInteger(_ value: Int64, at index: Int) throws { values[index - 1] = .int8(value) }
    func bindDouble(_ value: Double, at index: Int) throws { values[index - 1] = PostgresValue.double(value) }
    func bindFloat(_ value: Float, at index: Int) throws { values[index - 1] = PostgresValue.float(value) }
    func bindString(_ value: String, at index: Int) throws { values[index - 1] = .text(value) }

    /// The built-in types and ``DatabaseValueConvertible`` types as ``PostgresValue/make(_:)`` sends them; a
    /// sequence (an array, a set, a dictionary) as `jsonb`.
    func bindValue<T: Encodable>(_ value: T, at index: Int, otherwise: (Int) throws -> Void) throws {
        if let known = try PostgresValue.known(value) {
            values[index - 1] = known
        } else if value is any Sequence {
            try bindNested(value, at: index)
        } else if let convertible = value as? any DatabaseValueConvertible {
            values[index - 1] = try PostgresValue.make(databaseValue: convertible.databaseValue, of: T.self)
        } else {
            try otherwise(index)
        }
    }

    func bindNested<T: Encodable>(_ value: T, at index: Int) throws {
        values[index - 1] = try PostgresValue.json(value)
    }
}
