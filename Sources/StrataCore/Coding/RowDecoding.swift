import Foundation

/// The `Decoder` a value's `init(from:)` sees for the rows of one result, on every backend: the backend's
/// ``ColumnReader`` reads the columns, this decides which key reads which column and what each read means.
///
/// - A key reads the column ``ColumnReader/columnIndex(forKey:)`` names; a missing column is `keyNotFound`, or nil
///   for an optional, as a missing key in `JSONDecoder`; NULL is nil for an optional.
/// - A `DatabaseValueConvertible` type, or any type the backend reads itself, decodes through the backend; any
///   other type decodes from the column as a single value (raw-value enums, wrappers), or, when it asks for a keyed
///   or unkeyed container, from the column's nested value (JSON).
/// - Every error is a `DecodingError` with the coding path, whose underlying ``DatabaseError`` names the column, its
///   index, what it holds and the expected type.
///
/// One decoding serves row after row (call ``beginRow()`` before each): it keeps the keyed container the first row
/// made, as Swift's synthesized `init(from:)` asks for one per row.
@usableFromInline
package final class RowDecoding<Reader: ColumnReader>: Decoder {
    /// The row's columns, and the reads the containers share.
    @usableFromInline package let row: RowContext<Reader>
    @usableFromInline package var codingPath: [any CodingKey] { [] }
    @usableFromInline package var userInfo: [CodingUserInfoKey: Any] { row.userInfo }
    @exclusivity(unchecked) private var containers = ContainerCache()

    @usableFromInline
    package init(row: RowContext<Reader>) {
        self.row = row
    }

    package convenience init(reader: Reader, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any]) {
        self.init(row: RowContext(reader: reader, mapping: mapping, userInfo: userInfo))
    }

    /// The backend's reader of the row's columns.
    @inlinable
    package var reader: Reader { row.reader }

    /// Starts the next row.
    @inline(__always)
    package func beginRow() { row.reader.beginRow() }

    /// Decodes a `T` from the current row: from its only column when it has one and `T` is a
    /// `DatabaseValueConvertible` type, from its columns by key otherwise.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try row.decodeRow(T.self, from: self)
    }

    @usableFromInline
    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        containers.container(keyedBy: Key.self) { KeyedDecodingContainer(RowKeyedContainer<Key, Reader>(row: row)) }
    }

    @usableFromInline
    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw row.unkeyedContainerError()
    }

    @usableFromInline
    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try row.singleValueContainer()
    }
}

/// What the containers of one result's rows read through: the backend's reader, the key mapping and the user info,
/// with the reads by column index that the keyed container, the single-value decoder and generated records share,
/// so that all give the same values and errors.
///
/// The containers point to it, not to the ``RowDecoding`` that caches them, so that the two do not keep each other
/// alive.
@usableFromInline
package final class RowContext<Reader: ColumnReader> {
    /// The row's columns.
    @usableFromInline package let reader: Reader
    /// How coding keys name their columns, for the error of a missing one.
    let mapping: KeyMapping
    @usableFromInline package let userInfo: [CodingUserInfoKey: Any]
    @usableFromInline package var codingPath: [any CodingKey] { [] }

    package init(reader: Reader, mapping: KeyMapping, userInfo: [CodingUserInfoKey: Any]) {
        self.reader = reader
        self.mapping = mapping
        self.userInfo = userInfo
    }

    // MARK: The decoder's requirements, for every backend's decoder

    /// Decodes a `T` from the current row, whose decoder is `decoder`: from its only column when it has one and `T` is
    /// a `DatabaseValueConvertible` type, from its columns by key otherwise.
    @inlinable
    package func decodeRow<T: Decodable>(_ type: T.Type, from decoder: some Decoder) throws -> T {
        if reader.columnCount == 1, T.self is any DatabaseValueConvertible.Type {
            return try value(T.self, at: 0, key: nil)
        }
        return try T(from: decoder)
    }

    /// The error of a row asked for an unkeyed container.
    @usableFromInline
    package func unkeyedContainerError() -> DecodingError {
        DecodingError.typeMismatch(
            [Any].self,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "a row decodes into a keyed type (a struct, class or dictionary), not a list"))
    }

    /// The single-value container of a one-column row; an error for a row of another width.
    @usableFromInline
    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        let count = reader.columnCount
        guard count == 1 else {
            throw DecodingError.typeMismatch(
                Any.self,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "a single value decodes from a one-column row; this row has \(count) columns"))
        }
        return ColumnDecoding(row: self, index: 0, key: nil)
    }

    // MARK: Reads by column index

    /// A `T` from the column at `index`: what the backend reads itself, a single value, or a nested value.
    /// `key` is only evaluated for an error.
    @inlinable @inline(__always)
    package func value<T: Decodable>(_ type: T.Type, at index: Int, key: @autoclosure () -> (any CodingKey)?) throws
        -> T
    {
        do {
            return try reader.decodeValue(T.self, at: index) { index in
                do {
                    return try T(from: ColumnDecoding(row: self, index: index, key: key()))
                } catch is NestedValueSignal {
                    return try reader.decodeNested(T.self, at: index)
                }
            }
        } catch {
            throw decodingError(error, type: T.self, at: index, key: key())
        }
    }

    /// An integer of width `I` from the column at `index`: the stored integer when it fits, the backend's general
    /// read (the value or its error) otherwise. Inlined where `I` is known, so that `I(exactly:)` is not called
    /// through generic witness tables.
    @inlinable @inline(__always)
    package func integer<I: FixedWidthInteger>(
        _ type: I.Type, at index: Int, key: @autoclosure () -> (any CodingKey)?
    ) throws -> I {
        if let stored = reader.storedInteger(at: index), let exact = I(exactly: stored) { return exact }
        return try read(at: index, key: key()) { try reader.decodeInteger(I.self, at: $0) }
    }

    /// `body`'s read of the column at `index`, its error located at the column. `key` is only evaluated for an error.
    @inlinable @inline(__always)
    package func read<T>(at index: Int, key: @autoclosure () -> (any CodingKey)?, _ body: (Int) throws -> T) throws
        -> T
    {
        do {
            return try body(index)
        } catch {
            throw decodingError(error, type: T.self, at: index, key: key())
        }
    }

    /// A `DecodingError` for `error`, which reading column `index` as `type` threw, naming the column, what it holds
    /// and the expected type; any other error as it is.
    @usableFromInline
    package func decodingError(_ error: any Error, type: Any.Type, at index: Int, key: (any CodingKey)?) -> any Error {
        guard let databaseError = error as? DatabaseError else { return error }
        let names = reader.columnNames
        let name = names.indices.contains(index) ? names[index] : nil
        let located = databaseError.located(column: name, index: index, sql: nil)
        let context = DecodingError.Context(
            codingPath: key.map { codingPath + [$0] } ?? codingPath,
            debugDescription: located.description,
            underlyingError: located)
        switch databaseError.code {
        case .unexpectedNull: return DecodingError.valueNotFound(type, context)
        case .typeMismatch: return DecodingError.typeMismatch(type, context)
        default: return DecodingError.dataCorrupted(context)
        }
    }

    /// `no column named "x" for key x; the row has "a", "b"`.
    @usableFromInline
    package func keyNotFound(_ key: some CodingKey) -> DecodingError {
        mapping.keyNotFound(key, codingPath: codingPath, columns: reader.columnNames)
    }
}

