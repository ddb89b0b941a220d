import Foundation

extension StatementEncoder {
    /// Binds the parameters of `statement` from `value`.
    ///
    /// The statement is reset first, so rows read from it before are stale.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value or a value cannot be
    ///   stored; `DatabaseError` when the database is closed.
    public func encode<T: Encodable>(_ value: T, to statement: Statement) throws {
        try encodePass(value, to: statement)
    }

    /// One encode pass; records pass `watching` (the primary key's parameter), `forRecord`, and the
    /// encoding of their previous pass over the same statement to reuse.
    ///
    /// `bind` is a generated record's writer called from code specialized for it (see `insert(_:)` of a
    /// `GeneratedRecord`), which binds the value where it is instead of copying it in generic code.
    @discardableResult
    func encodePass<T: Encodable>(
        _ value: T, to statement: Statement, watching watchedParameter: Int32 = 0, forRecord: Bool = false,
        reusing kept: StatementEncoding? = nil, bind: GeneratedBinding<T>? = nil
    ) throws -> StatementEncoding {
        _ = try statement.connection.openHandle(sql: statement.sql)
        statement.prepareForBinding(clearing: !forRecord)
        let strategies = statement.strategies.overridden(by: storageOverrides)
        let mapping = keyEncodingStrategy.mapping
        let encoding: StatementEncoding
        if let kept, userInfo.isEmpty, kept.canEncode(for: statement, mapping: mapping, strategies: strategies) {
            encoding = kept
        } else {
            encoding = StatementEncoding(
                writer: ParameterWriter(
                    statement: statement, mapping: mapping, strategies: strategies, userInfo: userInfo,
                    usesGeneratedCode: usesGeneratedCode))
        }
        try encoding.encodeTopLevel(value, watching: watchedParameter, forRecord: forRecord, bind: bind)
        return encoding
    }
}

/// The `Encoder` a value's `encode(to:)` sees for one statement. One is made per encode pass, or
/// kept by a record type's cached statement and reused pass after pass together with the keyed
/// container it made for the first.
final class StatementEncoding: Encoder {
    let writer: ParameterWriter
    @exclusivity(unchecked) private var containers = ContainerCache()
    /// Whether a pass is running: a value that encodes another into the same statement from its
    /// `encode(to:)` gets an encoding of its own instead of this one.
    @exclusivity(unchecked) private var isEncoding = false

    init(writer: ParameterWriter) {
        self.writer = writer
    }

    var codingPath: [any CodingKey] { writer.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

    /// Whether the pass bound NULL to the watched parameter (a record's nil primary key).
    var watchedWasNull: Bool { writer.watchedWasNull }
    /// The keys a record's value encoded that its statement has no parameter for.
    var skippedKeys: [String] { writer.skippedKeys }
    /// The parameters a record's pass left unbound, whose keys the value did not encode.
    var unboundParameters: [Int32] { writer.unboundParameters }

    /// Whether this encoding can run the next pass over `statement` with these settings.
    func canEncode(for statement: Statement, mapping: KeyMapping, strategies: ValueStrategies) -> Bool {
        !isEncoding && writer.statement === statement && writer.strategies == strategies
            && writer.mapping.cacheTag != nil && writer.mapping.cacheTag == mapping.cacheTag
            && writer.userInfo.isEmpty
    }

    func encodeTopLevel<T: Encodable>(
        _ value: T, watching watchedParameter: Int32, forRecord: Bool, bind: GeneratedBinding<T>? = nil
    ) throws {
        isEncoding = true
        defer { isEncoding = false }
        writer.begin(watching: watchedParameter, forRecord: forRecord)
        try writer.encodeTopLevel(value, through: self, bind: bind)
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        containers.container { KeyedEncodingContainer(StatementKeyedContainer<Key>(writer: writer)) }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.fail(ParameterErrors.topLevelList(codingPath: codingPath))
        return DiscardingUnkeyedContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        writer.fail(ParameterErrors.topLevelSingleValue(codingPath: codingPath))
        return ColumnEncoder(strategies: writer.strategies, codingPath: codingPath, userInfo: userInfo)
    }
}

/// What the containers of one statement's parameters bind through: the statement, the
/// key-to-parameter cache, the strategies and the state of the current pass.
final class ParameterWriter {
    let statement: Statement
    let cache: CodingCache
    let mapping: KeyMapping
    let strategies: ValueStrategies
    let userInfo: [CodingUserInfoKey: Any]
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    /// How many keys this pass has bound so far. Unchecked for exclusivity as in `CodingCache`.
    @exclusivity(unchecked) var position = 0
    /// The first failure inside a container method that cannot throw; reported when the pass ends.
    @exclusivity(unchecked) var deferredError: (any Error)?
    /// A parameter index to watch, 0 for none, and whether the pass bound NULL to it.
    @exclusivity(unchecked) var watchedParameter: Int32 = 0
    @exclusivity(unchecked) var watchedWasNull = false
    /// Records leave unbound parameters NULL (a custom `encode(to:)` may omit nil values) and
    /// collect the keys that found no parameter, so that their SQL can grow to include them.
    @exclusivity(unchecked) var forRecord = false
    @exclusivity(unchecked) var skippedKeys: [String] = []
    /// The parameters a record's pass left unbound: the value did not encode their keys.
    @exclusivity(unchecked) var unboundParameters: [Int32] = []
    /// Whether binds are recorded for the check that every parameter was bound: not in a pass of a generated record
    /// whose keys name every parameter of the statement, which cannot leave one unbound.
    @exclusivity(unchecked) var tracksBound = true
    /// Records note the parameters given a Decimal with more digits than a REAL keeps, whose column they check.
    @exclusivity(unchecked) var preciseDecimalParameters: [Int32] = []

