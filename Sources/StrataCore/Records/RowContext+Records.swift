extension RowContext {
    // The reads of a generated record's key, by the column the backend found for it. Each backend writes the
    // witnesses of `RecordRow` in its own concrete type, one line each over these and the keyed container's reads, so
    // that they are specialized for its reader: written once here as a protocol extension, they ran as unspecialized
    // generic code (the `@Table` fetch of the benchmarks went from 98.9M to 227.4M instructions).

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
