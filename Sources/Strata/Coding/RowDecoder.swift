import Foundation

extension RowDecoder {
    /// Decodes a `T` from the current row.
    ///
    /// - Throws: `DecodingError` naming the column; `DatabaseError` when the row is stale or
    ///   its database closed.
    public func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try row.checkCurrent()
        return try forRows(of: T.self).makeDecoding(for: row.statement).decodeRow(T.self)
    }

    func strategies(for statement: Statement) -> ValueStrategies {
        statement.strategies.overridden(by: storageOverrides)
    }

    /// A function decoding the current row of `statement` as `T`, row after row.
    @usableFromInline
    func rowDecoder<T: Decodable>(_ type: T.Type, for statement: Statement) -> () throws -> T {
        let decoding = forRows(of: T.self).makeDecoding(for: statement)
        return { try decoding.decodeRow(T.self) }
    }

    /// A decoding pass over `statement`, whose rows it decodes one after another; `columns` limits it to the
    /// columns of one table of a joined row.
    @usableFromInline
    func makeDecoding(for statement: Statement, columns: Range<Int32>? = nil) -> StatementDecoding {
        let mapping = keyDecodingStrategy.mapping
        return StatementDecoding(
            reader: RowReader(
                statement: statement, mapping: mapping, strategies: strategies(for: statement), columns: columns,
                usesGeneratedCode: usesGeneratedCode),
            mapping: mapping, userInfo: userInfo)
    }
}

/// The `Decoder` a value's `init(from:)` sees for one statement's rows: StrataCore's row decoder, whose containers are
/// declared here for SQLite's reader so that they are specialized for it. One is made per decode call, per fetch, or
/// per cached lookup statement, and reused row after row together with the keyed container it made for the first
/// row.
@usableFromInline
final class StatementDecoding: Decoder {
    /// The statement's columns, and the reads the containers share.
    @usableFromInline let row: RowContext<RowReader>
    /// The reader of the statement's columns, `row.reader` held here too: read through `row`, every row paid a
    /// retain and release of it.
    @usableFromInline let reader: RowReader
    @exclusivity(unchecked) private var containers = ContainerCache()

    init(reader: RowReader, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any]) {
        row = RowContext(reader: reader, mapping: mapping, userInfo: userInfo)
        self.reader = reader
    }

    init(row: RowContext<RowReader>) {
        self.row = row
        self.reader = row.reader
    }

    /// The statement whose rows this decodes.
    @inlinable var statement: Statement { reader.statement }

    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { row.userInfo }

    /// Decodes the statement's current row; the caller has checked that it is current.
    func decodeRow<T: Decodable>(_ type: T.Type) throws -> T {
        let reader = self.reader
        reader.beginRow()
        // A one-column row of a storable type reads as that value, even for a type that also has generated code
        // (StrataCore's `RowContext.decodeRow`, here with `self` as the concrete decoder `T(from:)` sees).
        if reader.columnCount == 1, T.self is any DatabaseValueConvertible.Type {
            return try decodeOnlyColumn(T.self)
        }
        if let record = reader.generatedRecord(T.self) {
            return try decodeGenerated(record, as: T.self)
        }
        return try T(from: self)
    }

    /// The value of a one-column row. Out of line: inlined, its room for a `T` made every keyed row's decoding set up
    /// a larger frame (14 instructions a row, callgrind).
    @inline(never)
    private func decodeOnlyColumn<T: Decodable>(_ type: T.Type) throws -> T {
        try row.value(T.self, at: 0, key: nil)
    }

    @usableFromInline
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        containers.container(keyedBy: Key.self) { KeyedDecodingContainer(StatementRowContainer<Key>(row: row)) }
    }

    @usableFromInline
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw row.unkeyedContainerError() }

    @usableFromInline
    func singleValueContainer() throws -> any SingleValueDecodingContainer { try row.singleValueContainer() }
}

/// SQLite's ``ColumnReader``: the columns of a statement's current row, read with one call into SQLite for the
/// expected storage class, through `DatabaseValue` for the exact conversion or error otherwise; and the key-to-column
/// cache of the statement and the strategies.
@usableFromInline
final class RowReader: ColumnReader {
    @usableFromInline let statement: Statement
    let cache: CodingCache
    let mapping: KeyMapping
    let strategies: ValueStrategies
    /// How many keys this row has looked up so far. Unchecked for exclusivity as in `CodingCache`.
    @exclusivity(unchecked) var position = 0

    /// The columns this reader's keys look in: all of them, or the columns of one table of a join.
    let columns: Range<Int32>?

    /// The last type decoded, and its generated reader when it has one: decided once per type, not per row.
    @exclusivity(unchecked) private var generatedRecords: GeneratedRecordCache<any GeneratedRecord.Type>

