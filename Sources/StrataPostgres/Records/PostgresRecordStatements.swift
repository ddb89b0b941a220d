internal import StrataCore

/// The statements of one model type for one list of coding keys, in PostgreSQL's dialect and with their `$n`
/// numbered: what ``PostgresSession``'s record methods send, built once per type rather than once per call.
///
/// Only what the type says is kept (its table name, primary key, key mapping and the coding keys a model encodes),
/// never anything read from the server, so that no schema change can make it stale. It is checked against each
/// model before use: a model whose encoding gives other keys, or a type whose table name changed, builds anew.
final class PostgresRecordStatements: Sendable {
    /// The coding keys in encoding order, which name the parameters.
    let keys: [String]
    /// The type's table name and primary key when the statements were built.
    let tableName: String
    let primaryKey: String
    /// The index in `keys` of the primary key.
    let primaryKeyIndex: Int
    let insert: Text
    let insertDefaultingKeyReturning: Text
    let update: Text
    let upsert: Text
    let upsertDefaultingKeyReturning: Text
    let delete: Text

    /// One statement: its SQL with `$n`, and for each `$n` the index in `keys` of its value.
    struct Text: Sendable {
        /// The SQL as Strata's record SQL writes it, with `:key` parameters, for errors.
        let original: String
        let sql: String
        let valueIndexes: [Int]

        /// The statement with `values`, which are in the order of `keys`.
        func statement(_ values: [PostgresValue]) -> PostgresStatement {
            PostgresStatement(sql: sql, values: valueIndexes.map { values[$0] }, isRecordSQL: true)
        }
    }

    /// Builds the statements of `T` for `keys`.
    ///
    /// - Throws: What `RecordSQL` throws for such a type and keys.
    init<T: Model>(for type: T.Type, keys: [String]) throws {
        let record = try RecordSQL(for: T.self, keys: keys, dialect: PostgresDialect())
        func text(_ sql: String) throws -> Text {
            let parsed = try PostgresStatementText(sql, positionalCount: 0, questionMarks: false)
            let valueIndexes = try parsed.names.map { name in
                guard let index = keys.firstIndex(of: name) else {
                    throw DatabaseError(
                        code: .unknownParameter, message: "no value for the parameter :\(name)", sql: sql)
                }
                return index
            }
            return Text(original: sql, sql: parsed.sql, valueIndexes: valueIndexes)
        }
        guard let primaryKeyIndex = keys.firstIndex(of: record.primaryKeyKey) else {
            throw DatabaseError(code: .invalidArgument, message: "\(T.self) has no coding key for its primary key")
        }
        self.keys = keys
        self.tableName = T.tableName
        self.primaryKey = T.primaryKey
        self.primaryKeyIndex = primaryKeyIndex
        insert = try text(record.insert)
        insertDefaultingKeyReturning = try text(record.insertDefaultingKey + record.returning)
        update = try text(record.update)
        upsert = try text(record.upsert)
        upsertDefaultingKeyReturning = try text(record.upsertDefaultingKey + record.returning)
        delete = try text(record.delete)
    }

    /// Whether these statements are those of `T` for a model that encoded `keys`.
    func fits<T: Model>(_ type: T.Type, keys: [String]) -> Bool {
        self.keys == keys && tableName == T.tableName && primaryKey == T.primaryKey
    }
}

/// The SQL of a model type that needs only its table and primary key: `find`, `fetchAll` and delete by id.
final class PostgresTableStatements: Sendable {
    /// The type's table name and primary key when the SQL was built.
    let tableName: String
    let primaryKey: String
    let find: String
    let fetchAll: String
    let deleteByID: String

    init<T: Model>(for type: T.Type) throws {
        let sql = try TableSQL(for: T.self, dialect: PostgresDialect())
        tableName = T.tableName
        primaryKey = T.primaryKey
        find = sql.find
        fetchAll = sql.fetchAll
        deleteByID = sql.deleteByID
    }

    /// Whether this is the SQL of `T` as it is now.
    func fits<T: Model>(_ type: T.Type) -> Bool {
        tableName == T.tableName && primaryKey == T.primaryKey
    }
}

/// The statements of each model type, shared by every session of the process: they depend on the type alone.
enum PostgresStatementCache {
    private static let records = LockedValue<[ObjectIdentifier: PostgresRecordStatements]>([:])
    private static let tables = LockedValue<[ObjectIdentifier: PostgresTableStatements]>([:])

    /// The record statements of `T` for a model that encoded `keys`, built when none fit.
    static func record<T: Model>(for type: T.Type, keys: [String]) throws -> PostgresRecordStatements {
        let identifier = ObjectIdentifier(T.self)
        if let cached = records.withLock({ $0[identifier] }), cached.fits(T.self, keys: keys) { return cached }
        let built = try PostgresRecordStatements(for: T.self, keys: keys)
        records.withLock { $0[identifier] = built }
        return built
    }

    /// The table SQL of `T`, built when none fits.
    static func table<T: Model>(for type: T.Type) throws -> PostgresTableStatements {
        let identifier = ObjectIdentifier(T.self)
        if let cached = tables.withLock({ $0[identifier] }), cached.fits(T.self) { return cached }
        let built = try PostgresTableStatements(for: T.self)
        tables.withLock { $0[identifier] = built }
        return built
    }
}
