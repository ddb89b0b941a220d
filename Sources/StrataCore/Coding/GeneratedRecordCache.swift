/// Whether the type a row decoder is asked for has generated code, decided once per type: the last type asked for
/// and what the backend keeps for it, so that the rows of a result cost a pointer compare each, not a dynamic cast.
///
/// Each backend's decoding keeps one, as `@exclusivity(unchecked) var` of the class that decodes a result's rows,
/// and keeps what its generated reads need: the record type itself (SQLite), or the type and its keys (PostgreSQL).
@usableFromInline
package struct GeneratedRecordCache<Value> {
    /// Whether a `GeneratedRecord` is read by its generated code (see ``RowDecoder``); when false, no type has any.
    @usableFromInline let usesGeneratedCode: Bool
    @usableFromInline var lastType: ObjectIdentifier?
    @usableFromInline var lastValue: Value?

    @inlinable
    package init(usesGeneratedCode: Bool) {
        self.usesGeneratedCode = usesGeneratedCode
    }

    /// What `make` returned for `T` as a ``GeneratedRecord``, nil when `T` has no generated code (or generated code
    /// is not used). `make` is called once per type in a row of calls for the same type.
    @inlinable @inline(__always)
    package mutating func record<T>(_ type: T.Type, _ make: (any GeneratedRecord.Type) -> Value) -> Value? {
        let identifier = ObjectIdentifier(T.self)
        if identifier != lastType {
            lastType = identifier
            lastValue = usesGeneratedCode ? (T.self as? any GeneratedRecord.Type).map(make) : nil
        }
        return lastValue
    }
}

extension GeneratedRecordCache where Value == any GeneratedRecord.Type {
    /// `T` as a ``GeneratedRecord``, nil when it has no generated code (or generated code is not used).
    @inlinable @inline(__always)
    package mutating func record<T>(_ type: T.Type) -> (any GeneratedRecord.Type)? {
        record(T.self) { $0 }
    }
}