/// Thrown by a column's single-value decoder when the value asks for a keyed or unkeyed container: the column holds
/// a nested value, which the decoding then reads through ``ColumnReader/decodeNested(_:at:)``.
@usableFromInline
package struct NestedValueSignal: Error {
    @usableFromInline package init() {}
}

/// Keeps the last keyed container an `Encoder` or `Decoder` made, for the next value of the same type.
///
/// A value's synthesized `init(from:)` or `encode(to:)` asks for a keyed container once per row. Making one costs an
/// allocation and generic metadata look-ups for the container and the standard library's box around it: a tenth of
/// decoding a small row. Strata's containers hold no state of their own (they read and write through the coding
/// object they point to), so the one made for the first row serves every row after it.
///
/// The cache must belong to an object the container does not point to, or the two would keep each other alive.
///
/// The caller is generic over the key (a `Decoder`'s `container(keyedBy:)`, called through the protocol), and the
/// standard library's container types are resilient: any use of `KeyedDecodingContainer<Key>` there looks its type up
/// in the runtime's cache of generic types, about 320 instructions, more than the rest of the cache hit. So the cache
/// knows a container by its `Key`, whose type the caller is given, and copies it out through a method of its box,
/// which finds the container's type in the box's own.
@usableFromInline
package struct ContainerCache {
    @usableFromInline var keyType: ObjectIdentifier?
    @usableFromInline var box: AnyObject?

    package init() {}

    /// The cached container for `Key`, or the one `make` returns, cached in its place. The calls for one `Key` must all
    /// make the same `Container` type.
    @inlinable @inline(__always)
    package mutating func container<Key: CodingKey, Container>(keyedBy key: Key.Type, _ make: () -> Container)
        -> Container
    {
        if keyType == ObjectIdentifier(Key.self), let box {
            // The box was made below for this `Key`, so for this very type.
            return unsafeDowncast(box, to: Reused<Container>.self).copy()
        }
        return keep(make, for: Key.self)
    }

    /// The container `make` returns, cached for `Key`. Out of line: inlined, its room for a `Container` made every call
    /// look the type up, cache hits too.
    @usableFromInline @inline(never)
    mutating func keep<Key: CodingKey, Container>(_ make: () -> Container, for key: Key.Type) -> Container {
        let container = make()
        box = Reused(container)
        keyType = ObjectIdentifier(Key.self)
        return container
    }

    @usableFromInline
    final class Reused<Value> {
        @usableFromInline let value: Value
        @usableFromInline init(_ value: Value) { self.value = value }

        /// `value`, by a call that takes `Value` from the object's type rather than from its caller.
        @usableFromInline @inline(never)
        func copy() -> Value { value }
    }
}
