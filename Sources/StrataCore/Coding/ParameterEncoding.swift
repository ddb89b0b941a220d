import Foundation

/// One statement's parameters as StrataCore's one parameter encoder binds them, over a backend's
/// ``ParameterBinder``: which key binds which parameter, what is bound so far, and the errors (see
/// ``ParameterBinder``). ``ParameterEncoding`` is the `Encoder` a value's `encode(to:)` sees over it.
///
/// One is made per statement and encoded value. A backend that runs the same statement again may keep one, through
/// its ``ParameterEncoding``, and run pass after pass over it (``begin(forRecord:)``, then
/// ``ParameterEncoding/encodeTopLevel(_:shape:)``): a pass reuses the keyed container and the record of bound
/// parameters of the one before.
///
/// A **record pass** (`forRecord`) writes a model whose SQL follows the keys it encodes: the keys the statement has
/// no parameter for are noted in ``skippedKeys`` rather than skipped silently, and the parameters no key bound are
/// bound to NULL and noted in ``unboundParameters`` rather than thrown, so that the caller can run the statement for
/// exactly the model's keys.
@usableFromInline
package final class ParameterPass<Binder: ParameterBinder> {
    @usableFromInline package let binder: Binder
    package let userInfo: [CodingUserInfoKey: Any]
    /// The statement's SQL for errors, when the backend has it.
    @usableFromInline package let sql: String?

    // One encoding belongs to one statement, used by one task at a time, and none of these properties is reached
    // re-entrantly: their dynamic exclusivity checks would cost a tenth of an insert, so they are turned off.

    /// Per parameter index (1 through the parameter count), the pass that last bound it: starting a pass clears the
    /// record in O(1). A buffer this object owns, not an array, so that a bind does not check that it is unique.
    @usableFromInline package let boundStamps: UnsafeMutableBufferPointer<UInt32>
    @usableFromInline @exclusivity(unchecked) package var stamp: UInt32 = 1
    /// Whether binds are recorded for the check that every parameter was bound: not when the caller knows the pass
    /// binds them all (a generated record whose keys name every parameter).
    @usableFromInline @exclusivity(unchecked) package var tracksBound = true
    /// The first failure inside a container method that cannot throw; reported when the pass ends.
    @usableFromInline @exclusivity(unchecked) package var deferredError: (any Error)?
    /// Whether this pass is a record's (see the type's documentation).
    @exclusivity(unchecked) private var recordPass = false
    @exclusivity(unchecked) private var skipped: [String] = []
    @exclusivity(unchecked) private var unbound: [Int] = []
    @exclusivity(unchecked) private var encoding = false

    // The four above are read through calls: another module that reads a stored property of this class checks its
    // exclusivity itself, which costs more than the call (a record's insert reads three).

    /// The keys a record's pass encoded that the statement has no parameter for, in order.
    @inline(never)
    package var skippedKeys: [String] { skipped }
    /// The parameters a record's pass left unbound (bound to NULL), whose keys the value did not encode.
    @inline(never)
    package var unboundParameters: [Int] { unbound }
    /// Whether the last pass bound exactly the statement's parameters: no key skipped, none left unbound (one call
    /// for the common case, where reading both lists costs two).
    @inline(never)
    package var boundExactly: Bool { skipped.isEmpty && unbound.isEmpty }
    /// Whether a pass is running: a value that encodes another into the same statement from its `encode(to:)` needs
    /// an encoding of its own.
    @inline(never)
    package var isEncoding: Bool { encoding }

    /// Skips the check that every parameter was bound, for this pass: the caller binds them all (a generated record
    /// whose keys name every parameter of the statement).
    @inline(never)
    package func skipBoundCheck() {
        tracksBound = false
    }

    /// Notes `key`, which the statement has no parameter for, when this is a record's pass: the record then runs the
    /// statement for exactly its keys. Nothing otherwise: the key is skipped.
    @usableFromInline
    package func skip(_ key: String) {
        if recordPass { skipped.append(key) }
    }

    package init(binder: Binder, sql: String? = nil, userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.binder = binder
        self.sql = sql
        self.userInfo = userInfo
        boundStamps = .allocate(capacity: max(binder.parameterCount, 0) + 1)
        boundStamps.initialize(repeating: 0)
    }

    deinit {
        boundStamps.deallocate()
    }

    /// Starts a pass: nothing is bound yet.
    package func begin(forRecord: Bool = false) {
        stamp &+= 1
        if stamp == 0 {
            // After 4 billion passes the stamps wrap: start clean so that no old stamp matches.
            boundStamps.update(repeating: 0)
            stamp = 1
        }
        tracksBound = true
        deferredError = nil
        recordPass = forRecord
        if !skipped.isEmpty { skipped.removeAll() }
        if !unbound.isEmpty { unbound.removeAll() }
    }

    /// Binds keyed `value` through `body` in place of its `encode(to:)` (a generated record's writer), and ends the
    /// pass begun by ``begin(forRecord:)``.
    ///
    /// Inlined, so that `body` runs as code specialized for its record where the backend calls this.
    @inlinable @inline(__always)
    package func encodeKeyed<T>(_ value: T, _ body: (T) throws -> Void) throws {
        setEncoding(true)
        defer { setEncoding(false) }
        try body(value)
        try end(T.self)
    }

    @usableFromInline
    func setEncoding(_ encoding: Bool) {
        self.encoding = encoding
    }

    /// Encodes `value`, of the given shape, into the statement through `encoder` (one whose containers bind through
    /// this pass), and ends the pass.
    ///
    /// `encoder` is an existential made by the caller, which knows its type: made here, generic, it would take a call
    /// through the type's value witnesses.
    package func encodeTopLevel<T: Encodable>(
        _ value: T, shape: TopLevelParameters, through encoder: any Encoder
    ) throws {
        encoding = true
        defer { encoding = false }
        if shape == .list, let list = value as? any PositionalParameters {
            try bindPositionally(list.positionalValues, of: value)
        } else if shape == .single {
            guard binder.parameterCount == 1 else {
                throw ParameterErrors.singleValue(value, of: T.self, parameterCount: binder.parameterCount)
            }
            try bindOne(value, at: 1, key: nil)
        } else {
            try value.encode(to: encoder)
        }
        try end(T.self)
    }

    /// Ends the pass of a value of `type`: throws the first failure a container could not throw, then, for a
    /// record, binds NULL to the parameters no key bound and notes them; otherwise throws when one is left unbound.
    @usableFromInline
    func end(_ type: Any.Type) throws {
        if let deferredError { throw deferredError }
        guard tracksBound else { return }
        var unbound: [Int] = []
        for index in 1..<boundStamps.count where boundStamps[index] != stamp {
            unbound.append(index)
        }
        guard !unbound.isEmpty else { return }
        guard recordPass else {
            throw ParameterErrors.unbound(type, names: unbound.map(binder.parameterName(at:)), sql: sql)
        }
        // NULL, so that no value of an earlier pass is left bound.
        for index in unbound {
            try binder.bindNull(at: index)
        }
        self.unbound = unbound
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

    /// Binds `value` of a type the backend does not bind itself: as the single value it encodes (a raw-value enum, a
    /// wrapper), or nested when it asks for a container.
    @usableFromInline
    package func bindSingleValue<T: Encodable>(_ value: T, at index: Int, key: (any CodingKey)?) throws {
        try SingleParameterEncoder.bind(
            value, binder: binder, at: index, codingPath: key.map { [$0] } ?? [], userInfo: userInfo)
    }
}

extension ParameterPass {
    // MARK: Binding

    /// Binds the parameters the key `name` names through `bind`, each recorded as bound; nothing when the statement
    /// has none (a record's pass notes the key).
    ///
    /// `key` (the coding key, for the coding path) and `value` are only evaluated for an error. Nothing here is
    /// generic over the key's type, so that a backend's container runs it as code specialized for its binder.
    @inlinable @inline(__always)
    package func bind(
        named name: String, key: @autoclosure () -> any CodingKey, value: @autoclosure () -> Any,
        _ bind: (Int) throws -> Void
    ) throws {
        guard var index = binder.parameterIndex(forKey: name) else {
            skip(name)
            return
        }
        while true {
            try self.bind(at: index, key: key(), value: value(), bind)
            guard let next = binder.nextParameterIndex(after: index, forKey: name) else { return }
            index = next
        }
    }

    // MARK: A keyed container's calls, by key name

    /// `encodeNil(forKey:)` of a keyed container: NULL.
    @inlinable @inline(__always)
    package func encodeNil(named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: DatabaseValue.null) { try binder.bindNull(at: $0) }
    }

    @inlinable @inline(__always)
    package func encode(_ value: Bool, named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: value) { try binder.bindBool(value, at: $0) }
    }

    @inlinable @inline(__always)
    package func encode(_ value: String, named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: value) { try binder.bindString(value, at: $0) }
    }

    @inlinable @inline(__always)
    package func encode(_ value: Double, named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: value) { try binder.bindDouble(value, at: $0) }
    }

    @inlinable @inline(__always)
    package func encode(_ value: Float, named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: value) { try binder.bindFloat(value, at: $0) }
    }

    /// Every signed width, and the unsigned ones up to `UInt32`.
    @inlinable @inline(__always)
    package func encodeInteger(_ value: Int64, named name: String, key: @autoclosure () -> any CodingKey) throws {
        let binder = self.binder
        try bind(named: name, key: key(), value: value) { try binder.bindInteger(value, at: $0) }
    }

    /// Any other value: the backend's own types, or the single value it encodes, or nested.
    @inlinable @inline(__always)
    package func encode<T: Encodable>(_ value: T, named name: String, key: @autoclosure () -> any CodingKey) throws {
        try bind(named: name, key: key(), value: value) { index in
            try binder.bindValue(value, at: index) { try bindSingleValue(value, at: $0, key: key()) }
        }
    }

    /// `value`, or NULL for nil: the standard library's defaults skip a nil key, which would leave its parameter
    /// unbound.
    @inlinable @inline(__always)
    package func encodeIfPresent<T: Encodable>(
        _ value: T?, named name: String, key: @autoclosure () -> any CodingKey
    ) throws {
        if let value {
            try encode(value, named: name, key: key())
        } else {
            try encodeNil(named: name, key: key())
        }
    }

    /// Binds the parameter at `index` through `bind` and records it as bound; a ``DatabaseError`` of the bind becomes
    /// an `EncodingError` naming the parameter.
    @inlinable @inline(__always)
    package func bind(
        at index: Int, key: @autoclosure () -> (any CodingKey)?, value: @autoclosure () -> Any,
        _ bind: (Int) throws -> Void
    ) throws {
        do {
            try bind(index)
        } catch {
            throw ParameterErrors.binding(
                error, value: value(), parameter: binder.parameterName(at: index),
                codingPath: key().map { [$0] } ?? [])
        }
        if tracksBound && index > 0 && index < boundStamps.count { boundStamps[index] = stamp }
    }

}

