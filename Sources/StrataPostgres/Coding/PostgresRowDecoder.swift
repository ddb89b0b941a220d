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

    /// Decodes the `cells` of one row, whose names are `columns`: a whole row, or one table's part of a joined row.
    func decode<T: Decodable>(_ type: T.Type, cells: [PostgresCell], columns: PostgresColumns) throws -> T {
        if cells.count == 1, let first = cells.first, Self.isScalar(T.self) {
            return try PostgresCellReader.decode(T.self, from: first, codingPath: [])
        }
        return try T(from: PostgresRowDecoding(cells: cells, columns: columns, mapping: mapping, userInfo: userInfo))
    }

    /// Whether `T` is read from one column rather than keyed by columns.
    static func isScalar<T>(_ type: T.Type) -> Bool {
        T.self is any DatabaseValueConvertible.Type
    }
}

/// Decodes the rows of one result as `T`, in order, one at a time as they arrive.
///
/// What the rows share is read once, from the first: the columns' names, types and formats
/// (``PostgresRowLayout``), and the columns its coding keys found (``PostgresKeyPlan``). Each row then only loads its
/// values into one decoder, which the rows share as long as no `init(from:)` keeps it, and the standard library's
/// types read the common binary columns (`int2`, `int4`, `int8`, `float4`, `float8`, `bool`, `text`, `bytea`...)
/// directly; any other column, NULL, or a value that does not fit takes the general path with its errors.
struct PostgresResultDecoder<T: Decodable> {
    /// The key mapping and user info.
    private let decoder: PostgresRowDecoder
    /// Whether the rows are read as one scalar each; nil before the first row.
    private var isScalar: Bool?
    /// The decoder of the next row, nil before the first row and for scalars.
    private var decoding: PostgresRowDecoding?
    /// The rows decoded so far.
    private(set) var values: [T] = []

    /// A decoder of rows with `decoder`'s key mapping and user info.
    init(_ decoder: PostgresRowDecoder) {
        self.decoder = decoder
    }