    init(
        statement: Statement, mapping: KeyMapping, strategies: ValueStrategies, columns: Range<Int32>? = nil,
        usesGeneratedCode: Bool = true
    ) {
        self.statement = statement
        // A reader of some columns keeps its own key-to-column slots: the statement's belong to whole rows.
        self.cache = columns == nil ? statement.coding : CodingCache(parameterCount: 0)
        self.mapping = mapping
        self.strategies = strategies
        self.columns = columns
        self.generatedRecords = GeneratedRecordCache(usesGeneratedCode: usesGeneratedCode)
    }

    /// `T` as a `GeneratedRecord`, nil when it has no generated reader.
    @inline(__always)
    func generatedRecord<T>(_ type: T.Type) -> (any GeneratedRecord.Type)? {
        generatedRecords.record(T.self)
    }

    // MARK: ColumnReader

    @usableFromInline var columnNames: [String] { statement.columnNames }
    @usableFromInline var columnCount: Int { statement.columnCount }

    @usableFromInline
    func beginRow() {
        position = 0
        cache.beginDecoding(mapping: mapping)
    }

    @usableFromInline @inline(__always)
    func columnIndex(forKey key: String) -> Int? {
        let index = column(forKey: key)
        return index >= 0 ? Int(index) : nil
    }

    /// The column of `key`, -1 when the row has none.
    @inline(__always)
    func column(forKey name: String) -> Int32 {
        let position = self.position
        self.position = position + 1
        if let index = cache.cachedColumn(for: name, at: position) { return index }
        return cache.lookUpColumn(for: name, at: position, mapping: mapping, statement: statement, in: columns)
    }

    @usableFromInline @inline(__always)
    func isNull(at index: Int) -> Bool { statement.isNull(at: Int32(truncatingIfNeeded: index)) }

    @usableFromInline @inline(__always)
    func decodeBool(at index: Int) throws -> Bool {
        try named(Bool.self) { try statement.readBool(at: Int32(truncatingIfNeeded: index)) }
    }

    @usableFromInline @inline(__always)
    func decodeString(at index: Int) throws -> String {
        try named(String.self) { try statement.readString(at: Int32(truncatingIfNeeded: index)) }
    }

    @usableFromInline @inline(__always)
    func decodeDouble(at index: Int) throws -> Double {
        try named(Double.self) { try statement.readDouble(at: Int32(truncatingIfNeeded: index)) }
    }

    @usableFromInline @inline(__always)
    func decodeFloat(at index: Int) throws -> Float {
        try named(Float.self) { try Float(databaseValue: statement.storedValue(at: Int32(truncatingIfNeeded: index))) }
    }

    @usableFromInline @inline(__always)
    func storedInteger(at index: Int) -> Int64? { statement.storedInteger(at: Int32(truncatingIfNeeded: index)) }

    @usableFromInline @inline(__always)
    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I {
        try named(I.self) { try statement.readInteger(I.self, at: Int32(truncatingIfNeeded: index)) }
    }

    /// The common types straight from the C API, others through their ``DatabaseValueConvertible`` conformance.
    @usableFromInline @inline(__always)
    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, otherwise: (Int) throws -> T) throws -> T {
        let column = Int32(truncatingIfNeeded: index)
        if let common = CommonType(T.self) {
            return try named(T.self) { try statement.read(common, as: T.self, at: column, strategies: strategies) }
        }
        guard let convertible = T.self as? any DatabaseValueConvertible.Type else { return try otherwise(index) }
        return try decodeConvertible(convertible, as: T.self, at: column)
    }

    @usableFromInline
    func decodeNested<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        try named(T.self) {
            try NestedValueCoding.decode(T.self, from: statement.storedValue(at: Int32(truncatingIfNeeded: index)))
        }
    }

    /// Decodes a value of a ``DatabaseValueConvertible`` type from the column at `index`.
    func decodeConvertible<T>(_ convertible: any DatabaseValueConvertible.Type, as type: T.Type, at index: Int32)
        throws -> T
    {
        let value: DatabaseValue
        do {
            value = try statement.storedValue(at: index)
        } catch let error as DatabaseError {
            throw error.naming(requested: T.self)
        }
        do {
            // The cast cannot fail: `convertible` is `T.self` seen through the protocol.
            if let result = try convertible.decoded(from: value, using: strategies) as? T {
                return result
            }
            throw DatabaseError(code: .typeMismatch, message: "could not decode \(T.self)")
        } catch {
            // A conversion of the type's own that threw names the column, as `row[column]`'s does.
            throw error as? DatabaseError ?? .failedConversion(error, reading: T.self, from: value)
        }
    }

    /// `body`'s value, its error reworded to name `T` when the column's TEXT is not valid UTF-8.
    @inline(__always)
    private func named<T>(_ type: T.Type, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw error.naming(requested: T.self)
        }
    }
}
