extension Database {
    /// Inserts `model`. When its primary key is nil, the key SQLite assigns (the new rowid of an
    /// `INTEGER PRIMARY KEY`) is written back into `model`, which is read back whole from the
    /// inserted row (`INSERT ... RETURNING *`), with what defaults and triggers stored.
    ///
    /// - **An insert that inserts nothing throws.** When SQLite ignores it (`INSERT OR IGNORE`, an
    ///   `ON CONFLICT IGNORE` constraint, a trigger's `RAISE(IGNORE)`), the call throws
    ///   `DatabaseError.Code.recordNotInserted` and `model` is unchanged: it never receives another row.
    /// - **A nil key that SQLite does not assign throws.** Only an `INTEGER PRIMARY KEY` column gets a
    ///   key from SQLite; a nil `String` or `UUID` key throws `DatabaseError.Code.invalidArgument` and
    ///   no row is inserted.
    /// - **An insert that throws leaves no row.** When the row cannot be read back into `model` (a
    ///   trigger or the column's type changed a value), the insert is rolled back before the error is
    ///   thrown, so a caller that retries never writes the row twice. Inside a transaction, the failure
    ///   fails the transaction as a failed statement does, even when the caller catches it: it rolls back
    ///   when its block ends (run the insert in a nested `transaction { }` to go on after it).
    ///
    /// Repeated inserts of one type reuse one cached prepared statement.
    ///
    /// - Throws: `DatabaseError` for a constraint violation (`model` is then unchanged).
    ///
    /// See https://www.sqlite.org/lang_returning.html
    public func insert<T: Model>(_ model: inout T) throws {
        try insert(&model, bind: nil)
    }

    /// `insert(_:)`; `bind` is the generated writer of a `GeneratedRecord`, called from code specialized for it.
    @usableFromInline
    func insert<T: Model>(_ model: inout T, bind: GeneratedBinding<T>?) throws {
        if let statement = try write(&model, .insert, returning: .insertReturning, bind: bind) {
            try checkInserted(T.self, by: statement)
        }
    }

    /// Throws when the plain `INSERT` of a `T` that just ran inserted nothing.
    func checkInserted<T: Model>(_ type: T.Type, by statement: Statement) throws {
        if try changes == 0 { throw Self.notInserted(T.self, sql: statement.sql) }
    }

    /// Inserts `model`, leaving a nil primary key for SQLite to assign. Use ``insert(_:)`` with
    /// `inout` to read the assigned key back.
    public func insert<T: Model>(_ model: T) throws {
        var copy = model
        try insert(&copy)
    }

    /// Updates the row whose primary key is `model`'s with every column of `model`.
    ///
    /// - Throws: `DatabaseError.Code.recordNotFound` when no row has that key.
    public func update<T: Model>(_ model: T) throws {
        try update(model, bind: nil)
    }

    /// `update(_:)`; `bind` is the generated writer of a `GeneratedRecord`, called from code specialized for it.
    @usableFromInline
    func update<T: Model>(_ model: T, bind: GeneratedBinding<T>?) throws {
        let (statement, _, _) = try encodeRecord(model, statement: .update, bind: bind)
        try statement.perform()
        try checkUpdated(T.self, by: statement)
    }

    /// Throws when the `UPDATE` of a `T` that just ran found no row with its key.
    func checkUpdated<T: Model>(_ type: T.Type, by statement: Statement) throws {
        guard try changes > 0 else {
            throw DatabaseError(
                code: .recordNotFound,
                message: "could not update \(T.self): no row of \(T.tableName) has its \(T.primaryKey)",
                sql: statement.sql)
        }
    }

    /// Inserts `model`, or updates the row with its primary key when there is one
    /// (`INSERT ... ON CONFLICT DO UPDATE`). A nil primary key is assigned and read back as in `insert(_:)`.
    public func upsert<T: Model>(_ model: inout T) throws {
        try upsert(&model, bind: nil)
    }

