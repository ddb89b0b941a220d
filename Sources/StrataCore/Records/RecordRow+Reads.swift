/// A backend's ``RecordRow`` over a ``ColumnReader``: the backend says which column each record key reads, and
/// StrataCore reads it exactly as its keyed container reads that key (`RowContext`'s reads), in code specialized for
/// the backend's reader.
package protocol ColumnRecordRow: RecordRow {
    associatedtype Reader: ColumnReader

    /// The row's reads.
    var context: RowContext<Reader> { get }

    /// The column of the `key`-th record key, nil when the row has none.
    func column(ofRecordKey key: Int) -> Int?

    /// The `key`-th record key, for an error.
    func recordKey(_ key: Int) -> String
}

extension RowContext {
    // The reads of a generated record's key, by the column the backend found for it, which each backend's witnesses
    // of `RecordRow` call, one line each, in its concrete type. (A protocol extension's methods here, called from those
    // witnesses, ran as unspecialized generic code: the `@Table` fetch of the benchmarks went from 98.9M to 227.4M
    // instructions.)

    /// The column of a record key, or `keyNotFound` when the row has none.
    @inlinable @inline(__always)
    package func recordColumn(_ column: Int?, key: @autoclosure () -> any CodingKey) throws -> Int {
        guard let column else { throw keyNotFound(key()) }
        return column
    }

    /// The column of a record key, nil when the row has none or its value is NULL.
    @inlinable @inline(__always)
    package func presentRecordColumn(_ column: Int?) -> Int? {
        guard let column, !reader.isNull(at: column) else { return nil }
        return column
    }
}
