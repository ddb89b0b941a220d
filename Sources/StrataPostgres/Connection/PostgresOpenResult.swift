import Foundation
internal import PostgresNIO
internal import StrataCore

/// A result read one row at a time (a cursor, or the rest of a `fetchOne`), kept by its session so that the next
/// statement can deal with what is left of it.
///
/// A connection runs one statement at a time: the next statement waits until the server has sent every row of
/// this one. So before the next statement the session looks at the result:
/// - read to its end: nothing to do;
/// - **still being read** (a cursor's loop runs another statement): its remaining rows are read into memory
///   first, and the loop goes on with them;
/// - **abandoned** (the loop was left): up to ``PostgresConnectionPool/abandonedRowsRead`` more rows are read and
///   dropped; a longer result of a statement that only reads is cancelled on the server, so that the next
///   statement runs at once instead of after every remaining row.
///
/// `@unchecked Sendable`: every stored property is read and written under `lock`; postgres-nio's iterator is used
/// by one task at a time (`isReading`).
final class PostgresOpenResult: @unchecked Sendable {
    /// What is left to do with a result before the next statement.
    enum Disposition {
        /// Read to its end (or its error): nothing.
        case finished(failed: Bool)
        /// Someone may still read it: read the rest into memory.
        case live
        /// Nobody will read it: finish it quickly.
        case abandoned
        /// Another task reads it at this moment.
        case busy
    }

    /// How the result ended.
    private enum End {
        case finished
        /// Ended with an error, kept for the reader.
        case failed(any Error)
        /// Ended with an error the reader was given (or that ``drop(upTo:)`` returned).
        case failedAndReported
        /// Closed by the session after it was abandoned.
        case closed
    }

    private let lock = NSLock()
    /// postgres-nio's rows; nil once the result ended.
    private var rows: PostgresRowSequence.AsyncIterator?
    /// Rows read ahead for a reader that went on with another statement.
    private var buffered: [PostgresRow] = []
    private var bufferedIndex = 0
    private var end: End?
    private var isReading = false
    /// The cursors (sequences) and iterators alive, and whether an iterator was ever made.
    private var sequences = 0
    private var iterators = 0
    private var wasIterated = false

    /// Whether the statement only reads: cancelling it changes no data.
    let onlyReads: Bool
    /// The savepoint taken before the statement inside a transaction block, so that a cancel of the statement
    /// does not abort the transaction; nil outside a block.
    let savepoint: String?
    /// The SQL, for errors.
    let sql: String
    /// The statement's report, until it is sent when the result ends (see ``takeReport()``).
    private var report: PostgresObserver.Pending?
    /// The rows that came from the server so far.
    private var rowsRead = 0

    init(rows: PostgresRowSequence.AsyncIterator, onlyReads: Bool, savepoint: String?, sql: String) {
        self.rows = rows
        self.onlyReads = onlyReads
        self.savepoint = savepoint
        self.sql = sql
    }

    /// Keeps the report of the statement until the result ends.
    func keep(_ report: PostgresObserver.Pending) {
        lock.withLock { self.report = report }
    }

    /// The statement's report and the rows read, the first time only: the result has ended, or was left.
    func takeReport() -> (report: PostgresObserver.Pending, rows: Int)? {
        lock.withLock {
            guard let report else { return nil }
            self.report = nil
            return (report, rowsRead)
        }
    }

    /// The next row, or nil after the last.
    func next() async throws -> PostgresRow? {
        let done: Bool = try lock.withLock {
            if bufferedIndex < buffered.count { return false }
            switch end {
            case .finished, .failedAndReported:
                return true
            case .failed(let error):
                end = .failedAndReported
                throw error
            case .closed:
                throw DatabaseError(
                    code: .invalidArgument,
                    message: "the cursor was closed: its loop was left and another statement ran on the session",
                    sql: sql)
            case nil:
                return false
            }
        }
        if done { return nil }
        if let row = lock.withLock({ () -> PostgresRow? in
            guard bufferedIndex < buffered.count else { return nil }
            defer { bufferedIndex += 1 }
            return buffered[bufferedIndex]
        }) {
            return row
        }
        return try await pull(keepingError: false)
    }

