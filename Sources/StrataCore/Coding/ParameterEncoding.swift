import Foundation

/// StrataCore's one parameter encoder over a backend's ``ParameterBinder``: the `Encoder` a value's `encode(to:)`
/// sees, and the rules of which key binds which parameter (see ``ParameterBinder``).
///
/// One is made per encoded value; `encode(_:)` binds every parameter of the binder's statement or throws.
package final class ParameterEncoding<Binder: ParameterBinder>: Encoder {
    @usableFromInline package let binder: Binder
    package let userInfo: [CodingUserInfoKey: Any]
    /// The statement's SQL for errors, when the backend has it.
    @usableFromInline package let sql: String?
    package var codingPath: [any CodingKey] { [] }
    /// Per parameter index, whether this pass bound it.
    @usableFromInline package var bound: [Bool]
    /// The first failure inside a container method that cannot throw; reported when the pass ends.
    @usableFromInline package var deferredError: (any Error)?

    package init(binder: Binder, sql: String? = nil, userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.binder = binder
        self.sql = sql
        self.userInfo = userInfo
        bound = Array(repeating: false, count: binder.parameterCount + 1)
    }

    /// Binds every parameter of the statement from `value`.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value, a value cannot be bound, or `value` has
    ///   a shape that cannot bind the statement (a list of another length, a single value for several parameters).
    package func encode<T: Encodable>(_ value: T) throws {
        let shape = TopLevelParameters(T.self)
        if shape == .list, let list = value as? any PositionalParameters {
            try bindPositionally(list.positionalValues, of: value)
        } else if shape == .single {
            guard binder.parameterCount == 1 else {
                throw ParameterErrors.singleValue(value, of: T.self, parameterCount: binder.parameterCount)
            }
            try bindOne(value, at: 1, key: nil)
        } else {
            try value.encode(to: self)
        }
        if let deferredError { throw deferredError }
        let unbound = (1..<bound.count).filter { !bound[$0] }
        guard unbound.isEmpty else {
            throw ParameterErrors.unbound(value, of: T.self, names: unbound.map(binder.parameterName(at:)), sql: sql)
        }
    }

    /// Binds `values` to the parameters in order.
    private func bindPositionally(_ values: [any Encodable], of list: some Encodable) throws {
        guard values.count == binder.parameterCount else {
            throw ParameterErrors.listCount(
                list, count: values.count, parameterCount: binder.parameterCount, sql: sql)
        }
        for (offset, element) in values.enumerated() {
            let key = PositionKey(intValue: offset)
            guard element is any DatabaseValueConvertible else {
                throw ParameterErrors.listElement(element, at: offset, key: key)
            }
            try bindOne(element, at: offset + 1, key: key)
        }
    }

    private func bindOne(_ value: some Encodable, at index: Int, key: (any CodingKey)?) throws {
        try bind(at: index, key: key, value: value) { index in
            try binder.bindValue(value, at: index) { try self.bindSingleValue(value, at: $0, key: key) }
        }
    }

    package func fail(_ error: any Error) {
        if deferredError == nil { deferredError = error }
    }

    // MARK: Binding

    /// Binds the parameters `key` names through `bind`, each recorded as bound; nothing when the statement has none.
    ///
    /// `value` is only evaluated for an error.
    @inlinable
    package func bind(
        key: some CodingKey, value: @autoclosure () -> Any, _ bind: (Int) throws -> Void
    ) throws {
        let name = key.stringValue
        guard var index = binder.parameterIndex(forKey: name) else { return }
        while true {
            try self.bind(at: index, key: key, value: value(), bind)
            guard let next = binder.nextParameterIndex(after: index, forKey: name) else { return }
            index = next
        }
    }

    /// Binds the parameter at `index` through `bind` and records it as bound; a ``DatabaseError`` of the bind becomes
    /// an `EncodingError` naming the parameter.
    @inlinable
    package func bind(
        at index: Int, key: (any CodingKey)?, value: @autoclosure () -> Any, _ bind: (Int) throws -> Void
    ) throws {
        do {
            try bind(index)
        } catch {
            throw ParameterErrors.binding(
                error, value: value(), parameter: binder.parameterName(at: index),
                codingPath: key.map { [$0] } ?? [])
        }
        if index > 0 && index < bound.count { bound[index] = true }
    }

    /// Binds `value` of a type the backend does not bind itself: as the single value it encodes (a raw-value enum, a
    /// wrapper), or nested when it asks for a container.
    @usableFromInline
    package func bindSingleValue<T: Encodable>(_ value: T, at index: Int, key: (any CodingKey)?) throws {
        try SingleParameterEncoder.bind(
            value, binder: binder, at: index, codingPath: key.map { [$0] } ?? [], userInfo: userInfo)
    }

    // MARK: Encoder

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ParameterKeyedContainer<Key, Binder>(encoding: self))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fail(ParameterErrors.topLevelList(codingPath: codingPath))
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        fail(ParameterErrors.topLevelSingleValue(codingPath: codingPath))
        return ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: userInfo)
    }
}

