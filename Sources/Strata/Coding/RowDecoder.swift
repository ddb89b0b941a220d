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
        statement.strategies.overridden(date: dateStrategy, array: arrayStrategy, uuid: uuidStrategy)
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
    func makeDecoding(for statement: Statement, columns: Range<Int32>? = nil) -> RowDecoding {
        RowDecoding(
            reader: RowReader(
                statement: statement, mapping: keyDecodingStrategy.mapping, strategies: strategies(for: statement),
                userInfo: userInfo, columns: columns),
            usesGeneratedCode: usesGeneratedCode)
    }
}

/// The `Decoder` a value's `init(from:)` sees for one statement's rows. One is made per decode
/// call, per fetch, or per cached lookup statement, and reused row after row together with the
/// keyed container it made for the first row.
@usableFromInline
final class RowDecoding: Decoder {
    @usableFromInline let reader: RowReader
    @exclusivity(unchecked) private var containers = ContainerCache()
    /// The last type decoded, and its generated reader when it has one: decided once per type, not per row.
    @exclusivity(unchecked) private var lastType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastRecord: (any GeneratedRecord.Type)?

    /// Whether a ``GeneratedRecord`` is read by its generated code (see ``RowDecoder``).
    private let usesGeneratedCode: Bool

    init(reader: RowReader, usesGeneratedCode: Bool = true) {
        self.reader = reader
        self.usesGeneratedCode = usesGeneratedCode
    }

    @usableFromInline var codingPath: [any CodingKey] { reader.codingPath }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { reader.userInfo }
    var strategies: ValueStrategies { reader.strategies }
    /// The statement whose rows this decodes.
    @inlinable var statement: Statement { reader.statement }

    /// Decodes the statement's current row; the caller has checked that it is current.
    func decodeRow<T: Decodable>(_ type: T.Type) throws -> T {
        reader.beginRow()
        if reader.statement.columnCount == 1, let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try reader.decodeConvertible(convertible, as: T.self, at: 0, key: nil)
        }
        if let record = generatedRecord(T.self) {
            return try decodeGenerated(record, as: T.self)
        }
        return try T(from: self)
    }

    /// `T` as a ``GeneratedRecord``, nil when it has no generated reader.
    @inline(__always)
    private func generatedRecord<T>(_ type: T.Type) -> (any GeneratedRecord.Type)? {
        let identifier = ObjectIdentifier(T.self)
        if identifier != lastType {
            lastType = identifier
            lastRecord = usesGeneratedCode ? T.self as? any GeneratedRecord.Type : nil
        }
        return lastRecord
    }

    @usableFromInline
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        containers.container { KeyedDecodingContainer(RowKeyedContainer<Key>(reader: reader)) }
    }

    @usableFromInline
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "a row decodes into a keyed type (a struct, class or dictionary), not a list"))
    }

    @usableFromInline
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        let columnCount = reader.statement.columnCount
        guard columnCount == 1 else {
            throw DecodingError.typeMismatch(
                Any.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription:
                        "a single value decodes from a one-column row; this row has \(columnCount) columns"))
        }
        return ColumnDecoder(reader: reader, index: 0, key: nil)
    }
}

/// What the containers of one statement's rows read through: the statement, the key-to-column
/// cache and the strategies.
@usableFromInline
final class RowReader {
    @usableFromInline let statement: Statement
    let cache: CodingCache
    let mapping: KeyMapping
    let strategies: ValueStrategies
    let userInfo: [CodingUserInfoKey: Any]
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    /// How many keys this row has looked up so far. Unchecked for exclusivity as in `CodingCache`.
    @exclusivity(unchecked) var position = 0

    /// The columns this reader's keys look in: all of them, or the columns of one table of a join.
    let columns: Range<Int32>?

    init(
        statement: Statement, mapping: KeyMapping, strategies: ValueStrategies,
        userInfo: [CodingUserInfoKey: any Sendable], columns: Range<Int32>? = nil
    ) {
        self.statement = statement
        // A reader of some columns keeps its own key-to-column slots: the statement's belong to whole rows.
        self.cache = columns == nil ? statement.coding : CodingCache(parameterCount: 0)
        self.mapping = mapping
        self.strategies = strategies
        self.userInfo = userInfo
        self.columns = columns
    }

