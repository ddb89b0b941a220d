import Foundation

/// The SQL of one model type (``RecordSQL``) with its prepared statements, built once per connection: a row of a
/// batch insert costs no SQL hashing or preparing.
final class RecordStatements {
    /// The statements of a record type.
    enum Kind: Int, CaseIterable {
        /// `insert` and `upsert` with `RETURNING *`, for a nil primary key: the row comes back from the
        /// statement that wrote it, or no row comes back when SQLite ignored the insert.
        case insert, insertReturning, update, upsert, upsertReturning, delete
    }

    /// The SQL, in SQLite's dialect.
    let text: RecordSQL

    /// Coding keys in encoding order, and the column each maps to.
    var keys: [String] { text.keys }
    var columns: [String] { text.columns }
    /// The coding key of the primary key.
    var primaryKeyKey: String { text.primaryKeyKey }
    /// The 1-based index of the primary key parameter in `insert`.
    var insertPrimaryKeyParameter: Int32 { text.insertPrimaryKeyParameter }

    init(_ text: RecordSQL) {
        self.text = text
    }

    /// The statements of the same type for other sets of keys, by their keys: a value whose `encode(to:)` leaves a
    /// key out runs statements without its column (DEFAULT on insert, kept on update). At most `maximumVariants`.
    @exclusivity(unchecked) var variants: [[String]: RecordStatements] = [:]
    static let maximumVariants = 16

    /// Whether the last `insert` or `upsert` of this type had a nil primary key: the next one most
    /// likely does too, so it is encoded into the `RETURNING` statement first.
    @exclusivity(unchecked) var lastKeyWasNil = false

    /// Prepared statements by `Kind`, made on first use, and the encoding of each one's last pass.
    @exclusivity(unchecked) private var prepared = [Statement?](repeating: nil, count: Kind.allCases.count)
    @exclusivity(unchecked) private var encodings = [StatementEncoding?](repeating: nil, count: Kind.allCases.count)
    @exclusivity(unchecked) private var generatedEncodings = [StatementEncoding?](
        repeating: nil, count: Kind.allCases.count)

    func sql(_ kind: Kind) -> String {
        switch kind {
        case .insert: text.insert
        case .insertReturning: text.insert + text.returning
        case .update: text.update
        case .upsert: text.upsert
        case .upsertReturning: text.upsert + text.returning
        case .delete: text.delete
        }
    }

    /// The prepared statement of `kind`, with the database's current strategies. A statement in
    /// use further up the stack is not shared: a fresh one is prepared instead.
    func statement(_ kind: Kind, in database: Database) throws -> Statement {
        if let statement = prepared[kind.rawValue], !statement.isLeased {
            statement.strategies = database.strategies
            return statement
        }
        let statement = try Statement(database: database, sql: sql(kind), persistent: true)
        if prepared[kind.rawValue] == nil {
            prepared[kind.rawValue] = statement
        }
        return statement
    }

    /// The encoding of a generated record's pass over the `kind` statement (see `Database.writeGenerated`): the one
    /// kept from the last pass while its statement is free and the database's strategies are the same, otherwise a
    /// new one, kept when its statement is the cached one.
    @inline(__always)
    func generatedEncoding(_ kind: Kind, in database: Database) throws -> StatementEncoding {
        let strategies = database.strategies
        if let encoding = generatedEncodings[kind.rawValue], !encoding.binder.statement.isLeased,
            encoding.binder.strategies == strategies
        {
            return encoding
        }
        let statement = try statement(kind, in: database)
        // Parameters are named after the coding keys, as for the Codable pass of `encodeRecord`.
        let encoding = StatementEncoding(
            binder: StatementBinder(statement: statement, mapping: .useDefaultKeys, strategies: strategies),
            sql: statement.sql)
        if prepared[kind.rawValue] === statement { generatedEncodings[kind.rawValue] = encoding }
        return encoding
    }

    /// The encoding of the last pass over `statement`, when it is the cached statement of `kind`.
    func lastEncoding(_ kind: Kind, for statement: Statement) -> StatementEncoding? {
        guard let encoding = encodings[kind.rawValue], prepared[kind.rawValue] === statement else { return nil }
        return encoding
    }

    /// Keeps `encoding` for the next pass when its statement is the cached statement of `kind`.
    func keep(_ encoding: StatementEncoding, for kind: Kind) {
        if prepared[kind.rawValue] === encoding.binder.statement { encodings[kind.rawValue] = encoding }
    }
}