    /// Decodes `row`, the next row of the result, and appends its value to ``values``.
    mutating func append(_ row: PostgresRow) throws {
        let isScalar: Bool
        if let known = self.isScalar {
            isScalar = known
        } else {
            let layout = PostgresRowLayout(row: row)
            isScalar = layout.count == 1 && PostgresRowDecoder.isScalar(T.self)
            self.isScalar = isScalar
            if !isScalar {
                decoding = PostgresRowDecoding(layout: layout, mapping: decoder.mapping, userInfo: decoder.userInfo)
            }
        }
        guard !isScalar, var decoding else {
            for cell in row {
                values.append(try PostgresCellReader.decode(T.self, from: cell, codingPath: []))
                break
            }
            return
        }
        // Taken out while the row decodes, so that a decoder kept by nothing else is seen as such.
        self.decoding = nil
        decoding.load(row)
        do {
            values.append(try T(from: decoding))
        } catch {
            self.decoding = decoding
            throw error
        }
        // The first row's decoder hands the key plan it recorded to a decoder for the rows after it; a decoder that
        // the decoded value kept (or a container of it) stays with that value.
        if decoding.isRecording || !isKnownUniquelyReferenced(&decoding) { decoding = decoding.successor() }
        self.decoding = decoding
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

/// What every row of one result shares, read from its first row: the columns' names, and each column's type and
/// format, with the kind of value the direct reads of ``PostgresRowDecoding`` take from it.
final class PostgresRowLayout: Sendable {
    /// The names of the columns.
    let columns: PostgresColumns
    /// Each column's PostgreSQL type.
    let dataTypes: [PostgresDataType]
    /// Each column's format.
    let formats: [PostgresFormat]
    /// Each column's kind of value, for the direct reads.
    let kinds: [PostgresValueKind]

    /// The layout of the result `row` belongs to.
    init(row: PostgresRow) {
        var names: [String] = []
        var dataTypes: [PostgresDataType] = []
        var formats: [PostgresFormat] = []
        for cell in row {
            names.append(cell.columnName)
            dataTypes.append(cell.dataType)
            formats.append(cell.format)
        }
        columns = PostgresColumns(names)
        self.dataTypes = dataTypes
        self.formats = formats
        kinds = zip(dataTypes, formats).map { PostgresValueKind(dataType: $0, format: $1) }
    }

    /// The number of columns.
    var count: Int { kinds.count }

    /// The cell of the column at `index` holding `bytes`, as postgres-nio gives it.
    func cell(_ bytes: ByteBuffer?, at index: Int) -> PostgresCell {
        PostgresCell(
            bytes: bytes, dataType: dataTypes[index], format: formats[index], columnName: columns.names[index],
            columnIndex: index)
    }
}

/// The columns whose values the standard library's types read directly, without building a cell: binary values of
/// the types StrataPostgres writes. Every other column (`.other`), and every column in text format, is read by
/// ``PostgresCellReader`` only.
enum PostgresValueKind: UInt8, Sendable {
    case int2, int4, int8, float4, float8, bool, bytea
    /// `text`, `varchar`, `bpchar`, `name` or `json`: UTF-8 text as it is stored.
    case text
    case other

    /// The kind of a column of `dataType` in `format`.
    init(dataType: PostgresDataType, format: PostgresFormat) {
        guard format == .binary else {
            self = .other
            return
        }
        switch dataType {
        case .int2: self = .int2
        case .int4: self = .int4
        case .int8: self = .int8
        case .float4: self = .float4
        case .float8: self = .float8
        case .bool: self = .bool
        case .bytea: self = .bytea
        case .text, .varchar, .bpchar, .name, .json: self = .text
        default: self = .other
        }
    }
}

/// The `Decoder` a value's `init(from:)` sees for one row.
///
/// It holds a row's cells (a single row, or one table's part of a joined row), or, for the rows of one result, the
/// values of the row being decoded with the result's ``PostgresRowLayout``: then one decoder serves row after row,
/// and the standard library's types read the binary values they expect without building a cell; any other value
/// is read by ``PostgresCellReader``, with the same results and errors.
final class PostgresRowDecoding: Decoder {
    /// The row's cells, in column order, when there is no layout.
    private let cells: [PostgresCell]
    /// The result's layout, nil for a decoder of `cells`.
    private let layout: PostgresRowLayout?
    /// The values of the row being decoded, in column order, when there is a layout.
    // The mutable state below is used by one row's decoding at a time, never by overlapping accesses: it goes
    // without the dynamic exclusivity checks, which cost more than the reads and writes themselves.
    @exclusivity(unchecked) private var values: [ByteBuffer?] = []
    /// The names of the result's columns.
    let columns: PostgresColumns
    /// How coding keys find their columns.
    let mapping: KeyMapping
    /// Contextual information for custom `init(from:)` implementations.
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] { [] }
    /// The columns the keys of the result's first row found, in the order they were asked for; nil for the decoder
    /// of the first row (and for a decoder of `cells`).
    private let plan: PostgresKeyPlan?
    /// How many keys this row has looked up so far.
    @exclusivity(unchecked) private var position = 0
    /// Whether this decoder, of the first row of a result, records its lookups for the others.
    let isRecording: Bool
    /// The first row's key lookups, in order.
    @exclusivity(unchecked) private var recordedKeys: [String] = []
    @exclusivity(unchecked) private var recordedIndexes: [Int?] = []

    /// The decoder of one row's `cells`.
    init(cells: [PostgresCell], columns: PostgresColumns, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any]) {
        self.cells = cells
        self.columns = columns
        self.mapping = mapping
        self.userInfo = userInfo
        layout = nil
        plan = nil
        isRecording = false
    }

