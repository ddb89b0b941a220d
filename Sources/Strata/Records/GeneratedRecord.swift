public import Foundation

/// SQLite's `RecordRow`: the statement's current row, the columns of the record's keys looked up once per
/// statement in its coding cache. The generic fetches of a generated record, inlined into the caller's module, call
/// its reads directly (an opaque `some RecordRow` would cost a metadata lookup per row).
@usableFromInline
struct StatementRecordRow: RecordRow {
    let context: RowContext<RowReader>

    @inline(__always)
    func column(ofRecordKey key: Int) -> Int? {
        let index = context.reader.cache.recordColumn(at: key)
        return index >= 0 ? Int(index) : nil
    }

    func recordKey(_ key: Int) -> String { context.reader.cache.recordColumnKey(at: key) }

    // The witnesses of `RecordRow`: what the keyed container reads for the key (`RowContext`'s reads), by the
    // column found for it. Written out in this concrete type so that they are specialized for its reader.
    public func decode(_ type: Bool.Type, _ key: Int) throws -> Bool {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeBool(at: $0) }
    }
    public func decode(_ type: String.Type, _ key: Int) throws -> String {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeString(at: $0) }
    }
    public func decode(_ type: Double.Type, _ key: Int) throws -> Double {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
    }
    public func decode(_ type: Float.Type, _ key: Int) throws -> Float {
        try context.read(at: column(key), key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
    }
    public func decode(_ type: Int.Type, _ key: Int) throws -> Int { try integer(key) }
    public func decode(_ type: Int8.Type, _ key: Int) throws -> Int8 { try integer(key) }
    public func decode(_ type: Int16.Type, _ key: Int) throws -> Int16 { try integer(key) }
    public func decode(_ type: Int32.Type, _ key: Int) throws -> Int32 { try integer(key) }
    public func decode(_ type: Int64.Type, _ key: Int) throws -> Int64 { try integer(key) }
    public func decode(_ type: UInt.Type, _ key: Int) throws -> UInt { try integer(key) }
    public func decode(_ type: UInt8.Type, _ key: Int) throws -> UInt8 { try integer(key) }
    public func decode(_ type: UInt16.Type, _ key: Int) throws -> UInt16 { try integer(key) }
    public func decode(_ type: UInt32.Type, _ key: Int) throws -> UInt32 { try integer(key) }
    public func decode(_ type: UInt64.Type, _ key: Int) throws -> UInt64 { try integer(key) }
    public func decode(_ type: Data.Type, _ key: Int) throws -> Data { try value(key) }
    public func decode(_ type: Date.Type, _ key: Int) throws -> Date { try value(key) }
    public func decode<T: Decodable>(_ type: T.Type, _ key: Int) throws -> T { try value(key) }

    public func decode(_ type: Bool?.Type, _ key: Int) throws -> Bool? {
        try present(key).map { try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeBool(at: $0) } }
    }
    public func decode(_ type: String?.Type, _ key: Int) throws -> String? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeString(at: $0) }
        }
    }
    public func decode(_ type: Double?.Type, _ key: Int) throws -> Double? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeDouble(at: $0) }
        }
    }
    public func decode(_ type: Float?.Type, _ key: Int) throws -> Float? {
        try present(key).map {
            try context.read(at: $0, key: codingKey(key)) { try context.reader.decodeFloat(at: $0) }
        }
    }
    public func decode(_ type: Int?.Type, _ key: Int) throws -> Int? { try integerIfPresent(key) }
    public func decode(_ type: Int8?.Type, _ key: Int) throws -> Int8? { try integerIfPresent(key) }
    public func decode(_ type: Int16?.Type, _ key: Int) throws -> Int16? { try integerIfPresent(key) }
    public func decode(_ type: Int32?.Type, _ key: Int) throws -> Int32? { try integerIfPresent(key) }
    public func decode(_ type: Int64?.Type, _ key: Int) throws -> Int64? { try integerIfPresent(key) }
    public func decode(_ type: UInt?.Type, _ key: Int) throws -> UInt? { try integerIfPresent(key) }
    public func decode(_ type: UInt8?.Type, _ key: Int) throws -> UInt8? { try integerIfPresent(key) }
    public func decode(_ type: UInt16?.Type, _ key: Int) throws -> UInt16? { try integerIfPresent(key) }
    public func decode(_ type: UInt32?.Type, _ key: Int) throws -> UInt32? { try integerIfPresent(key) }
    public func decode(_ type: UInt64?.Type, _ key: Int) throws -> UInt64? { try integerIfPresent(key) }
    public func decode(_ type: Data?.Type, _ key: Int) throws -> Data? { try valueIfPresent(key) }
    public func decode(_ type: Date?.Type, _ key: Int) throws -> Date? { try valueIfPresent(key) }
    public func decode<T: Decodable>(_ type: T?.Type, _ key: Int) throws -> T? { try valueIfPresent(key) }

    private func codingKey(_ key: Int) -> any CodingKey { RecordKey(recordKey(key)) }

    @inline(__always)
    private func column(_ key: Int) throws -> Int {
        try context.recordColumn(column(ofRecordKey: key), key: codingKey(key))
    }

    @inline(__always)
    private func present(_ key: Int) -> Int? { context.presentRecordColumn(column(ofRecordKey: key)) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ key: Int) throws -> I {
        try context.integer(I.self, at: column(key), key: codingKey(key))
    }

    @inline(__always)
    private func integerIfPresent<I: FixedWidthInteger>(_ key: Int) throws -> I? {
        try present(key).map { try context.integer(I.self, at: $0, key: codingKey(key)) }
    }

    @inline(__always)
    private func value<T: Decodable>(_ key: Int) throws -> T {
        try context.value(T.self, at: column(key), key: codingKey(key))
    }

    @inline(__always)
    private func valueIfPresent<T: Decodable>(_ key: Int) throws -> T? {
        try present(key).map { try context.value(T.self, at: $0, key: codingKey(key)) }
    }
}