/// The `Encoder` a value's `encode(to:)` sees for one statement's parameters (its ``ParameterPass``): StrataCore's
/// one parameter encoder, which every backend uses.
package final class ParameterEncoding<Binder: ParameterBinder>: Encoder {
    @usableFromInline package let pass: ParameterPass<Binder>
    /// The keyed container of the last pass, reused by the next. It refers to the pass, not to this encoder, so
    /// that keeping it makes no reference cycle.
    @exclusivity(unchecked) private var containers = ContainerCache()

    package init(binder: Binder, sql: String? = nil, userInfo: [CodingUserInfoKey: Any] = [:]) {
        pass = ParameterPass(binder: binder, sql: sql, userInfo: userInfo)
    }

    package init(pass: ParameterPass<Binder>) {
        self.pass = pass
    }

    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { pass.userInfo }

    /// Binds every parameter of the statement from `value`: one pass.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value, a value cannot be bound, or `value` has
    ///   a shape that cannot bind the statement (a list of another length, a single value for several parameters).
    package func encode<T: Encodable>(_ value: T) throws {
        pass.begin()
        try pass.encodeTopLevel(value, shape: TopLevelParameters(T.self), through: self)
    }

    /// Encodes `value`, of the given shape (``TopLevelParameters``, which a backend may cache per type), into the
    /// statement, and ends the pass begun by ``ParameterPass/begin(forRecord:)``.
    package func encodeTopLevel<T: Encodable>(_ value: T, shape: TopLevelParameters) throws {
        try pass.encodeTopLevel(value, shape: shape, through: self)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        containers.container(keyedBy: Key.self) {
            KeyedEncodingContainer(ParameterKeyedContainer<Key, Binder>(pass: pass))
        }
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        pass.fail(ParameterErrors.topLevelList(codingPath: codingPath))
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        pass.fail(ParameterErrors.topLevelSingleValue(codingPath: codingPath))
        return ColumnEncoder(strategies: ValueStrategies(), codingPath: codingPath, userInfo: userInfo)
    }
}