/// The SQL of one model type that needs only its table and primary key (``TableSQL``), with its prepared `find`
/// statement, built once per connection.
@usableFromInline
final class TableStatements {
    /// The SQL, in SQLite's dialect.
    let text: TableSQL

    /// The decoder reading the rows of the prepared `find` statement, reused lookup after lookup.
    @exclusivity(unchecked) private var findDecoding: StatementDecoding?

    /// A decoder for `T` on the `find` statement (its `statement`).
    @inline(__always)
    func finder<T: Model>(for type: T.Type, in database: Database) throws -> StatementDecoding {
        if let decoding = findDecoding, !decoding.statement.isLeased, decoding.reader.strategies == database.strategies
        {
            decoding.statement.strategies = database.strategies
            return decoding
        }
        let statement = try Statement(database: database, sql: text.find, persistent: true)
        let decoding = T.rowDecoder.makeDecoding(for: statement)
        if findDecoding.map({ !$0.statement.isLeased }) ?? true {
            findDecoding = decoding
        }
        return decoding
    }

    init(_ text: TableSQL) {
        self.text = text
    }
}

extension Database {
    /// A decoder for `T` on the `find` statement of `T` (its `statement`), cached on the connection.
    @usableFromInline
    func finder<T: Model>(for type: T.Type) throws -> StatementDecoding {
        try tableStatements(for: T.self).finder(for: T.self, in: self)
    }

    /// The table-level SQL of `T`, cached on the connection.
    @inline(__always)
    func tableSQL<T: Model>(for type: T.Type) throws -> TableSQL {
        try tableStatements(for: T.self).text
    }

    /// The table-level SQL of `T` and its prepared `find` statement, cached on the connection.
    @usableFromInline @inline(__always)
    func tableStatements<T: Model>(for type: T.Type) throws -> TableStatements {
        if let statements = tableSQLCache.value(for: T.self) { return statements }
        let statements = TableStatements(try TableSQL(for: T.self, dialect: SQLiteDialect()))
        tableSQLCache.set(statements, for: T.self)
        return statements
    }
}

extension Database {
    /// The SQL for `T`, built from the keys `instance` encodes and cached on the connection.
    func recordSQL<T: Model>(for type: T.Type, instance: T) throws -> RecordStatements {
        if let sql = recordSQLCache.value(for: T.self) { return sql }
        let collector = KeyCollector()
        try instance.encode(to: collector)
        return try cacheRecordSQL(for: T.self, keys: collector.keys)
    }

    /// The SQL for a generated record type, built from its keys and cached on the connection.
    @inline(__always)
    func recordSQL<T: GeneratedRecord>(for type: T.Type) throws -> RecordStatements {
        if let sql = recordSQLCache.value(for: T.self) { return sql }
        return try cacheRecordSQL(for: T.self, keys: T.recordKeys)
    }

    /// Builds and caches the SQL of `T` for `keys`, replacing what was cached.
    @discardableResult
    func cacheRecordSQL<T: Model>(for type: T.Type, keys: [String]) throws -> RecordStatements {
        let sql = RecordStatements(try RecordSQL(for: T.self, keys: keys, dialect: SQLiteDialect()))
        recordSQLCache.set(sql, for: T.self)
        return sql
    }

    /// The SQL of `T` for exactly `keys`: `record` when they are its keys, otherwise one of its variants, built
    /// and kept on first use.
    func recordSQL<T: Model>(for type: T.Type, keys: [String], from record: RecordStatements) throws
        -> RecordStatements
    {
        if keys == record.keys { return record }
        if let variant = record.variants[keys] { return variant }
        let variant = RecordStatements(try RecordSQL(for: T.self, keys: keys, dialect: SQLiteDialect()))
        if record.variants.count >= RecordStatements.maximumVariants { record.variants.removeAll() }
        record.variants[keys] = variant
        return variant
    }

