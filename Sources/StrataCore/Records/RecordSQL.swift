/// The record statements of one model type in one dialect: the `INSERT`, `UPDATE`, upsert and `DELETE` that
/// `insert`, `update`, `upsert` and `delete` run, for the coding keys a model encodes.
///
/// Each statement names its parameters after the coding keys, in the dialect's ``SQLDialect/namedPlaceholder(_:)``
/// (`:createdAt`), so a backend binds a model with ``StatementEncoder/encode(_:to:)`` and a ``ParameterBinder``
/// that finds each key's parameter by that name; the columns are the keys through the model's key strategy. SQLite
/// builds one per type and connection and keeps it with its prepared statements; StrataPostgres sends the named
/// parameters as `$n`.
///
/// ```swift
/// let record = try RecordSQL(for: note, dialect: SQLiteDialect())
/// record.insert   // INSERT INTO "note" ("id", "content") VALUES (:id, :content)
/// record.update   // UPDATE "note" SET "content" = :content WHERE "id" = :id
/// ```
public final class RecordSQL: Sendable {
    /// The coding keys, in the order the model encodes them.
    public let keys: [String]
    /// The column of each of ``keys``, through the model's key strategy.
    public let columns: [String]
    /// The coding key of the primary key.
    public let primaryKeyKey: String
    /// `INSERT INTO table (columns) VALUES (parameters)`.
    public let insert: String
    /// `UPDATE table SET column = parameter, ... WHERE key = parameter`: every column but the key.
    public let update: String
    /// ``insert`` followed by the dialect's ``SQLDialect/upsertClause(conflictColumn:columns:)`` on the key.
    public let upsert: String
    /// `DELETE FROM table WHERE key = parameter`.
    public let delete: String
    /// ``insert`` with `DEFAULT` in place of the primary key's parameter, for a dialect whose key column assigns its
    /// value only when the insert leaves it to its default (PostgreSQL's `serial` and identity columns; an explicit
    /// NULL there is a NOT NULL violation). SQLite never runs it: NULL in an `INTEGER PRIMARY KEY` assigns the rowid.
    public let insertDefaultingKey: String
    /// ``upsert`` with `DEFAULT` in place of the primary key's parameter, as ``insertDefaultingKey``.
    public let upsertDefaultingKey: String
    /// What the dialect appends to a write to return the row written (``SQLDialect/returningAllColumns``).
    public let returning: String
    /// The 1-based index of the primary key parameter in `insert`.
    package let insertPrimaryKeyParameter: Int32

    /// The record statements of `model`'s type for the coding keys `model` encodes (a nil optional is a key too).
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the type has no table name, no key for its primary key,
    ///   or a coding key that cannot name a parameter (letters, digits and underscores only); the error `model`'s
    ///   `encode(to:)` throws.
    public convenience init<T: Model>(for model: T, dialect: some SQLDialect) throws {
        let collector = KeyCollector()
        try model.encode(to: collector)
        try self.init(for: T.self, keys: collector.keys, dialect: dialect)
    }