    /// Reads the next row from postgres-nio; at the end or an error, the result ends (keeping the error for the
    /// reader when `keepingError`).
    private func pull(keepingError: Bool) async throws -> PostgresRow? {
        let rows: PostgresRowSequence.AsyncIterator? = try lock.withLock {
            guard end == nil else { return nil }
            guard !isReading, let rows = self.rows else { throw Self.readByTwoTasks(sql: sql) }
            isReading = true
            return rows
        }
        guard let rows else { return nil }
        var iterator = UnsafeTransfer(rows)
        do {
            let row = try await iterator.value.next()
            lock.withLock {
                isReading = false
                if row == nil { finish(.finished) } else { rowsRead += 1 }
            }
            return row
        } catch {
            lock.withLock {
                isReading = false
                finish(keepingError ? .failed(error) : .failedAndReported)
            }
            throw error
        }
    }

    /// What is left to do before the next statement.
    var disposition: Disposition {
        lock.withLock {
            switch end {
            case .finished, .closed: return .finished(failed: false)
            case .failed, .failedAndReported: return .finished(failed: true)
            case nil:
                if isReading { return .busy }
                if iterators > 0 || sequences > 0 && !wasIterated { return .live }
                return .abandoned
            }
        }
    }

    /// Reads every remaining row into memory, for a reader that runs another statement before it is done.
    ///
    /// - Returns: The error the statement ended with, if any; the reader gets it too, after the rows before it.
    func readAll() async -> (any Error)? {
        var rows: [PostgresRow] = []
        var failure: (any Error)?
        do {
            while let row = try await pull(keepingError: true) { rows.append(row) }
        } catch {
            failure = error
        }
        lock.withLock { buffered.append(contentsOf: rows) }
        return failure
    }

    /// Reads and drops up to `limit` rows of an abandoned result.
    ///
    /// - Returns: Whether the result ended, and the error it ended with, if any.
    func drop(upTo limit: Int) async -> (ended: Bool, error: (any Error)?) {
        for _ in 0..<limit {
            do {
                guard try await pull(keepingError: false) != nil else { return (true, nil) }
            } catch {
                return (true, error)
            }
        }
        return (false, nil)
    }

    /// Stops reading: postgres-nio reads and drops what is left (fast once the statement was cancelled).
    func close() {
        lock.withLock { finish(.closed) }
    }

    /// Ends the result, dropping postgres-nio's iterator; under the lock.
    private func finish(_ how: End) {
        if end == nil { end = how }
        rows = nil
    }

    /// Notes a cursor (`iterator` false) or an iterator made or gone.
    func hold(iterator: Bool, _ delta: Int) {
        lock.withLock {
            if iterator {
                iterators += delta
                if delta > 0 { wasIterated = true }
            } else {
                sequences += delta
            }
        }
    }

    /// The error of a result read by two tasks at once.
    static func readByTwoTasks(sql: String) -> DatabaseError {
        DatabaseError(
            code: .invalidArgument,
            message: "a PostgreSQL cursor was read by two tasks at once, or while its session ran another statement",
            sql: sql)
    }
}

/// Keeps a ``PostgresOpenResult`` counted as held while a cursor or an iterator of it lives.
final class PostgresResultHold: Sendable {
    let result: PostgresOpenResult
    private let isIterator: Bool

    init(_ result: PostgresOpenResult, iterator: Bool) {
        self.result = result
        isIterator = iterator
        result.hold(iterator: iterator, 1)
    }

    deinit {
        result.hold(iterator: isIterator, -1)
    }
}

/// postgres-nio's row iterator, which is not `Sendable` because one task at a time may use it: the result's lock
/// makes sure of that.
private struct UnsafeTransfer: @unchecked Sendable {
    var value: PostgresRowSequence.AsyncIterator

    init(_ value: PostgresRowSequence.AsyncIterator) {
        self.value = value
    }
}