/// The keyed container of ``ParameterEncoding``: each key binds the parameters of its name, if any.
package struct ParameterKeyedContainer<Key: CodingKey, Binder: ParameterBinder>: KeyedEncodingContainerProtocol {
    @usableFromInline let pass: ParameterPass<Binder>

    @inlinable
    package init(pass: ParameterPass<Binder>) {
        self.pass = pass
    }

    package var codingPath: [any CodingKey] { [] }

    @inlinable
    package mutating func encodeNil(forKey key: Key) throws { try pass.encodeNil(named: key.stringValue, key: key) }

    // MARK: Scalars

    @inlinable
    package mutating func encode(_ value: Bool, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: String, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Double, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Float, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Int64, forKey key: Key) throws {
        try pass.encodeInteger(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Int, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Int8, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Int16, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: Int32, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }

    // MARK: Optionals: nil binds NULL

    @inlinable
    package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    @inlinable
    package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }

    // MARK: Nesting

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        pass.fail(ParameterErrors.nestedContainer(forKey: key, codingPath: codingPath))
        return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        pass.fail(ParameterErrors.nestedContainer(forKey: key, codingPath: codingPath))
        return DiscardingUnkeyedContainer(codingPath: codingPath + [key])
    }

    /// A superclass encodes into the same statement.
    package mutating func superEncoder() -> any Encoder { ParameterEncoding(pass: pass) }

    package mutating func superEncoder(forKey key: Key) -> any Encoder { ParameterEncoding(pass: pass) }
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