    /// The decoder of the rows of one result with `layout`, each loaded in turn with ``load(_:)``.
    init(
        layout: PostgresRowLayout, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any],
        plan: PostgresKeyPlan? = nil
    ) {
        cells = []
        self.layout = layout
        columns = layout.columns
        self.mapping = mapping
        self.userInfo = userInfo
        self.plan = plan
        isRecording = plan == nil
        values = Array(repeating: nil, count: layout.count)
    }

    /// Makes `row`, of the result of the layout, the row to decode.
    func load(_ row: PostgresRow) {
        var index = 0
        for var cell in row where index < values.count {
            // Swapped rather than copied: the value moves in without a retain, the previous row's goes with the cell.
            swap(&values[index], &cell.bytes)
            index += 1
        }
        position = 0
    }

    /// A decoder for the next rows of the result, with this one's plan, or the plan it recorded.
    func successor() -> PostgresRowDecoding {
        guard let layout else { return self }
        return PostgresRowDecoding(
            layout: layout, mapping: mapping, userInfo: userInfo,
            plan: plan ?? PostgresKeyPlan(keys: recordedKeys, indexes: recordedIndexes))
    }

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
        let count = layout?.count ?? cells.count
        guard count == 1 else {
            throw DecodingError.typeMismatch(
                Any.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a single value decodes from a one-column row; this row has \(count) columns"
                ))
        }
        return PostgresCellDecoder(cell: cell(at: 0), codingPath: [])
    }

    /// The index of the column of `key`, nil when the row has no such column.
    ///
    /// The rows of one result ask for their keys in the same order: the n-th lookup of a row takes the column the
    /// n-th lookup of the first row found when it is for the same key, and maps and looks the key up otherwise.
    func index(for key: some CodingKey) -> Int? {
        let name = key.stringValue
        let index: Int?
        if let plan, position < plan.keys.count, plan.keys[position] == name {
            index = plan.indexes[position]
        } else {
            index = columns.index(of: mapping.name(for: name))
            if isRecording {
                recordedKeys.append(name)
                recordedIndexes.append(index)
            }
        }
        position += 1
        return index
    }

    /// The cell of the column at `index`.
    func cell(at index: Int) -> PostgresCell {
        guard let layout else { return cells[index] }
        return layout.cell(values[index], at: index)
    }

    /// Whether the value of the column at `index` is NULL.
    func isNull(at index: Int) -> Bool {
        guard layout != nil else { return cells[index].bytes == nil }
        return values[index] == nil
    }

    /// `no column named "x" for key x; the row has "a", "b"`.
    func keyNotFound(_ key: some CodingKey) -> DecodingError {
        mapping.keyNotFound(key, codingPath: codingPath, columns: columns.names)
    }

    // MARK: Direct reads
    //
    // Each returns what `PostgresCellReader` returns for the same value, or nil when the value is not one it
    // reads directly (a decoder of cells, NULL, another column type, too few bytes, out of range): the caller
    // then asks `PostgresCellReader`, which gives the value or the error.

    /// The value at `index` of a column of `kind`, when it is not NULL.
    private func bytes(at index: Int, _ kind: PostgresValueKind) -> ByteBuffer? {
        guard let layout, layout.kinds[index] == kind else { return nil }
        return values[index]
    }

    /// An integer from a binary int2, int4 or int8 (the caller checks that it fits the width it reads).
    func directInteger(at index: Int) -> Int64? {
        guard let layout, let bytes = values[index] else { return nil }
        let at = bytes.readerIndex
        switch layout.kinds[index] {
        case .int8: return bytes.getInteger(at: at, as: Int64.self)
        case .int4: return bytes.getInteger(at: at, as: Int32.self).map { Int64($0) }
        case .int2: return bytes.getInteger(at: at, as: Int16.self).map { Int64($0) }
        default: return nil
        }
    }

    /// A Double from a binary float8 or float4.
    func directDouble(at index: Int) -> Double? {
        guard let layout, let bytes = values[index] else { return nil }
        let at = bytes.readerIndex
        switch layout.kinds[index] {
        case .float8: return bytes.getInteger(at: at, as: UInt64.self).map { Double(bitPattern: $0) }
        case .float4: return bytes.getInteger(at: at, as: UInt32.self).map { Double(Float(bitPattern: $0)) }
        default: return nil
        }
    }

    /// A Bool from a binary bool.
    func directBool(at index: Int) -> Bool? {
        guard let bytes = bytes(at: index, .bool), let byte = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self)
        else { return nil }
        return byte != 0
    }

    /// A String from a text type or json.
    func directString(at index: Int) -> String? {
        bytes(at: index, .text).map { String(buffer: $0) }
    }

    /// The bytes of a binary bytea, copied once.
    func directData(at index: Int) -> Data? {
        bytes(at: index, .bytea).map { Data($0.readableBytesView) }
    }
}