    /// Encodes `model` into the cached statement of `kind`; when the model encoded other keys than the cached SQL
    /// names (a custom `encode(to:)` that skips nil values), it is encoded again into the statement for exactly its
    /// keys: a key a value leaves out is left out of its statement (its column's DEFAULT on insert, its value kept
    /// on update), whatever the connection wrote before.
    ///
    /// `allKeys` is false for statements that bind only some keys on purpose (`DELETE` binds the primary key).
    /// `returning` is the statement to use instead of `kind` when the last insert of the type had a nil key.
    /// `bind` is the generated writer of a `GeneratedRecord`, called from code specialized for it.
    func encodeRecord<T: Model>(
        _ model: T, statement kind: RecordStatements.Kind, returning: RecordStatements.Kind? = nil,
        watchPrimaryKey: Bool = false, allKeys: Bool = true, bind: GeneratedBinding<T>? = nil
    ) throws -> (Statement, StatementEncoding, RecordStatements) {
        var record = try recordSQL(for: T.self, instance: model)
        for _ in 0..<2 {
            var chosen = kind
            if let returning, record.lastKeyWasNil { chosen = returning }
            let statement = try record.statement(chosen, in: self)
            let watched = watchPrimaryKey ? record.insertPrimaryKeyParameter : 0
            let encoding = try StatementEncoder.standard.encodePass(
                model, to: statement, watching: watched, forRecord: true,
                reusing: record.lastEncoding(chosen, for: statement), bind: bind)
            record.keep(encoding, for: chosen)
            if allKeys, !encoding.pass.boundExactly {
                let leftOut = leftOutKeys(encoding, of: statement, record)
                let skipped = encoding.pass.skippedKeys
                if !leftOut.isEmpty || !skipped.isEmpty {
                    let keys = record.keys.filter { !leftOut.contains($0) } + skipped
                    record = try recordSQL(for: T.self, keys: keys, from: recordSQLCache.value(for: T.self) ?? record)
                    continue
                }
            }
            if !encoding.binder.preciseDecimalParameters.isEmpty {
                try checkDecimalColumns(encoding.binder.preciseDecimalParameters, of: statement, record, T.self)
            }
            return (statement, encoding, record)
        }
        throw DatabaseError(
            code: .invalidArgument, message: "\(T.self) encodes keys that its table SQL cannot hold",
            sql: record.sql(kind))
    }
}

extension Database {
    /// The keys whose parameters a record's pass left unbound (the value did not encode them), but the primary
    /// key's: a left-out key is a nil key, which the insert assigns.
    func leftOutKeys(_ encoding: StatementEncoding, of statement: Statement, _ record: RecordStatements) -> [String] {
        let unbound = encoding.pass.unboundParameters
        guard !unbound.isEmpty else { return [] }
        return statement.parameterIndexes().compactMap { name, indexes in
            name != record.primaryKeyKey && indexes.contains { unbound.contains(Int($0)) } ? name : nil
        }
    }

    /// Throws when a Decimal with more significant digits than a REAL keeps is about to be written to a
    /// column with INTEGER, REAL or NUMERIC affinity, which would turn it into a REAL and lose digits.
    ///
    /// Only such values pay for the look-up of the column's declared type; it is read from the schema each
    /// time, so it cannot go stale.
    ///
    /// See https://www.sqlite.org/datatype3.html#type_affinity
    func checkDecimalColumns<T: Model>(
        _ parameters: [Int32], of statement: Statement, _ record: RecordStatements, _ type: T.Type
    ) throws {
        let names = statement.parameterIndexes()
        for parameter in parameters {
            guard let key = names.first(where: { $0.value.contains(parameter) })?.key,
                let offset = record.keys.firstIndex(of: key)
            else { continue }
            try checkDecimalColumn(record.columns[offset], of: T.tableName, sql: statement.sql)
        }
    }

    /// Throws when `column` of `table` has INTEGER, REAL or NUMERIC affinity, which would store a Decimal with more
    /// than 15 significant digits as a REAL. The declared type is read from the schema each time.
    func checkDecimalColumn(_ column: String, of table: String, sql: String?) throws {
        let declared = try fetchOne(
            String.self, query: "SELECT type FROM pragma_table_xinfo(:table) WHERE name = :column",
            parameters: ["table": table, "column": column])
        guard let declared, let affinity = NumericAffinity(declaredType: declared) else { return }
        throw DatabaseError(
            code: .valueOutOfRange,
            message: "could not store a Decimal with more than 15 significant digits in column \"\(column)\" of "
                + "\(table), declared \(declared): SQLite stores number-like text in a column with "
                + "\(affinity) affinity as a REAL, which keeps 15 digits; declare the column TEXT to keep every digit",
            sql: sql, column: column)
    }
}

/// The affinity SQLite gives a declared column type, when it converts number-like text to numbers.
///
/// See https://www.sqlite.org/datatype3.html#determination_of_column_affinity
enum NumericAffinity: String, CustomStringConvertible {
    case integer = "INTEGER", real = "REAL", numeric = "NUMERIC"

    /// Nil for TEXT and BLOB affinity, which store text as it is.
    init?(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            return nil
        } else if type.contains("BLOB") || type.isEmpty {
            return nil
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    var description: String { rawValue }
}