    func beginRow() {
        position = 0
        cache.beginDecoding(mapping: mapping)
    }

    // MARK: Columns

    /// The column of `key`, -1 when the row has none.
    @inline(__always)
    func columnIndex(for key: some CodingKey) -> Int32 {
        let position = self.position
        self.position = position + 1
        let name = key.stringValue
        if let index = cache.cachedColumn(for: name, at: position) { return index }
        return cache.lookUpColumn(for: name, at: position, mapping: mapping, statement: statement, in: columns)
    }

    /// Decodes a value of a ``DatabaseValueConvertible`` type from the column at `index`.
    func decodeConvertible<T>(
        _ convertible: any DatabaseValueConvertible.Type, as type: T.Type, at index: Int32, key: (any CodingKey)?
    ) throws -> T {
        let value: DatabaseValue
        do {
            value = try statement.storedValue(at: index)
        } catch {
            throw decodingError(error, type: T.self, at: index, key: key)
        }
        do {
            // The cast cannot fail: `convertible` is `T.self` seen through the protocol.
            if let result = try convertible.decoded(from: value, using: strategies) as? T {
                return result
            }
            throw DatabaseError(code: .typeMismatch, message: "could not decode \(T.self)")
        } catch {
            // A conversion of the type's own that threw names the column, as `row[column]`'s does.
            let databaseError = error as? DatabaseError ?? .failedConversion(error, reading: T.self, from: value)
            throw decodingError(databaseError, type: T.self, at: index, key: key)
        }
    }

    /// Decodes any `Decodable` from the column at `index`: the common types straight from the C API,
    /// others through their ``DatabaseValueConvertible`` conformance, as a single value, or from
    /// nested JSON or property list. `key` is only evaluated for an error.
    func decodeValue<T: Decodable>(
        _ type: T.Type, at index: Int32, key: @autoclosure () -> (any CodingKey)?
    ) throws -> T {
        if let common = CommonType(T.self) {
            do {
                return try statement.read(common, as: T.self, at: index, strategies: strategies)
            } catch {
                throw decodingError(error, type: T.self, at: index, key: key())
            }
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try decodeConvertible(convertible, as: T.self, at: index, key: key())
        }
        do {
            return try T(from: ColumnDecoder(reader: self, index: index, key: key()))
        } catch is NestedValueSignal {
            do {
                return try NestedValueCoding.decode(T.self, from: statement.storedValue(at: index))
            } catch {
                throw decodingError(error, type: T.self, at: index, key: key())
            }
        }
    }

    /// A `DecodingError` for a failure reading column `index`, naming the column, stored type and expected type.
    func decodingError(_ error: any Error, type: Any.Type, at index: Int32, key: (any CodingKey)?) -> any Error {
        guard let databaseError = error as? DatabaseError else { return error }
        let name = statement.columnNames.indices.contains(Int(index)) ? statement.columnNames[Int(index)] : nil
        let located = databaseError.naming(requested: type).located(column: name, index: Int(index), sql: nil)
        let context = DecodingError.Context(
            codingPath: key.map { codingPath + [$0] } ?? codingPath,
            debugDescription: located.description,
            underlyingError: located)
        switch databaseError.code {
        case .unexpectedNull: return DecodingError.valueNotFound(type, context)
        case .typeMismatch: return DecodingError.typeMismatch(type, context)
        default: return DecodingError.dataCorrupted(context)
        }
    }

    func keyNotFound(_ key: any CodingKey) -> DecodingError {
        mapping.keyNotFound(key, codingPath: codingPath, columns: statement.columnNames)
    }
}

/// Thrown by a column decoder or encoder when a value asks for a keyed or unkeyed container:
/// the column holds a nested value, stored as JSON or a property list.
struct NestedValueSignal: Error {}