/// The keyed container of a row: each key reads the column its mapping names.
struct PostgresKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The decoder of the row.
    let decoder: PostgresRowDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { decoder.columns.names.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.index(for: key) != nil }

    /// True for NULL and for a missing column, as a missing key in `JSONDecoder`.
    func decodeNil(forKey key: Key) throws -> Bool {
        guard let index = decoder.index(for: key) else { return true }
        return decoder.isNull(at: index)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try value(T.self, at: index(key), key)
    }

    // The concrete requirements, which synthesized `init(from:)` calls for the standard library's types: read
    // without the generic path's dynamic casts, and directly for the usual binary columns, with the same results
    // and errors.
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(at: index(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(at: index(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try double(at: index(key), key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(at: index(key), key) }
    // Integers: an int2, int4 or int8 that fits, read directly; anything else through the general path.
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try narrowed(Int.self, at: index(key), key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try narrowed(Int8.self, at: index(key), key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try narrowed(Int16.self, at: index(key), key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try narrowed(Int32.self, at: index(key), key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try narrowed(Int64.self, at: index(key), key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try narrowed(UInt.self, at: index(key), key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try narrowed(UInt8.self, at: index(key), key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try narrowed(UInt16.self, at: index(key), key)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try narrowed(UInt32.self, at: index(key), key)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try narrowed(UInt64.self, at: index(key), key)
    }

    // The optional requirements, which synthesized `init(from:)` calls for optional properties: nil for a missing
    // column or NULL, as the protocol's own implementations (`contains`, then `decodeNil`, then `decode`) give, with
    // one lookup of the column instead of three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try bool(at: $0, key) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try string(at: $0, key) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try double(at: $0, key) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try float(at: $0, key) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try narrowed(Int.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(key).map { try narrowed(Int8.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(key).map { try narrowed(Int16.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key).map { try narrowed(Int32.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try narrowed(Int64.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(key).map { try narrowed(UInt.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(key).map { try narrowed(UInt8.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(key).map { try narrowed(UInt16.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(key).map { try narrowed(UInt32.self, at: $0, key) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try narrowed(UInt64.self, at: $0, key) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try value(T.self, at: $0, key) }
    }

    /// An integer of width `I` from the column at `index`: an int2, int4 or int8 that fits, read directly; anything
    /// else through the general path. Always inlined into the concrete requirements above, where `I` is known, so
    /// that `I(exactly:)` is not called through the generic witness tables of a container generic over its key.
    @inline(__always)
    private func narrowed<I: FixedWidthInteger>(_ type: I.Type, at index: Int, _ key: Key) throws -> I {
        if let value = decoder.directInteger(at: index), let exact = I(exactly: value) { return exact }
        return try integer(I.self, at: index, key)
    }

    /// The index of the column of `key`, or the error of a missing column.
    private func index(_ key: Key) throws -> Int {
        guard let index = decoder.index(for: key) else { throw decoder.keyNotFound(key) }
        return index
    }

    /// The index of the column of `key`, nil when there is none or its value is NULL.
    private func present(_ key: Key) -> Int? {
        guard let index = decoder.index(for: key), !decoder.isNull(at: index) else { return nil }
        return index
    }

    /// A `T` from the column at `index`.
    private func value<T: Decodable>(_ type: T.Type, at index: Int, _ key: Key) throws -> T {
        // Data, the one Foundation type of the usual models that has no concrete requirement, without the casts.
        if T.self == Data.self {
            let data =
                try decoder.directData(at: index)
                ?? PostgresCellReader.data(from: decoder.cell(at: index), codingPath: { codingPath + [key] })
            return unsafeBitCast(data, to: T.self)
        }
        return try PostgresCellReader.decode(T.self, from: decoder.cell(at: index), codingPath: codingPath + [key])
    }

    private func bool(at index: Int, _ key: Key) throws -> Bool {
        if let value = decoder.directBool(at: index) { return value }
        return try PostgresCellReader.bool(from: decoder.cell(at: index), codingPath: { codingPath + [key] })
    }

    private func string(at index: Int, _ key: Key) throws -> String {
        if let value = decoder.directString(at: index) { return value }
        return try PostgresCellReader.string(from: decoder.cell(at: index), codingPath: { codingPath + [key] })
    }

    private func double(at index: Int, _ key: Key) throws -> Double {
        if let value = decoder.directDouble(at: index) { return value }
        return try PostgresCellReader.double(from: decoder.cell(at: index), codingPath: { codingPath + [key] })
    }

    private func float(at index: Int, _ key: Key) throws -> Float {
        // As the general path reads a Float: through the Double it reads, unless that is beyond Float's range.
        if let value = decoder.directDouble(at: index), case let float = Float(value), float.isFinite || !value.isFinite
        {
            return float
        }
        return try PostgresCellReader.float(from: decoder.cell(at: index), codingPath: { codingPath + [key] })
    }

    /// An integer of width `I` from the column at `index`, as the general path reads it: the value or its error.
    private func integer<I: FixedWidthInteger>(_ type: I.Type, at index: Int, _ key: Key) throws -> I {
        try PostgresCellReader.integer(I.self, from: decoder.cell(at: index), codingPath: { codingPath + [key] })
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
