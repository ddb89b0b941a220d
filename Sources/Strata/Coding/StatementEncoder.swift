import Foundation

extension StatementEncoder {
    /// An encoder with the default settings, made once: records and parameter sets encode through it, where making
    /// one per write would build its empty `userInfo` each time.
    static let standard = StatementEncoder()

    /// Binds the parameters of `statement` from `value`.
    ///
    /// The statement is reset first, so rows read from it before are stale.
    ///
    /// - Throws: `EncodingError` when a parameter is left without a value or a value cannot be
    ///   stored; `DatabaseError` when the database is closed.
    public func encode<T: Encodable>(_ value: T, to statement: Statement) throws {
        try encodePass(value, to: statement)
    }

    /// One pass of StrataCore's parameter encoder over `statement`; records pass `watching` (the primary key's
    /// parameter), `forRecord` (see ``ParameterPass``), and the encoding of their previous pass over the same
    /// statement to reuse.
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
                binder: StatementBinder(statement: statement, mapping: mapping, strategies: strategies),
                sql: statement.sql, userInfo: userInfo)
        }
        try encoding.encodePass(
            value, watching: watchedParameter, forRecord: forRecord, generated: usesGeneratedCode, bind: bind)
        return encoding
    }
}

/// The `Encoder` a value's `encode(to:)` sees for a SQLite statement: a pass of StrataCore's parameter encoder
/// (``ParameterPass``), kept by a record type's cached statement and reused pass after pass with the keyed container
/// it made for the first.
///
/// It and its keyed container are declared here, around StrataCore's, so that the container's binds run as code
/// specialized for ``StatementBinder``: a conformance declared in StrataCore runs its generic code, a quarter
/// slower per insert.
final class StatementEncoding: Encoder {
    let pass: ParameterPass<StatementBinder>
    /// The pass's binder, held here too so that a pass reads it from this object's own storage.
    let binder: StatementBinder
    /// Whether it was made with `userInfo`, which a pass for an encoder with none must not see.
    private let hasUserInfo: Bool
    @exclusivity(unchecked) private var containers = ContainerCache()

    init(binder: StatementBinder, sql: String?, userInfo: [CodingUserInfoKey: Any] = [:]) {
        pass = ParameterPass(binder: binder, sql: sql, userInfo: userInfo)
        self.binder = binder
        hasUserInfo = !userInfo.isEmpty
    }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { pass.userInfo }

    /// Whether this encoding can run the next pass over `statement` with these settings, and an encoder with no
    /// `userInfo`: not while its own pass runs (a value that encodes another into the same statement).
    func canEncode(for statement: Statement, mapping: KeyMapping, strategies: ValueStrategies) -> Bool {
        !hasUserInfo && !pass.isEncoding
            && binder.canEncode(for: statement, mapping: mapping, strategies: strategies)
    }

    /// One pass: binds `value`, through its generated writer when `generated` allows it and it has one.
    func encodePass<T: Encodable>(
        _ value: T, watching watchedParameter: Int32, forRecord: Bool, generated: Bool, bind: GeneratedBinding<T>?
    ) throws {
        pass.begin(forRecord: forRecord)
        binder.begin(watching: watchedParameter, forRecord: forRecord)
        let kind = binder.cache.topLevelKind(T.self)
        if kind == .generated, generated, let record = binder.cache.lastTopLevelRecord {
            try pass.encodeKeyed(value) { try pass.encodeGenerated(record, $0, bind: bind) }
        } else {
            try pass.encodeTopLevel(value, shape: kind.shape, through: self as any Encoder)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        containers.container(keyedBy: Key.self) {
            KeyedEncodingContainer(StatementKeyedContainer<Key>(pass: pass))
        }
    }

    // A top-level list or single value is refused as StrataCore's encoder refuses it.
    func unkeyedContainer() -> any UnkeyedEncodingContainer { ParameterEncoding(pass: pass).unkeyedContainer() }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ParameterEncoding(pass: pass).singleValueContainer()
    }
}

/// The keyed container of ``StatementEncoding``: each call passed on to StrataCore's pass by the key's name, as
/// StrataCore's own keyed container passes it on. It holds the pass itself (not StrataCore's container), so that no
/// call needs the metadata of a type generic over the key.
struct StatementKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let pass: ParameterPass<StatementBinder>

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try pass.encodeNil(named: key.stringValue, key: key) }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try pass.encodeInteger(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try pass.encodeInteger(Int64(value), named: key.stringValue, key: key)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try pass.encode(value, named: key.stringValue, key: key)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try pass.encodeIfPresent(value, named: key.stringValue, key: key)
    }

    // Nesting, refused, and a superclass's encoder, as StrataCore's container has them.
    private var base: ParameterKeyedContainer<Key, StatementBinder> { ParameterKeyedContainer(pass: pass) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        var base = self.base
        return base.nestedContainer(keyedBy: keyType, forKey: key)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        var base = self.base
        return base.nestedUnkeyedContainer(forKey: key)
    }

    mutating func superEncoder() -> any Encoder { ParameterEncoding(pass: pass) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { ParameterEncoding(pass: pass) }
}

/// SQLite's ``ParameterBinder``: binds the parameters of one statement through the C API, with the statement's
/// storage strategies, each key finding its parameter through the statement's ``CodingCache``.
final class StatementBinder: ParameterBinder {
    let statement: Statement
    let cache: CodingCache
    let mapping: KeyMapping
    let strategies: ValueStrategies