    /// The record statements of `type` for `keys`, its coding keys in the order its values bind.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the type has no table name, `keys` has no key for its
    ///   primary key, or a key cannot name a parameter (letters, digits and underscores only).
    public init<T: Model>(for type: T.Type, keys: [String], dialect: some SQLDialect) throws {
        guard !T.tableName.isEmpty else {
            throw DatabaseError(code: .invalidArgument, message: "\(T.self).tableName is empty")
        }
        let mapping = T.keyEncodingStrategy.mapping
        let columns = keys.map { mapping.name(for: $0) }
        guard let primaryKeyOffset = columns.firstIndex(of: T.primaryKeyColumn) else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "\(T.self) has no coding key for its primary key \"\(T.primaryKey)\" "
                    + "(column \"\(T.primaryKeyColumn)\"); its keys are \(keys.joined(separator: ", "))")
        }
        // Parameters are named after the coding keys, so the encoder binds them without a mapping.
        for key in keys where !Self.isParameterName(key) {
            throw DatabaseError(
                code: .invalidArgument,
                message: "\(T.self) has the coding key \"\(key)\", which cannot name an SQL parameter; "
                    + "use letters, digits and underscores")
        }
        let table = try dialect.quote(T.tableName)
        let quoted = try columns.map(dialect.quote)
        let primaryKeyColumn = quoted[primaryKeyOffset]
        let primaryKeyParameter = dialect.namedPlaceholder(keys[primaryKeyOffset])
        let parameters = keys.map(dialect.namedPlaceholder)
        let others = zip(quoted, parameters).enumerated().filter { $0.offset != primaryKeyOffset }.map(\.element)

        self.keys = keys
        self.columns = columns
        self.primaryKeyKey = keys[primaryKeyOffset]
        self.insertPrimaryKeyParameter = Int32(primaryKeyOffset + 1)
        insert =
            "INSERT INTO \(table) (\(quoted.joined(separator: ", "))) VALUES (\(parameters.joined(separator: ", ")))"
        let assignments = others.map { "\($0.0) = \($0.1)" }.joined(separator: ", ")
        update =
            others.isEmpty
            ? "UPDATE \(table) SET \(primaryKeyColumn) = \(primaryKeyParameter) WHERE \(primaryKeyColumn) = \(primaryKeyParameter)"
            : "UPDATE \(table) SET \(assignments) WHERE \(primaryKeyColumn) = \(primaryKeyParameter)"
        let conflict = dialect.upsertClause(conflictColumn: primaryKeyColumn, columns: others.map(\.0))
        upsert = insert + conflict
        var defaulted = parameters
        defaulted[primaryKeyOffset] = "DEFAULT"
        insertDefaultingKey =
            "INSERT INTO \(table) (\(quoted.joined(separator: ", "))) VALUES (\(defaulted.joined(separator: ", ")))"
        upsertDefaultingKey = insertDefaultingKey + conflict
        delete = "DELETE FROM \(table) WHERE \(primaryKeyColumn) = \(primaryKeyParameter)"
        returning = dialect.returningAllColumns
    }

    static func isParameterName(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return key.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0)
        }
    }
}

/// The statements of one model type that need only its table and primary key: `find`, `fetchAll` of the type and
/// `delete` by key, in one dialect. SQLite builds them once per type and connection.
///
/// ```swift
/// let table = try TableSQL(for: Note.self, dialect: SQLiteDialect())
/// table.find   // SELECT * FROM "note" WHERE "id" = ?
/// ```
public final class TableSQL: Sendable {
    /// The quoted table name.
    public let table: String
    /// The quoted primary key column.
    public let primaryKey: String
    /// The row whose key is the one bound value (the dialect's ``SQLDialect/placeholder(_:)`` 1).
    public let find: String
    /// Every row, in primary key order.
    public let fetchAll: String
    /// Deletes the row whose key is the one bound value.
    public let deleteByID: String

    /// The statements of `type`.
    ///
    /// - Throws: ``DatabaseError/Code/invalidArgument`` when the type has no table name, or a name has a NUL
    ///   character.
    public init<T: Model>(for type: T.Type, dialect: some SQLDialect) throws {
        guard !T.tableName.isEmpty else {
            throw DatabaseError(code: .invalidArgument, message: "\(T.self).tableName is empty")
        }
        table = try dialect.quote(T.tableName)
        primaryKey = try dialect.quote(T.primaryKeyColumn)
        find = "SELECT * FROM \(table) WHERE \(primaryKey) = \(dialect.placeholder(1))"
        fetchAll = "SELECT * FROM \(table) ORDER BY \(primaryKey)"
        deleteByID = "DELETE FROM \(table) WHERE \(primaryKey) = \(dialect.placeholder(1))"
    }
}

/// Collects the coding keys a value encodes at its top level, in order, without encoding any value.
package final class KeyCollector: Encoder {
    package var keys: [String] = []

    package init() {}

    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container<Key>(collector: self))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingUnkeyedContainer(codingPath: []) }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        ColumnEncoder(strategies: ValueStrategies(), codingPath: [], userInfo: [:])
    }

    func add(_ key: String) {
        if !keys.contains(key) { keys.append(key) }
    }

    struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let collector: KeyCollector
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { collector.add(key.stringValue) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { collector.add(key.stringValue) }
        // Every overload: the standard library's defaults for the concrete ones skip nil, and a
        // nil optional is still a column.
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { add(key) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { add(key) }

        private func add(_ key: Key) { collector.add(key.stringValue) }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            collector.add(key.stringValue)
            return KeyedEncodingContainer(DiscardingKeyedContainer<NestedKey>(codingPath: []))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            collector.add(key.stringValue)
            return DiscardingUnkeyedContainer(codingPath: [])
        }

        mutating func superEncoder() -> any Encoder { collector }
        mutating func superEncoder(forKey key: Key) -> any Encoder { collector }
    }
}