/// The parameters a generated record binds, by the position of its key in ``GeneratedRecord/recordKeys``.
///
/// The parameters were looked up by name once for the statement; each bind is what StrataCore's keyed container
/// does for the same key and value: a key the statement has no parameter for is skipped (noted by a record's pass),
/// nil binds NULL, nested values bind JSON, errors name the parameter.
@usableFromInline
struct StatementRecordParameters: RecordParameters {
    let pass: ParameterPass<StatementBinder>
    /// Binds by index when the keys are the statement's parameters in order (`recordKeysInParameterOrder` of the
    /// coding cache, here `indexedKeys`): key `n` binds parameter `n + 1`, with no look-up or bookkeeping, and falls
    /// back to the pass's bind for what that one treats apart.
    let binder: IndexBinder?
    let indexedKeys: Int

    init(pass: ParameterPass<StatementBinder>) {
        self.pass = pass
        indexedKeys = pass.binder.cache.recordKeysInParameterOrder
        binder = indexedKeys > 0 ? IndexBinder(handle: pass.binder.statement.handle) : nil
    }

    private var statement: StatementBinder { pass.binder }

    /// The parameter index of the `key`-th key when it binds by index.
    @inline(__always)
    private func index(_ key: Int) -> Int32? {
        UInt(bitPattern: key) < UInt(indexedKeys) ? Int32(truncatingIfNeeded: key + 1) : nil
    }

    /// The parameter of the `key`-th key, nil when the statement has none (a record's pass notes the key).
    @inline(__always)
    private func target(_ key: Int) -> ParameterTarget? {
        let target = statement.cache.recordParameter(at: key)
        if target.index == 0 {
            pass.skip(statement.cache.recordParameterKey(at: key))
            return nil
        }
        return target
    }

    /// Binds the parameters of the `key`-th key through `bind`, each recorded as bound.
    ///
    /// `value` is only evaluated for an error message: the common path boxes nothing.
    @inline(__always)
    private func bind(
        _ key: Int, value: @autoclosure () -> Any, _ bind: (Int) throws -> Void
    ) throws {
        guard let target = target(key) else { return }
        try pass.bind(at: Int(target.index), key: codingKey(key), value: value(), bind)
        guard target.hasOthers else { return }
        for index in statement.cache.otherParameters(at: target.position) {
            try pass.bind(at: Int(index), key: codingKey(key), value: value(), bind)
        }
    }

    private func codingKey(_ key: Int) -> any CodingKey { RecordKey(statement.cache.recordParameterKey(at: key)) }

    public func encode(_ value: Bool, _ key: Int) throws { try integer(value ? 1 : 0, key) }
    public func encode(_ value: String, _ key: Int) throws {
        if let binder, let index = index(key), binder.bind(value, at: index) { return }
        try bind(key, value: value) { try statement.bindString(value, at: $0) }
    }
    public func encode(_ value: Double, _ key: Int) throws {
        if let binder, let index = index(key), binder.bind(value, at: index) { return }
        try bind(key, value: value) { try statement.bindDouble(value, at: $0) }
    }
    public func encode(_ value: Float, _ key: Int) throws { try encode(Double(value), key) }
    public func encode(_ value: Int, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: Int8, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: Int16, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: Int32, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: Int64, _ key: Int) throws { try integer(value, key) }
    public func encode(_ value: UInt8, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: UInt16, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: UInt32, _ key: Int) throws { try integer(Int64(value), key) }
    public func encode(_ value: UInt, _ key: Int) throws { try encodeValue(value, key) }
    public func encode(_ value: UInt64, _ key: Int) throws { try encodeValue(value, key) }
    // Data and Date bind as the generic path binds them, in code specialized for them.
    public func encode(_ value: Data, _ key: Int) throws {
        if let binder, let index = index(key), binder.bind(value, at: index) { return }
        try bind(key, value: value) { try statement.bindBlob(value, at: $0) }
    }
    public func encode(_ value: Date, _ key: Int) throws { try encodeValue(value, key) }
    public func encode<T: Encodable>(_ value: T, _ key: Int) throws { try encodeValue(value, key) }