    // Unchecked for exclusivity as in `CodingCache`.
    /// How many keys this pass has asked for so far.
    @exclusivity(unchecked) private var position = 0
    /// The parameter of the last key asked for: its others of the same name follow it.
    @exclusivity(unchecked) private var lastTarget = ParameterTarget(position: -1, index: 0, hasOthers: false)
    /// A parameter index to watch, 0 for none, and whether the pass bound NULL to it.
    @exclusivity(unchecked) private var watchedParameter: Int32 = 0
    @exclusivity(unchecked) private(set) var watchedWasNull = false
    @exclusivity(unchecked) private var forRecord = false
    /// Records note the parameters given a Decimal with more digits than a REAL keeps, whose column they check.
    @exclusivity(unchecked) private(set) var preciseDecimalParameters: [Int32] = []

    init(statement: Statement, mapping: KeyMapping, strategies: ValueStrategies) {
        self.statement = statement
        self.cache = statement.coding
        self.mapping = mapping
        self.strategies = strategies
    }

    /// Whether this binder can bind the next pass over `statement` with these settings.
    func canEncode(for statement: Statement, mapping: KeyMapping, strategies: ValueStrategies) -> Bool {
        self.statement === statement && self.strategies == strategies
            && self.mapping.cacheTag != nil && self.mapping.cacheTag == mapping.cacheTag
    }

    /// Starts a pass.
    func begin(watching watchedParameter: Int32, forRecord: Bool) {
        position = 0
        self.watchedParameter = watchedParameter
        watchedWasNull = false
        self.forRecord = forRecord
        if !preciseDecimalParameters.isEmpty { preciseDecimalParameters.removeAll() }
        cache.beginEncoding(mapping: mapping)
    }

    var parameterCount: Int { statement.parameterCount }

    @inline(__always)
    func parameterIndex(forKey key: String) -> Int? {
        let position = self.position
        self.position = position + 1
        let target =
            cache.cachedParameter(for: key, at: position)
            ?? cache.lookUpParameter(for: key, at: position, mapping: mapping, statement: statement)
        lastTarget = target
        return target.index == 0 ? nil : Int(target.index)
    }

    @inline(__always)
    func nextParameterIndex(after index: Int, forKey key: String) -> Int? {
        guard lastTarget.hasOthers else { return nil }
        return cache.otherParameters(at: lastTarget.position).first { Int($0) > index }.map(Int.init)
    }

    func parameterName(at index: Int) -> String {
        statement.parameterIndexes().first { $0.value.contains(Int32(truncatingIfNeeded: index)) }.map { ":" + $0.key }
            ?? "?\(index)"
    }

    // MARK: Binds

    @inline(__always)
    func bindNull(at index: Int) throws {
        let index = Int32(truncatingIfNeeded: index)
        try statement.bindNull(at: index)
        if index == watchedParameter { watchedWasNull = true }
    }

    @inline(__always)
    func bindBool(_ value: Bool, at index: Int) throws {
        try statement.bindInteger(value ? 1 : 0, at: Int32(truncatingIfNeeded: index))
    }

    @inline(__always)
    func bindInteger(_ value: Int64, at index: Int) throws {
        try statement.bindInteger(value, at: Int32(truncatingIfNeeded: index))
    }

    @inline(__always)
    func bindDouble(_ value: Double, at index: Int) throws {
        try statement.bindReal(value, at: Int32(truncatingIfNeeded: index))
    }

    @inline(__always)
    func bindFloat(_ value: Float, at index: Int) throws {
        try statement.bindReal(Double(value), at: Int32(truncatingIfNeeded: index))
    }

    @inline(__always)
    func bindString(_ value: String, at index: Int) throws {
        try statement.bindText(value, at: Int32(truncatingIfNeeded: index))
    }

    /// Binds a BLOB, as ``bindValue(_:at:otherwise:)`` binds `Data`, without the generic layers that copy it.
    @inline(__always)
    func bindBlob(_ value: Data, at index: Int) throws {
        try statement.bindBlob(value, at: Int32(truncatingIfNeeded: index))
    }

    /// The common types straight to the C API, others through their ``DatabaseValueConvertible`` conformance with
    /// the statement's strategies, any other type through `otherwise`.
    func bindValue<T: Encodable>(_ value: T, at index: Int, otherwise: (Int) throws -> Void) throws {
        if let common = CommonType(T.self) {
            return try statement.bind(common, value, at: Int32(truncatingIfNeeded: index), strategies: strategies)
        }
        guard let convertible = value as? any DatabaseValueConvertible else { return try otherwise(index) }
        let stored = try convertible.storedValue(using: strategies)
        if forRecord, let decimal = value as? Decimal, decimal.hasMoreDigitsThanAREAL {
            preciseDecimalParameters.append(Int32(truncatingIfNeeded: index))
        }
        try bindStored(stored, at: index)
    }

    /// JSON TEXT, or a binary property list under ``ArrayStrategy/bplist``.
    func bindNested<T: Encodable>(_ value: T, at index: Int) throws {
        try bindStored(try NestedValueCoding.encode(value, strategy: strategies.array), at: index)
    }

    private func bindStored(_ stored: DatabaseValue, at index: Int) throws {
        if stored.isNull { return try bindNull(at: index) }
        try statement.bindStored(stored, at: Int32(truncatingIfNeeded: index))
    }
}
