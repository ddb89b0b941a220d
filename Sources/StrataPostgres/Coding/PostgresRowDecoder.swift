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
    /// Whether a `GeneratedRecord` is read by its generated code.
    let usesGeneratedCode: Bool

    /// The decoder of `decoder`'s settings for rows of `T`: with the key strategy of `T` when `T` is a ``Model``
    /// and `decoder` set none, as on SQLite.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when `decoder` sets a date, array or UUID strategy (the
    ///   SQLite backend's `dateStrategy`, `arrayStrategy`, `uuidStrategy`): they say how SQLite stores a value, and
    ///   PostgreSQL's column types say it here, so such a decoder is refused rather than its strategies ignored.
    init<T>(_ decoder: RowDecoder, for type: T.Type) throws {
        guard decoder.storageOverrides == StorageOverrides() else {
            throw DatabaseError(
                code: .invalidArgument,
                message:
                    "a RowDecoder's dateStrategy, arrayStrategy and uuidStrategy say how SQLite stores a value; "
                    + "on PostgreSQL the column's type says it: leave them unset")
        }
        let decoder = decoder.forRows(of: T.self)
        mapping = decoder.keyDecodingStrategy.mapping
        userInfo = decoder.userInfo
        usesGeneratedCode = decoder.usesGeneratedCode
    }

    /// Decodes one row.
    func decode<T: Decodable>(_ type: T.Type, from row: PostgresRow, columns: PostgresColumns) throws -> T {
        try decode(T.self, cells: Array(row), columns: columns)
    }

    /// Decodes one table's part of a joined row: the columns of `part` among `cells`, whose names are `columns`.
    func decode<T: Decodable>(
        _ type: T.Type, cells: [PostgresCell], columns: PostgresColumns, part: Range<Int>? = nil
    ) throws -> T {
        let reader = PostgresRowReader(cells: cells, columns: columns, mapping: mapping, part: part)
        let decoding = PostgresRowDecoding(
            reader: reader, mapping: mapping, userInfo: userInfo, usesGeneratedCode: usesGeneratedCode)
        decoding.beginRow()
        return try decoding.decode(T.self)
    }

    /// The value of the column at `index` of the row of `cells`, as a row's container reads it.
    static func value<T: Decodable>(_ type: T.Type, at index: Int, of cells: [PostgresCell], columns: PostgresColumns)
        throws -> T
    {
        let reader = PostgresRowReader(cells: cells, columns: columns, mapping: .useDefaultKeys)
        return try RowContext(reader: reader, mapping: .useDefaultKeys, userInfo: [:]).value(
            T.self, at: index, key: nil)
    }
}

/// Decodes the rows of one result as `T`, in order, one at a time as they arrive.
///
/// What the rows share is read once, from the first: the columns' names, types and formats
/// (``PostgresRowLayout``), and the columns its coding keys found (``PostgresKeyPlan``). Each row then only loads its
/// values into the one reader of StrataCore's decoding, and the standard library's types read the common binary
/// columns (`int2`, `int4`, `int8`, `float4`, `float8`, `bool`, `text`, `bytea`...)
/// directly; any other column, NULL, or a value that does not fit takes the general path with its errors.
struct PostgresResultDecoder<T: Decodable> {
    /// The key mapping and user info.
    private let decoder: PostgresRowDecoder
    /// The decoding of the rows, made for the first.
    private var decoding: PostgresRowDecoding?
    /// The rows decoded so far.
    private(set) var values: [T] = []

    /// A decoder of rows with `decoder`'s key mapping and user info.
    init(_ decoder: PostgresRowDecoder) {
        self.decoder = decoder
    }

