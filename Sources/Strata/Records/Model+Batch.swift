extension Database {
    /// Inserts every model of `models` in one transaction, and writes the primary key SQLite assigns into each model
    /// whose key was nil.
    ///
    /// Each model is inserted as `insert(&model)` inserts it, on the same cached prepared statements: a model with a
    /// nil key is replaced by its row as stored (`INSERT ... RETURNING *`), with the new rowid and what defaults and
    /// triggers stored; a model with a key is inserted as it is and left unchanged.
    ///
    /// ```swift
    /// var notes = [Note(id: nil, content: "first"), Note(id: nil, content: "second")]
    /// try db.insert(contentsOf: &notes)
    /// print(notes.map(\.id))  // [Optional(1), Optional(2)]
    /// ```
    ///
    /// - **A batch is all or nothing.** The rows are written in one transaction of their own (`BEGIN IMMEDIATE` ...
    ///   `COMMIT`), or in a savepoint when a transaction is open, which the outer transaction can still roll back.
    ///   When one row fails, none of the batch is kept and `models` is unchanged: no key is filled in. Inside a
    ///   `write` or `transaction { }`, a failed batch is like a failed nested `transaction { }`: it rolls back on
    ///   its own and the enclosing block goes on.
    /// - **A failed batch names the element that failed**, by its index in `models`: a `DatabaseError` has it in
    ///   `DatabaseError.elementIndex`, and keeps the `DatabaseError.code`, `DatabaseError.resultCode` and SQL
    ///   that `insert(&model)` would have thrown; an `EncodingError` or `DecodingError` has it as the first key of its
    ///   coding path, as `JSONEncoder` locates an element of an array; any other error is the
    ///   `DatabaseError.underlyingError` of a `DatabaseError.Code.invalidArgument` error that has the index.
    /// - **An ignored insert fails the batch.** When SQLite ignores a row (`INSERT OR IGNORE`, an `ON CONFLICT
    ///   IGNORE` constraint, a trigger's `RAISE(IGNORE)`), the batch throws `DatabaseError/Code/recordNotInserted`
    ///   and is rolled back.
    /// - **An empty array is a no-op**: no statement runs and no transaction begins.
    ///
    /// - Complexity: O(n) runs of one cached prepared statement per kind of key (nil or set): nothing is prepared
    ///   again row after row, and the transaction costs two statements for the whole batch.
    /// - Throws: The error of the element that failed, located as above; `DatabaseError` when the transaction
    ///   cannot begin or commit (then nothing is inserted either).
    ///
    /// See https://www.sqlite.org/lang_returning.html and https://www.sqlite.org/lang_savepoint.html
    public func insert<T: Model>(contentsOf models: inout [T]) throws {
        try insert(contentsOf: &models) { try self.insertRow($0, bind: nil, decoding: &$1) }
    }

    /// Inserts every model of `models` in one transaction, leaving nil primary keys for SQLite to assign: the
    /// guarantees of ``insert(contentsOf:)-6s1l3``, for a sequence whose models need not be written back.
    ///
    /// ```swift
    /// try db.insert(contentsOf: lines.lazy.map { Note(id: nil, content: $0) })
    /// ```
    ///
    /// The index a failure names is the position of the model in the sequence, from 0.
    public func insert<T: Model>(contentsOf models: some Sequence<T>) throws {
        try insert(contentsOf: models) { try self.insertRow($0, bind: nil, decoding: &$1) }
    }

    // MARK: Internal

    /// The batch of `models`, inserted by `insertRow`, written back into `models` once it is committed.
    @usableFromInline
    func insert<T: Model>(contentsOf models: inout [T], insertRow: (T, inout StatementDecoding?) throws -> T?) throws {
        // Shares the storage of `models` until the first row read back: a batch of models with keys copies nothing.
        var written = models
        try insert(contentsOf: models, insertRow: insertRow) { written[$0] = $1 }
        models = written
    }

    /// The loop of a batch: every model of `models`, inserted by `insertRow` in one transaction; `readBack` gets the
    /// rows read back, with their positions, and must keep them aside until this returns: it may still roll back.
    ///
    /// `insertRow` inserts one model inside the transaction and returns its row when it was read back, with the
    /// decoder that read the last row (see `readBack`).
    @usableFromInline
    func insert<T: Model>(
        contentsOf models: some Sequence<T>, insertRow: (T, inout StatementDecoding?) throws -> T?,
        readBack: (Int, T) -> Void = { _, _ in }
    ) throws {
        var iterator = models.makeIterator()
        guard var next = iterator.next() else { return }
        try atomically(containing: true) {
            var decoding: StatementDecoding?
            var index = 0
            while true {
                do {
                    if let row = try insertRow(next, &decoding) { readBack(index, row) }
                } catch {
                    throw BatchInsertFailure.locate(error, atElement: index)
                }
                guard let following = iterator.next() else { return }
                next = following
                index += 1
            }
        }
    }

    /// Inserts `model` inside a transaction the caller opened, as `insert(_:)` does; `decoding` is the decoder of the
    /// last row read back (see `readBack`).
    ///
    /// - Returns: The row read back when the key was nil, nil when the model was inserted as it is.
    @usableFromInline
    func insertRow<T: Model>(_ model: T, bind: GeneratedBinding<T>?, decoding: inout StatementDecoding?) throws -> T? {
        let (statement, keyIsNil, record) = try encodeWrite(
            model, .insert, returning: .insertReturning, bind: bind)
        guard keyIsNil else {
            try statement.perform()
            try checkInserted(T.self, by: statement)
            return nil
        }
        return try readBack(T.self, from: statement, record, decoding: &decoding)
    }
}