    /// Whether a `GeneratedRecord` is bound by its generated code (see ``StatementEncoder``).
    let usesGeneratedCode: Bool

    init(
        statement: Statement, mapping: KeyMapping, strategies: ValueStrategies,
        userInfo: [CodingUserInfoKey: any Sendable], usesGeneratedCode: Bool = true
    ) {
        self.statement = statement
        self.cache = statement.coding
        self.mapping = mapping
        self.strategies = strategies
        self.userInfo = userInfo
        self.usesGeneratedCode = usesGeneratedCode
    }

    /// Starts a pass.
    func begin(watching watchedParameter: Int32, forRecord: Bool) {
        tracksBound = true
        position = 0
        deferredError = nil
        self.watchedParameter = watchedParameter
        watchedWasNull = false
        self.forRecord = forRecord
        if !skippedKeys.isEmpty { skippedKeys.removeAll() }
        if !unboundParameters.isEmpty { unboundParameters.removeAll() }
        if !preciseDecimalParameters.isEmpty { preciseDecimalParameters.removeAll() }
    }

    func encodeTopLevel<T: Encodable>(
        _ value: T, through encoder: StatementEncoding, bind generated: GeneratedBinding<T>? = nil
    ) throws {
        cache.beginEncoding(mapping: mapping)
        let kind = cache.topLevelKind(T.self)
        if kind == .list, let list = value as? any PositionalParameters {
            try bindPositionally(list.positionalValues, of: value)
        } else if kind == .single, let convertible = value as? any DatabaseValueConvertible {
            // A single value binds the statement's only parameter.
            guard statement.parameterCount == 1 else {
                throw ParameterErrors.singleValue(value, of: T.self, parameterCount: statement.parameterCount)
            }
            try bind(convertible, to: ParameterTarget(position: -1, index: 1, hasOthers: false), key: nil)
        } else if kind == .generated, usesGeneratedCode, let record = cache.lastTopLevelRecord {
            try encodeGenerated(record, value, bind: generated)
        } else {
            try value.encode(to: encoder)
        }
        if forRecord { return try endRecordPass() }
        if let deferredError { throw deferredError }
        let unbound = tracksBound ? cache.unboundParameters() : []
        guard unbound.isEmpty else {
            let names = unbound.map { index in
                statement.parameterIndexes().first { $0.value.contains(index) }.map { ":" + $0.key } ?? "?\(index)"
            }
            throw ParameterErrors.unbound(value, of: T.self, names: names, sql: statement.sql)
        }
    }

    /// Binds `values` to the parameters in order: `parameters: [2, "x"]` binds `?1` and `?2`.
    private func bindPositionally(_ values: [any Encodable], of list: some Encodable) throws {
        guard values.count == statement.parameterCount else {
            throw ParameterErrors.listCount(
                list, count: values.count, parameterCount: statement.parameterCount, sql: statement.sql)
        }
        for (offset, element) in values.enumerated() {
            let key = PositionKey(intValue: offset)
            guard let convertible = element as? any DatabaseValueConvertible else {
                throw ParameterErrors.listElement(element, at: offset, key: key)
            }
            try bind(
                convertible, to: ParameterTarget(position: -1, index: Int32(offset + 1), hasOthers: false), key: key)
        }
    }

    func fail(_ error: any Error) {
        if deferredError == nil { deferredError = error }
    }

    // MARK: Binding

    /// The parameter `key` binds, nil when the statement has none (a record notes the key).
    @inline(__always)
    func target(for key: some CodingKey) -> ParameterTarget? {
        let position = self.position
        self.position = position + 1
        let name = key.stringValue
        let target =
            cache.cachedParameter(for: name, at: position)
            ?? cache.lookUpParameter(for: name, at: position, mapping: mapping, statement: statement)
        if target.index == 0 {
            if forRecord { skippedKeys.append(name) }
            return nil
        }
        return target
    }