    /// Decodes `row`, the next row of the result, and appends its value to ``values``.
    mutating func append(_ row: PostgresRow) throws {
        // Taken out while the row decodes, so that a decoding kept by nothing else is seen as such.
        var decoding =
            self.decoding
            ?? PostgresRowDecoding(
                reader: PostgresRowReader(layout: PostgresRowLayout(row: row), mapping: decoder.mapping),
                mapping: decoder.mapping, userInfo: decoder.userInfo, usesGeneratedCode: decoder.usesGeneratedCode)
        self.decoding = nil
        decoding.reader.load(row)
        decoding.beginRow()
        do {
            values.append(try decoding.decode(T.self))
        } catch {
            self.decoding = decoding
            throw error
        }
        // A decoder that the decoded value kept stays with that value and its row; the next rows get another, with
        // the columns the keys found.
        if !isKnownUniquelyReferenced(&decoding) {
            decoding = PostgresRowDecoding(
                reader: decoding.reader.successor(), mapping: decoder.mapping, userInfo: decoder.userInfo,
                usesGeneratedCode: decoder.usesGeneratedCode)
        }
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

/// StrataPostgres's ``ColumnReader``: the columns of one row.
///
/// It holds a row's cells (a single row, or a joined row of which it reads one table's part), or, for the rows of one
/// result, the values of the row being decoded with the result's ``PostgresRowLayout``: then one reader serves row
/// after row, and the common binary columns are read without building a cell; any other value is read by
/// ``PostgresCellReader``, with the same results and errors.
final class PostgresRowReader: ColumnReader {
    /// The row's cells, in column order, when there is no layout.
    private let cells: [PostgresCell]
    /// The result's layout, nil for a reader of `cells`.
    private let layout: PostgresRowLayout?
    /// The values of the row being decoded, in column order, when there is a layout.
    // The mutable state below is used by one row's decoding at a time, never by overlapping accesses: it goes
    // without the dynamic exclusivity checks, which cost more than the reads and writes themselves.
    @exclusivity(unchecked) private var values: [ByteBuffer?] = []
    /// The names of the columns the keys look in: all of the row's, or one table's part of a joined row.
    private let columns: PostgresColumns
    /// The index of the first column of `columns` in the row.
    private let offset: Int
    /// How coding keys find their columns.
    private let mapping: KeyMapping
    let columnNames: [String]
    /// The columns the keys of the result's first row found, in the order they were asked for; nil until the first
    /// row was decoded.
    @exclusivity(unchecked) private var plan: PostgresKeyPlan?
    /// How many keys this row has looked up so far, and how many rows began.
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var rows = 0
    /// The first row's key lookups, in order.
    @exclusivity(unchecked) private var recordedKeys: [String] = []
    @exclusivity(unchecked) private var recordedIndexes: [Int?] = []

    /// The reader of one row's `cells`, whose keys look in the columns of `part` (all when nil), named `columns`.
    init(cells: [PostgresCell], columns: PostgresColumns, mapping: KeyMapping, part: Range<Int>? = nil) {
        self.cells = cells
        self.columns = columns
        self.mapping = mapping
        offset = part?.lowerBound ?? 0
        columnNames = part == nil ? columns.names : cells.map(\.columnName)
        layout = nil
    }

    /// The reader of the rows of one result with `layout`, each loaded in turn with ``load(_:)``.
    init(layout: PostgresRowLayout, mapping: KeyMapping) {
        cells = []
        self.layout = layout
        columns = layout.columns
        columnNames = layout.columns.names
        offset = 0
        self.mapping = mapping
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
    }

    /// A reader for the next rows of the result, with the columns this one's keys found.
    func successor() -> PostgresRowReader {
        guard let layout else { return self }
        let next = PostgresRowReader(layout: layout, mapping: mapping)
        next.plan = plan ?? PostgresKeyPlan(keys: recordedKeys, indexes: recordedIndexes)
        next.rows = max(rows, 2)
        return next
    }

    var columnCount: Int { columnNames.count }

    func beginRow() {
        if rows == 1 { plan = PostgresKeyPlan(keys: recordedKeys, indexes: recordedIndexes) }
        rows += 1
        position = 0
    }

    /// The rows of one result ask for their keys in the same order: the n-th lookup of a row takes the column the
    /// n-th lookup of the first row found when it is for the same key, and maps and looks the key up otherwise.
    func columnIndex(forKey name: String) -> Int? {
        let index: Int?
        if let plan, position < plan.keys.count, plan.keys[position] == name {
            index = plan.indexes[position]
        } else {
            index = columns.index(of: mapping.name(for: name)).map { offset + $0 }
            if rows == 1 {
                recordedKeys.append(name)
                recordedIndexes.append(index)
            }
        }
        position += 1
        return index
    }

    func isNull(at index: Int) -> Bool {
        guard layout != nil else { return cells[index].bytes == nil }
        return values[index] == nil
    }

    func decodeBool(at index: Int) throws -> Bool {
        if let layout, let bytes = values[index], layout.kinds[index] == .bool,
            let byte = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self)
        {
            return byte != 0
        }
        return try PostgresCellReader.bool(from: cell(at: index))
    }

    func decodeString(at index: Int) throws -> String {
        if let bytes = bytes(at: index, .text) { return String(buffer: bytes) }
        return try PostgresCellReader.string(from: cell(at: index))
    }

    func decodeDouble(at index: Int) throws -> Double {
        if let value = directDouble(at: index) { return value }
        return try PostgresCellReader.double(from: cell(at: index))
    }

    func decodeFloat(at index: Int) throws -> Float {
        // As the general path reads a Float: through the Double it reads, unless that is beyond Float's range.
        if let value = directDouble(at: index), case let float = Float(value), float.isFinite || !value.isFinite {
            return float
        }
        return try PostgresCellReader.float(from: cell(at: index))
    }

    /// An integer from a binary int2, int4 or int8.
    func storedInteger(at index: Int) -> Int64? {
        guard let layout, let bytes = values[index] else { return nil }
        let at = bytes.readerIndex
        switch layout.kinds[index] {
        case .int8: return bytes.getInteger(at: at, as: Int64.self)
        case .int4: return bytes.getInteger(at: at, as: Int32.self).map { Int64($0) }
        case .int2: return bytes.getInteger(at: at, as: Int16.self).map { Int64($0) }
        default: return nil
        }
    }

    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I {
        try PostgresCellReader.integer(I.self, from: cell(at: index))
    }

    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int, otherwise: (Int) throws -> T) throws -> T {
        // Data, the one Foundation type of the usual models that has no concrete requirement, without the casts.
        if T.self == Data.self, let bytes = bytes(at: index, .bytea) {
            return unsafeBitCast(Data(bytes.readableBytesView), to: T.self)
        }
        return try PostgresCellReader.known(T.self, from: cell(at: index)) ?? otherwise(index)
    }

    func decodeNested<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        try PostgresCellReader.nested(T.self, from: cell(at: index))
    }

    /// The cell of the column at `index`.
    private func cell(at index: Int) -> PostgresCell {
        guard let layout else { return cells[index] }
        return layout.cell(values[index], at: index)
    }

    /// The value at `index` of a column of `kind`, when it is not NULL.
    private func bytes(at index: Int, _ kind: PostgresValueKind) -> ByteBuffer? {
        guard let layout, layout.kinds[index] == kind else { return nil }
        return values[index]
    }

    /// A Double from a binary float8 or float4.
    private func directDouble(at index: Int) -> Double? {
        guard let layout, let bytes = values[index] else { return nil }
        let at = bytes.readerIndex
        switch layout.kinds[index] {
        case .float8: return bytes.getInteger(at: at, as: UInt64.self).map { Double(bitPattern: $0) }
        case .float4: return bytes.getInteger(at: at, as: UInt32.self).map { Double(Float(bitPattern: $0)) }
        default: return nil
        }
    }
}
