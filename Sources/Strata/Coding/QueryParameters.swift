/// The parameters of a fetch or execute: none, an `Encodable` value, or a dictionary of values
/// of different types.
@usableFromInline
enum QueryParameters {
    case none
    case encodable(any Encodable)
    case values([String: (any DatabaseValueConvertible)?])

    @usableFromInline
    init(_ parameters: (any Encodable)?) {
        self = parameters.map(QueryParameters.encodable) ?? .none
    }

    /// Binds the parameters; like ``StatementEncoder``, a name the statement lacks is skipped and a
    /// parameter left without a value throws.
    func bind(to statement: Statement) throws {
        switch self {
        case .none:
            // No values: a parameter would run as NULL.
            guard statement.parameterCount == 0 else {
                throw DatabaseError.noValue(forParameter: 1, of: statement.handle, sql: statement.sql)
            }
        case .encodable(let value):
            try StatementEncoder.standard.encode(value, to: statement)
        case .values(let values):
            try StatementEncoder.standard.encode(ValueDictionary(values: values), to: statement)
        }
    }
}

/// A dictionary of storable values, encoded as a parameter set.
struct ValueDictionary: Encodable {
    let values: [String: (any DatabaseValueConvertible)?]

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in values {
            if let value {
                try container.encode(StorableValue(value: value), forKey: Key(stringValue: name))
            } else {
                try container.encodeNil(forKey: Key(stringValue: name))
            }
        }
    }
}

/// One storable value as an `Encodable`: Strata's encoder binds it through its conversion,
/// other encoders get its stored form.
struct StorableValue: Encodable, DatabaseValueConvertible {
    let value: any DatabaseValueConvertible

    init(value: any DatabaseValueConvertible) { self.value = value }

    init(databaseValue: DatabaseValue) { value = databaseValue }

    var databaseValue: DatabaseValue { value.databaseValue }

    func encode(to encoder: any Encoder) throws {
        try value.databaseValue.encode(to: encoder)
    }
}

extension StorableValue: StrategyAwareValue {
    @usableFromInline package func databaseValue(using strategies: ValueStrategies) throws -> DatabaseValue {
        try value.storedValue(using: strategies)
    }

    @usableFromInline package init(databaseValue: DatabaseValue, using strategies: ValueStrategies) throws {
        value = databaseValue
    }
}

extension Database {
    /// Runs one statement with parameters from a dictionary of values of any storable types:
    /// `try db.execute(query: "INSERT INTO foo VALUES (:name, :age)", parameters: ["name": "Bar", "age": 42])`.
    public func execute(query: String, parameters: [String: (any DatabaseValueConvertible)?]) throws {
        try prepared(query: query, parameters: .values(parameters)).perform()
    }

    /// Every row of `query` decoded as `T`, with parameters from a dictionary of values of any storable types.
    @_disfavoredOverload
    public func fetchAll<T: Decodable>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?],
        decoder: RowDecoder = RowDecoder()
    ) throws -> [T] {
        try collect(query: query, parameters: .values(parameters)) {
            decoder.forRows(of: T.self).makeDecoding(for: $0)
        } decode: {
            try $0.decodeRow(T.self)
        }
    }

    /// Every row of a one-column `query` as `T`, with parameters from a dictionary.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchAll<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?]
    ) throws -> [T] {
        try collect(query: query, parameters: .values(parameters)) {
            $0
        } decode: {
            try $0.scalar(T.self)
        }
    }

    /// The first row of `query` decoded as `T`, or nil, with parameters from a dictionary.
    @_disfavoredOverload
    public func fetchOne<T: Decodable>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?],
        decoder: RowDecoder = RowDecoder()
    ) throws -> T? {
        try first(query: query, parameters: .values(parameters)) {
            try decoder.forRows(of: T.self).makeDecoding(for: $0).decodeRow(T.self)
        }
    }

    /// The first row of a one-column `query` as `T`, or nil, with parameters from a dictionary.
    ///
    /// A type that is also `Decodable` (`Int`, `String`, `Date`...) reads here, through its conversion.
    public func fetchOne<T: DatabaseValueConvertible>(
        _ type: T.Type, query: String, parameters: [String: (any DatabaseValueConvertible)?]
    ) throws -> T? {
        try first(query: query, parameters: .values(parameters)) { try $0.scalar(T.self) }
    }

}
