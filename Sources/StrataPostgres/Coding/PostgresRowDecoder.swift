import Foundation
internal import PostgresNIO
internal import StrataCore

/// The names of a result's columns and where each is, shared by all its rows.
final class PostgresColumns: Sendable {
    /// The column names, in order.
    let names: [String]
    /// The index of each name.
    private let indexes: [String: Int]

    /// The columns named `names`, in order.
    init(_ names: [String]) {
        self.names = names
        var indexes: [String: Int] = [:]
        // The first of two columns with one name wins, as in SQLite's `sqlite3_column_name` lookups.
        for (index, name) in names.enumerated().reversed() { indexes[name] = index }
        self.indexes = indexes
    }

    /// The columns of `row`'s result.
    convenience init(row: PostgresRow) {
        self.init(row.map(\.columnName))
    }

    /// The index of the column named `name`, nil when there is none.
    func index(of name: String) -> Int? { indexes[name] }
}

/// Decodes `Decodable` values from PostgreSQL rows as Strata's `RowDecoder` does from SQLite rows: each coding
/// key reads the column its key mapping names, optionals read NULL and a missing column as nil, a type that is
/// ``DatabaseValueConvertible`` or single-valued decodes from the only column of a one-column row.
struct PostgresRowDecoder: Sendable {
    /// How coding keys find their columns.
    let mapping: KeyMapping
    /// Contextual information for custom `init(from:)` implementations.
    let userInfo: [CodingUserInfoKey: any Sendable]

    /// The decoder of `decoder`'s settings for rows of `T`: with the key strategy of `T` when `T` is a ``Model``
    /// and `decoder` set none, as on SQLite. Its date, array and UUID strategies describe SQLite storage and are not
    /// read: PostgreSQL's column types say how each value is stored.
    init<T>(_ decoder: RowDecoder, for type: T.Type) {
        let decoder = decoder.forRows(of: T.self)
        mapping = decoder.keyDecodingStrategy.mapping
        userInfo = decoder.userInfo
    }

    /// Decodes one row.
    func decode<T: Decodable>(_ type: T.Type, from row: PostgresRow, columns: PostgresColumns) throws -> T {
        try decode(T.self, cells: Array(row), columns: columns)
    }

    /// Decodes one row of a result whose rows all have `columns`; `plan` is the plan of the rows decoded before,
    /// and is made from the first.
    func decode<T: Decodable>(
        _ type: T.Type, from row: PostgresRow, columns: PostgresColumns, plan: inout PostgresKeyPlan?
    ) throws -> T {
        try decode(T.self, cells: Array(row), columns: columns, plan: &plan, recording: true)
    }

    /// Decodes the `cells` of one row, whose names are `columns`: a whole row, or one table's part of a joined row.
    func decode<T: Decodable>(_ type: T.Type, cells: [PostgresCell], columns: PostgresColumns) throws -> T {
        var plan: PostgresKeyPlan?
        return try decode(T.self, cells: cells, columns: columns, plan: &plan, recording: false)
    }

    /// Decodes the `cells` of one row with the columns of `plan`, or, when it is nil, records the plan if
    /// `recording` (a single row does not).
    private func decode<T: Decodable>(
        _ type: T.Type, cells: [PostgresCell], columns: PostgresColumns, plan: inout PostgresKeyPlan?,
        recording: Bool
    ) throws -> T {
        if cells.count == 1, let first = cells.first, Self.isScalar(T.self) {
            return try PostgresCellReader.decode(T.self, from: first, codingPath: [])
        }
        let decoding = PostgresRowDecoding(
            cells: cells, columns: columns, mapping: mapping, userInfo: userInfo, plan: plan, recording: recording)
        let value = try T(from: decoding)
        if plan == nil, recording { plan = decoding.recordedPlan }
        return value
    }

    /// Whether `T` is read from one column rather than keyed by columns.
    static func isScalar<T>(_ type: T.Type) -> Bool {
        T.self is any DatabaseValueConvertible.Type
    }
}

/// The columns the coding keys of a result's first row found, in the order the keys were asked for: the rows after
/// it find theirs by position instead of by name. It holds for one result only (one list of columns).
struct PostgresKeyPlan: Sendable {
    /// The coding keys, in the order they were looked up.
    let keys: [String]
    /// The index of each key's column, nil for a key the row has no column for.
    let indexes: [Int?]
}