/// The keyed container of ``ParameterEncoding``: each key binds the parameters of its name, if any.
package struct ParameterKeyedContainer<Key: CodingKey, Binder: ParameterBinder>: KeyedEncodingContainerProtocol {
    @usableFromInline let encoding: ParameterEncoding<Binder>

    @inlinable
    init(encoding: ParameterEncoding<Binder>) {
        self.encoding = encoding
    }

    package var codingPath: [any CodingKey] { [] }

    @inlinable
    package mutating func encodeNil(forKey key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: DatabaseValue.null) { try binder.bindNull(at: $0) }
    }

    // MARK: Scalars

    @inlinable
    package mutating func encode(_ value: Bool, forKey key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: value) { try binder.bindBool(value, at: $0) }
    }
    @inlinable
    package mutating func encode(_ value: String, forKey key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: value) { try binder.bindString(value, at: $0) }
    }
    @inlinable
    package mutating func encode(_ value: Double, forKey key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: value) { try binder.bindDouble(value, at: $0) }
    }
    @inlinable
    package mutating func encode(_ value: Float, forKey key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: value) { try binder.bindFloat(value, at: $0) }
    }
    @inlinable
    package mutating func encode(_ value: Int, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    @inlinable
    package mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(Int64(value), key) }
    @inlinable
    package mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(Int64(value), key) }

    @inlinable
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let encoding = self.encoding
        try encoding.bind(key: key, value: value) { index in
            try encoding.binder.bindValue(value, at: index) {
                try encoding.bindSingleValue(value, at: $0, key: key)
            }
        }
    }

    // MARK: Optionals: nil binds NULL

    @inlinable
    package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }
    @inlinable
    package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }

    /// `value`, or NULL for nil: the standard library's defaults skip a nil key, which would leave its parameter
    /// unbound.
    @inlinable
    mutating func put<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    @inlinable
    func integer(_ value: Int64, _ key: Key) throws {
        let binder = encoding.binder
        try encoding.bind(key: key, value: value) { try binder.bindInteger(value, at: $0) }
    }

    // MARK: Nesting

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoding.fail(ParameterErrors.nestedContainer(forKey: key, codingPath: codingPath))
        return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoding.fail(ParameterErrors.nestedContainer(forKey: key, codingPath: codingPath))
        return DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    /// A superclass encodes into the same statement.
    package mutating func superEncoder() -> any Encoder { encoding }

    package mutating func superEncoder(forKey key: Key) -> any Encoder { encoding }
}

/// Encodes one value into one parameter through the binder: what a raw-value enum or a single-value wrapper encodes.
/// A value that asks for a keyed or unkeyed container is nested (`isNested`): the caller binds it whole.
final class SingleParameterEncoder<Binder: ParameterBinder>: Encoder, SingleValueEncodingContainer {
    let binder: Binder
    let index: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Whether the value asked for a container.
    private(set) var isNested = false
    /// Whether a value was bound.
    private(set) var didBind = false

    init(binder: Binder, index: Int, codingPath: [any CodingKey]) {
        self.binder = binder
        self.index = index
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        isNested = true
        return KeyedEncodingContainer(DiscardingKeyedContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        isNested = true
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Runs one bind, unless the value is nested.
    private func bound(_ bind: () throws -> Void) throws {
        guard !isNested else { return }
        try bind()
        didBind = true
    }

    func encodeNil() throws { try bound { try binder.bindNull(at: index) } }
    func encode(_ value: Bool) throws { try bound { try binder.bindBool(value, at: index) } }
    func encode(_ value: String) throws { try bound { try binder.bindString(value, at: index) } }
    func encode(_ value: Double) throws { try bound { try binder.bindDouble(value, at: index) } }
    func encode(_ value: Float) throws { try bound { try binder.bindFloat(value, at: index) } }
    func encode(_ value: Int) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: Int8) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: Int16) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: Int32) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: Int64) throws { try bound { try binder.bindInteger(value, at: index) } }
    func encode(_ value: UInt) throws { try bindAny(value) }
    func encode(_ value: UInt8) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: UInt16) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: UInt32) throws { try bound { try binder.bindInteger(Int64(value), at: index) } }
    func encode(_ value: UInt64) throws { try bindAny(value) }
    func encode<T: Encodable>(_ value: T) throws { try bindAny(value) }

    /// Binds a value of any type: the backend's, or the single value it encodes, or nested.
    private func bindAny<T: Encodable>(_ value: T) throws {
        try bound {
            try binder.bindValue(value, at: index) { index in
                try Self.bind(value, binder: binder, at: index, codingPath: codingPath, userInfo: userInfo)
            }
        }
    }

    /// Binds `value` at `index` as the single value it encodes (a raw-value enum, a wrapper), or whole through the
    /// binder's `bindNested` when it asks for a container; an error when it encodes nothing.
    static func bind<T: Encodable>(
        _ value: T, binder: Binder, at index: Int, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]
    ) throws {
        let single = SingleParameterEncoder(binder: binder, index: index, codingPath: codingPath)
        single.userInfo = userInfo
        try value.encode(to: single)
        if single.isNested {
            try binder.bindNested(value, at: index)
        } else if !single.didBind {
            throw ParameterErrors.noValue(value, of: T.self, codingPath: codingPath)
        }
    }
}