    /// Ends a record's pass: throws the first failure a container could not throw, and binds NULL to the parameters
    /// no key bound (a custom `encode(to:)` may leave out nil values) and notes them: the record then runs its
    /// statement for exactly the keys the value encoded (see `Database.encodeRecord`).
    func endRecordPass() throws {
        if let deferredError { throw deferredError }
        guard tracksBound else { return }
        let unbound = cache.unboundParameters()
        guard !unbound.isEmpty else { return }
        // NULL, so that no value of an earlier pass is left bound; a left-out primary key is a nil key.
        for index in unbound {
            try statement.bindNull(at: index)
            if index == watchedParameter { watchedWasNull = true }
        }
        unboundParameters = unbound
    }

    /// Binds `target` through `bind` (and any other parameter of the same name) and records it as bound.
    ///
    /// `key` and `value` are only evaluated for an error message: the common path boxes neither.
    @inline(__always)
    func bind(
        _ target: ParameterTarget, key: @autoclosure () -> (any CodingKey)?, value: @autoclosure () -> Any,
        isNull: Bool = false, _ bind: (Int32) throws -> Void
    ) throws {
        try bindOne(target.index, key: key(), value: value(), isNull: isNull, bind)
        guard target.hasOthers else { return }
        for index in cache.otherParameters(at: target.position) {
            try bindOne(index, key: key(), value: value(), isNull: isNull, bind)
        }
    }

    @inline(__always)
    private func bindOne(
        _ index: Int32, key: @autoclosure () -> (any CodingKey)?, value: @autoclosure () -> Any, isNull: Bool,
        _ bind: (Int32) throws -> Void
    ) throws {
        do {
            try bind(index)
        } catch {
            throw encodingError(error, value: value(), key: key())
        }
        if tracksBound { cache.markBound(index) }
        if isNull && index == watchedParameter { watchedWasNull = true }
    }

    /// Binds a ``DatabaseValueConvertible`` through its stored value.
    func bind(_ value: any DatabaseValueConvertible, to target: ParameterTarget, key: (any CodingKey)?) throws {
        let stored: DatabaseValue
        do {
            stored = try value.storedValue(using: strategies)
        } catch {
            throw encodingError(error, value: value, key: key)
        }
        if forRecord, let decimal = value as? Decimal, decimal.hasMoreDigitsThanAREAL {
            preciseDecimalParameters.append(target.index)
        }
        try bind(target, key: key, value: value, isNull: stored.isNull) { try statement.bindStored(stored, at: $0) }
    }

    /// Binds NULL to `target`.
    @inline(__always)
    func bindNull(_ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        try bind(target, key: key(), value: DatabaseValue.null, isNull: true) { try statement.bindNull(at: $0) }
    }

    @inline(__always)
    func bindInteger(_ value: Int64, _ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        try bind(target, key: key(), value: value) { try statement.bindInteger(value, at: $0) }
    }

    @inline(__always)
    func bindReal(_ value: Double, _ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        try bind(target, key: key(), value: value) { try statement.bindReal(value, at: $0) }
    }

    @inline(__always)
    func bindText(_ value: String, _ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        try bind(target, key: key(), value: value) { try statement.bindText(value, at: $0) }
    }

    /// Binds a BLOB, as ``bindValue(_:_:key:)`` binds `Data`, without the generic layers that copy it.
    @inline(__always)
    func bindBlob(_ value: Data, _ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        try bind(target, key: key(), value: value) { try statement.bindBlob(value, at: $0) }
    }

    /// Binds any `Encodable` to `target`: the common types straight to the C API, others through their
    /// ``DatabaseValueConvertible`` conformance, as a single value, or as nested JSON or property list.
    func bindValue<T: Encodable>(_ value: T, _ target: ParameterTarget, key: @autoclosure () -> any CodingKey) throws {
        if let common = CommonType(T.self) {
            return try bind(target, key: key(), value: value) {
                try statement.bind(common, value, at: $0, strategies: strategies)
            }
        }
        if let convertible = value as? any DatabaseValueConvertible {
            return try bind(convertible, to: target, key: key())
        }
        let column = ColumnEncoder(strategies: strategies, codingPath: codingPath + [key()], userInfo: userInfo)
        var stored: DatabaseValue
        do {
            try value.encode(to: column)
            if let error = column.failure { throw error }
            stored = column.result ?? .null
            if column.isNested {
                stored = try NestedValueCoding.encode(value, strategy: strategies.array)
            }
        } catch {
            throw encodingError(error, value: value, key: key())
        }
        try bind(target, key: key(), value: value, isNull: stored.isNull) { try statement.bindStored(stored, at: $0) }
    }

    func encodingError(_ error: any Error, value: Any, key: (any CodingKey)?) -> any Error {
        ParameterErrors.binding(
            error, value: value, parameter: key.map { ":" + mapping.name(for: $0.stringValue) },
            codingPath: key.map { codingPath + [$0] } ?? codingPath)
    }
}