/// The `Decoder` a value's `init(from:)` sees for one row.
final class PostgresRowDecoding: Decoder {
    /// The row's cells, in column order.
    let cells: [PostgresCell]
    /// The names of the result's columns.
    let columns: PostgresColumns
    /// How coding keys find their columns.
    let mapping: KeyMapping
    /// Contextual information for custom `init(from:)` implementations.
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] { [] }
    /// The columns the keys of the result's earlier rows found, in the order they were asked for; nil for the
    /// first row, whose keys are recorded instead.
    private let plan: PostgresKeyPlan?
    /// How many keys this row has looked up so far.
    private var position = 0
    /// Whether this row, the first of a result of many, records its lookups for the others.
    private let recording: Bool
    /// The first row's key lookups, in order.
    private var recordedKeys: [String] = []
    private var recordedIndexes: [Int?] = []

    /// The decoder of one row.
    init(
        cells: [PostgresCell], columns: PostgresColumns, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any],
        plan: PostgresKeyPlan? = nil, recording: Bool = false
    ) {
        self.cells = cells
        self.columns = columns
        self.mapping = mapping
        self.userInfo = userInfo
        self.plan = plan
        self.recording = recording
    }

    /// The plan of the lookups this row made, for the next rows of its result.
    var recordedPlan: PostgresKeyPlan { PostgresKeyPlan(keys: recordedKeys, indexes: recordedIndexes) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PostgresKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "a row decodes into a keyed type (a struct, class or dictionary), not a list"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard cells.count == 1, let cell = cells.first else {
            throw DecodingError.typeMismatch(
                Any.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription:
                        "a single value decodes from a one-column row; this row has \(cells.count) columns"
                ))
        }
        return PostgresCellDecoder(cell: cell, codingPath: [])
    }

    /// The cell of `key`, nil when the row has no such column.
    ///
    /// The rows of one result ask for their keys in the same order: the n-th lookup of a row takes the column the
    /// n-th lookup of the first row found when it is for the same key, and maps and looks the key up otherwise.
    func cell(for key: some CodingKey) -> PostgresCell? {
        let name = key.stringValue
        let index: Int?
        if let plan, position < plan.keys.count, plan.keys[position] == name {
            index = plan.indexes[position]
        } else {
            index = columns.index(of: mapping.name(for: name))
            if recording, plan == nil {
                recordedKeys.append(name)
                recordedIndexes.append(index)
            }
        }
        position += 1
        return index.map { cells[$0] }
    }

    /// `no column named "x" for key x; the row has "a", "b"`.
    func keyNotFound(_ key: some CodingKey) -> DecodingError {
        mapping.keyNotFound(key, codingPath: codingPath, columns: columns.names)
    }
}

/// The keyed container of a row: each key reads the column its mapping names.
struct PostgresKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder of the row.
    let decoder: PostgresRowDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { decoder.columns.names.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.cell(for: key) != nil }

    /// True for NULL and for a missing column, as a missing key in `JSONDecoder`.
    func decodeNil(forKey key: Key) throws -> Bool {
        guard let cell = decoder.cell(for: key) else { return true }
        return cell.bytes == nil
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let cell = decoder.cell(for: key) else { throw decoder.keyNotFound(key) }
        // Data, the one Foundation type of the usual models that has no concrete requirement, without the casts.
        if T.self == Data.self,
            let data = try PostgresCellReader.data(from: cell, codingPath: { codingPath + [key] }) as? T
        {
            return data
        }
        return try PostgresCellReader.decode(T.self, from: cell, codingPath: codingPath + [key])
    }

    // The concrete requirements, which synthesized `init(from:)` calls for the standard library's types: read
    // without the generic path's dynamic casts, with the same results and errors.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try PostgresCellReader.bool(from: cell(key), codingPath: { codingPath + [key] })
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try PostgresCellReader.string(from: cell(key), codingPath: { codingPath + [key] })
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try PostgresCellReader.double(from: cell(key), codingPath: { codingPath + [key] })
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try PostgresCellReader.float(from: cell(key), codingPath: { codingPath + [key] })
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    /// The cell of `key`, or the error of a missing column.
    private func cell(_ key: Key) throws -> PostgresCell {
        guard let cell = decoder.cell(for: key) else { throw decoder.keyNotFound(key) }
        return cell
    }

    /// An integer of width `I` for `key`.
    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try PostgresCellReader.integer(I.self, from: cell(key), codingPath: { codingPath + [key] })
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw unsupported(key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw unsupported(key) }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported(key) }

    /// The error of a nested container asked of a column.
    private func unsupported(_ key: Key) -> DecodingError {
        DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription: "a column holds one value: decode a nested value as a Decodable type (read as JSON)"))
    }
}

/// The decoder of one cell, for types that decode from a single value (raw-value enums, wrappers).
struct PostgresCellDecoder: Decoder, SingleValueDecodingContainer {
    /// The cell to read.
    let cell: PostgresCell
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw NestedValue()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NestedValue() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { cell.bytes == nil }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try PostgresCellReader.decode(T.self, from: cell, codingPath: codingPath)
    }

    // The concrete requirements of SingleValueDecodingContainer, all read as the generic one does.
    func decode(_ type: Bool.Type) throws -> Bool { try read(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try read(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try read(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try read(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try read(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try read(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try read(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try read(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try read(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try read(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read(UInt64.self) }

    /// Reads the cell as `T`.
    private func read<T: Decodable>(_ type: T.Type) throws -> T {
        try PostgresCellReader.decode(T.self, from: cell, codingPath: codingPath)
    }
}