    // MARK: Optionals: nil binds NULL

    public func encode(_ value: Bool?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: String?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Double?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Float?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Int?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Int8?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Int16?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Int32?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Int64?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: UInt?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: UInt8?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: UInt16?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: UInt32?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: UInt64?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Data?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode(_ value: Date?, _ key: Int) throws { try encodeIfPresent(value, key, encode) }
    public func encode<T: Encodable>(_ value: T?, _ key: Int) throws {
        try encodeIfPresent(value, key) { try encodeValue($0, $1) }
    }

    // MARK: Helpers

    @inline(__always)
    private func integer(_ value: Int64, _ key: Int) throws {
        if let binder, let index = index(key), binder.bind(value, at: index) { return }
        try bind(key, value: value) { try statement.bindInteger(value, at: $0) }
    }

    @inline(__always)
    private func encodeValue<T: Encodable>(_ value: T, _ key: Int) throws {
        let pass = self.pass
        try bind(key, value: value) { index in
            try pass.binder.bindValue(value, at: index) { try pass.bindSingleValue(value, at: $0, key: codingKey(key)) }
        }
    }

    @inline(__always)
    private func encodeIfPresent<T>(_ value: T?, _ key: Int, _ encode: (T, Int) throws -> Void) throws {
        if let value {
            try encode(value, key)
        } else {
            try bind(key, value: DatabaseValue.null) { try statement.bindNull(at: $0) }
        }
    }
}

// MARK: Wiring

extension StatementDecoding {
    /// The current row for `R`'s generated reader, in code specialized for `R`: its columns are looked up once per
    /// statement (and again if the statement's columns change).
    @usableFromInline
    func recordRow<R: GeneratedRecord>(_ type: R.Type) -> StatementRecordRow {
        reader.beginRow()
        return preparedRow(R.self)
    }

    /// Reads the current row through `R`'s generated reader, in generic code, after `decodeRow` began the row; `R` is
    /// `T`, found by casting `T.self`.
    func decodeGenerated<R: GeneratedRecord, T>(_ record: R.Type, as type: T.Type) throws -> T {
        unsafeBitCast(try R(row: preparedRow(R.self)), to: T.self)
    }

    /// The current row for `R`, the columns of its keys looked up if this statement has not looked them up for it.
    @inline(__always)
    private func preparedRow<R: GeneratedRecord>(_ type: R.Type) -> StatementRecordRow {
        reader.cache.prepareColumns(
            for: R.self, mapping: reader.mapping, statement: reader.statement, in: reader.columns)
        return StatementRecordRow(context: row)
    }
}

extension ParameterPass where Binder == StatementBinder {
    /// Binds `value` through `R`'s generated writer; `R` is `T`, found by casting `T.self`. `bind`, when given,
    /// is that writer called from code specialized for `T`.
    func encodeGenerated<R: GeneratedRecord, T>(_ record: R.Type, _ value: T, bind: GeneratedBinding<T>?) throws {
        let parameters = recordParameters(for: R.self)
        if let bind { return try bind(value, parameters) }
        // Generic code copies the value here (retaining its strings and data), which `bind` avoids.
        try unsafeBitCast(value, to: R.self).encode(to: parameters)
    }

    /// The parameters `R`'s generated writer binds on this pass, the statement's parameters of its keys looked up if
    /// this statement has not looked them up for it.
    @inline(__always)
    func recordParameters<R: GeneratedRecord>(for type: R.Type) -> StatementRecordParameters {
        binder.cache.prepareParameters(for: R.self, mapping: binder.mapping, statement: binder.statement)
        if binder.cache.recordKeysBindEveryParameter { skipBoundCheck() }
        return StatementRecordParameters(pass: self)
    }
}

/// A generated record's writer, called from code specialized for the record's type.
@usableFromInline
typealias GeneratedBinding<T> = (T, StatementRecordParameters) throws -> Void