    /// Inserts `model`, or updates the row with its primary key when there is one, when the row as written is not
    /// needed.
    ///
    /// ```swift
    /// try db.upsert(Note(id: 1, content: "hello"))
    /// ```
    public func upsert<T: Model>(_ model: T) throws {
        var written = model
        try upsert(&written, bind: nil)
    }

    /// `upsert(_:)`; `bind` is the generated writer of a `GeneratedRecord`, called from code specialized for it.
    @usableFromInline
    func upsert<T: Model>(_ model: inout T, bind: GeneratedBinding<T>?) throws {
        try write(&model, .upsert, returning: .upsertReturning, bind: bind)
    }

    /// Deletes the row with `model`'s primary key.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ model: T) throws -> Bool {
        let (statement, _, _) = try encodeRecord(model, statement: .delete, allKeys: false)
        try statement.perform()
        return try changes > 0
    }

    /// Deletes the row of `type` whose primary key is `id`.
    ///
    /// - Returns: Whether a row was deleted.
    @discardableResult
    public func delete<T: Model>(_ type: T.Type, id: some DatabaseValueConvertible) throws -> Bool {
        let statement = try cachedStatement(for: try tableSQL(for: T.self).deleteByID)
        try statement.bind(value: id, at: 1)
        try statement.perform()
        return try changes > 0
    }

    // MARK: Internal

    /// Runs the `plain` statement of `model`, or, when its primary key is nil, its `returning` twin, which
    /// writes the row and reads it back into `model`.
    ///
    /// - Returns: The plain statement that ran, nil when the row was read back.
    @discardableResult
    private func write<T: Model>(
        _ model: inout T, _ plain: RecordStatements.Kind, returning: RecordStatements.Kind, bind: GeneratedBinding<T>?
    ) throws -> Statement? {
        let (statement, keyIsNil, record) = try encodeWrite(model, plain, returning: returning, bind: bind)
        guard keyIsNil else {
            try statement.perform()
            return statement
        }
        var decoding: StatementDecoding?
        model = try atomically { try readBack(T.self, from: statement, record, decoding: &decoding) }
        return nil
    }

    /// Encodes `model` into the `plain` statement of its type, or, when its primary key is nil, into its `returning`
    /// twin; nothing runs yet.
    ///
    /// The statement is chosen before encoding by the last call's key (a batch of new models encodes once
    /// each); a wrong guess costs one encode more. Nothing here makes an `Optional<T>`: this runs
    /// unspecialized in callers' modules, where each one costs a metadata look-up.
    ///
    /// - Returns: The encoded statement, whether the key was nil (the statement is then `returning`), and the SQL of
    ///   the type.
    func encodeWrite<T: Model>(
        _ model: T, _ plain: RecordStatements.Kind, returning: RecordStatements.Kind, bind: GeneratedBinding<T>?
    ) throws -> (statement: Statement, keyIsNil: Bool, record: RecordStatements) {
        var (statement, encoding, record) = try encodeRecord(
            model, statement: plain, returning: returning, watchPrimaryKey: true, bind: bind)
        if encoding.binder.watchedWasNull != record.lastKeyWasNil {
            record.lastKeyWasNil = encoding.binder.watchedWasNull
            (statement, encoding, record) = try encodeRecord(
                model, statement: plain, returning: returning, watchPrimaryKey: true, bind: bind)
        }
        return (statement, encoding.binder.watchedWasNull, record)
    }

    /// Runs the encoded `RETURNING` statement of a `T` with a nil key, to its end, and reads the row it wrote.
    /// The caller makes it atomic: when this throws after the write, the row must be rolled back.
    ///
    /// `decoding` is the decoder of the last row read back, reused when it reads the same statement (a batch reads
    /// row after row with one); a new one is kept there otherwise.
    func readBack<T: Model>(
        _ type: T.Type, from statement: Statement, _ record: RecordStatements, decoding kept: inout StatementDecoding?
    ) throws -> T {
        defer { statement.reset() }
        guard try statement.advance() else {
            throw Self.notInserted(T.self, sql: statement.sql)
        }
        let key = record.columns[Int(record.insertPrimaryKeyParameter) - 1]
        guard let index = statement.columnIndex(named: key), !statement.isNull(at: index) else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "could not insert \(T.self) with a nil \(record.primaryKeyKey): SQLite assigns a key "
                    + "only to an INTEGER PRIMARY KEY column; set the key before inserting",
                sql: statement.sql)
        }
        let decoding: StatementDecoding
        if let kept, kept.reader.statement === statement {
            decoding = kept
        } else {
            decoding = T.rowDecoder.makeDecoding(for: statement)
            kept = decoding
        }
        let inserted = try decoding.decodeRow(T.self)
        // The write happened at the first step; this ends the statement as a write should end.
        _ = try statement.advance()
        return inserted
    }

    /// Runs `body` so that what it wrote is kept only when it returns: inside a transaction block, by failing the
    /// block when `body` throws (the block rolls back when it ends, and refuses every statement until then), with no
    /// statement of its own; in a savepoint inside a transaction the caller's SQL began; in a transaction of its own
    /// outside one. The statements are cached, so a savepoint or a transaction costs two steps, not two compiles.
    ///
    /// Failing the block is the rule of a failed statement, on both backends (PostgreSQL cannot undo a write whose
    /// rows fail to decode without a savepoint, a round trip each way): an insert read back, or rows a write returns,
    /// that do not decode fail the enclosing block even when its body catches the error. `recordNotInserted`, after
    /// which nothing was written, fails nothing.
    ///
    /// `immediate` begins a transaction of its own with `BEGIN IMMEDIATE`, which takes the write lock at once;
    /// otherwise the savepoint begins it, as `BEGIN DEFERRED` would, and the first statement of `body` takes
    /// the locks it needs, or fails with its own error.
    ///
    /// See https://www.sqlite.org/lang_savepoint.html
    ///
    /// `containing` makes `body` a transaction block of its own (see `runBlock`) in a savepoint: a statement that
    /// fails in it fails `body` and rolls back its savepoint, and leaves the enclosing block going, as a nested
    /// `transaction { }` does. A batch insert is such a unit.
    @usableFromInline
    func atomically<Result>(immediate: Bool = true, containing: Bool = false, _ body: () throws -> Result) throws
        -> Result
    {
        if !containing, connection.isInBlock {
            do {
                return try body()
            } catch {
                if DatabaseError.failsItsBlock(readingWrittenRows: error) { connection.failBlock(error) }
                throw error
            }
        }
        let nested = isInTransaction
        let savepoint = nested || !immediate
        try cachedStatement(for: savepoint ? "SAVEPOINT strata_record" : "BEGIN IMMEDIATE").perform()
        let result: Result
        do {
            result = containing ? try runBlock(body) : try body()
        } catch {
            if isInTransaction {
                // A failed rollback leaves the error of `body` as the one the caller needs.
                if nested {
                    try? cachedStatement(for: "ROLLBACK TO strata_record").perform()
                    try? cachedStatement(for: "RELEASE strata_record").perform()
                } else {
                    try? cachedStatement(for: "ROLLBACK").perform()
                }
            }
            throw error
        }
        do {
            try cachedStatement(for: savepoint ? "RELEASE strata_record" : "COMMIT").perform()
        } catch {
            if !nested, isInTransaction { try? cachedStatement(for: "ROLLBACK").perform() }
            throw error
        }
        return result
    }

    static func notInserted<T: Model>(_ type: T.Type, sql: String) -> DatabaseError {
        DatabaseError(
            code: .recordNotInserted,
            message: "the insert of \(T.self) inserted no row: SQLite ignored it (INSERT OR IGNORE, an ON CONFLICT "
                + "IGNORE constraint or a trigger's RAISE(IGNORE)); the model is unchanged",
            sql: sql)
    }
}
