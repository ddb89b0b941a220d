import Foundation

/// The write side of the driver seam: how a backend binds the parameters of the statement a value is encoded into.
///
/// StrataCore holds the one parameter encoder of every backend: the `Encoder` a value's `encode(to:)` sees, its keyed
/// container, which key binds which parameter, `nil` as NULL, keys the statement has no parameter for (skipped), a
/// parameter left unbound (an error), a dictionary (a parameter set), a list (the parameters in order), a single value
/// (the statement's only parameter), a nested value (one parameter), `superEncoder()`, and the errors, which are
/// `EncodingError`s with the coding path that name the parameter. A backend supplies only how a value is bound, by
/// conforming one class to this protocol: an object that stands for the parameters of one statement and binds them
/// by index.
///
/// Parameters are numbered from 1, in the order of the statement. A bind throws a ``DatabaseError`` whose message says
/// what could not be bound, never the value itself; the encoder adds the parameter's name and the coding path.
///
/// ```swift
/// final class ArrayParameters: ParameterBinder {
///     let names = ["id", "name"]
///     var values: [DatabaseValue?] = [nil, nil]
///     var parameterCount: Int { names.count }
///
///     func parameterIndex(forKey key: String) -> Int? { names.firstIndex(of: key).map { $0 + 1 } }
///     func parameterName(at index: Int) -> String { ":" + names[index - 1] }
///     func bindNull(at index: Int) throws { values[index - 1] = .null }
///     func bindBool(_ value: Bool, at index: Int) throws { values[index - 1] = .integer(value ? 1 : 0) }
///     func bindInteger(_ value: Int64, at index: Int) throws { values[index - 1] = .integer(value) }
///     func bindDouble(_ value: Double, at index: Int) throws { values[index - 1] = .real(value) }
///     func bindFloat(_ value: Float, at index: Int) throws { values[index - 1] = .real(Double(value)) }
///     func bindString(_ value: String, at index: Int) throws { values[index - 1] = .text(value) }
///     func bindValue<T: Encodable>(_ value: T, at index: Int, otherwise: (Int) throws -> Void) throws {
///         guard let convertible = value as? any DatabaseValueConvertible else { return try otherwise(index) }
///         values[index - 1] = convertible.databaseValue
///     }
///     func bindNested<T: Encodable>(_ value: T, at index: Int) throws {
///         values[index - 1] = .text(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
///     }
/// }
/// ```
///
/// The encoder only passes indexes that ``parameterIndex(forKey:)`` or ``nextParameterIndex(after:forKey:)`` returned,
/// or from 1 through ``parameterCount`` for a list or a single value.
public protocol ParameterBinder: AnyObject {
    /// The number of the statement's parameters.
    var parameterCount: Int { get }

    /// The first parameter that the coding key `key` binds, nil when the statement has none: the key is skipped.
    ///
    /// The key is the coding key's `stringValue`; the backend applies the encoder's key strategy.
    func parameterIndex(forKey key: String) -> Int?

    /// The next parameter after `index` that `key` binds too (SQLite's `:a` and `@a` are two parameters named `a`),
    /// nil when there is none. Nil by default.
    func nextParameterIndex(after index: Int, forKey key: String) -> Int?

    /// The parameter at `index` as the statement names it, for errors: `:name`, or `?2` for an unnamed one.
    func parameterName(at index: Int) -> String

    /// Binds NULL to the parameter at `index`.
    func bindNull(at index: Int) throws

    /// Binds a `Bool`.
    func bindBool(_ value: Bool, at index: Int) throws

    /// Binds an integer: every signed width, and the unsigned ones up to `UInt32`.
    func bindInteger(_ value: Int64, at index: Int) throws

    /// Binds a `Double`.
    func bindDouble(_ value: Double, at index: Int) throws

    /// Binds a `Float`.
    func bindFloat(_ value: Float, at index: Int) throws

    /// Binds a `String`.
    func bindString(_ value: String, at index: Int) throws

    /// Binds `value`: by the backend itself when `T` is a type it binds (`Data`, `Date`, `UUID`, `UInt64`, a
    /// ``DatabaseValueConvertible`` type...), through `otherwise(index)` for any other type: StrataCore's encoding of
    /// `value` as a single value (raw-value enums, wrappers) through the binds above, or through ``bindNested(_:at:)``
    /// when `value` asks for a keyed or unkeyed container.
    func bindValue<T: Encodable>(_ value: T, at index: Int, otherwise: (Int) throws -> Void) throws

    /// Binds a nested value (a struct, an array, a dictionary) as one parameter, as JSON or the backend's own format
    /// for nested values.
    func bindNested<T: Encodable>(_ value: T, at index: Int) throws
}

extension ParameterBinder {
    /// No parameter shares a name with another.
    @inlinable
    public func nextParameterIndex(after index: Int, forKey key: String) -> Int? { nil }
}

/// A list of values given as a statement's parameters, bound in order: `[2, "x"]` binds the first and the second.
package protocol PositionalParameters {
    var positionalValues: [any Encodable] { get }
}

extension Array: PositionalParameters where Element: Encodable {
    package var positionalValues: [any Encodable] { self }
}

/// How a value encoded at the top level binds a statement's parameters.
package enum TopLevelParameters: Equatable {
    /// A struct or dictionary: each key binds the parameter of its name.
    case keyed
    /// A storable value: it binds the only parameter.
    case single
    /// An array (but `[UInt8]`, a blob): its values bind the parameters in order.
    case list

    /// How a value of type `T` binds.
    package init<T>(_ type: T.Type) {
        self =
            if T.self is any PositionalParameters.Type && T.self != [UInt8].self {
                .list
            } else if T.self is any DatabaseValueConvertible.Type {
                .single
            } else {
                .keyed
            }
    }
}

/// The errors of parameter encoding, one set for every backend: `EncodingError`s with the coding path, whose
/// messages name the parameter and never the value. Each holds an ``UnprintedValue`` where `EncodingError` keeps the
/// value that failed, since an `EncodingError` prints the value it holds in its description.
@usableFromInline
package enum ParameterErrors {
    /// A single value given for a statement with `count` parameters.
    package static func singleValue(_ value: Any, of type: Any.Type, parameterCount count: Int) -> EncodingError {
        EncodingError.invalidValue(
            UnprintedValue(value),
            EncodingError.Context(
                codingPath: [],
                debugDescription:
                    "a single \(type) binds a statement with one parameter; this one has \(count); "
                    + "encode a struct or dictionary instead"))
    }

    /// A list of `count` values given for a statement with `parameterCount` parameters; `sql` when the backend has it.
    package static func listCount(_ list: Any, count: Int, parameterCount: Int, sql: String?) -> EncodingError {
        let statement = sql.map { "`\($0)`" } ?? "the statement"
        return EncodingError.invalidValue(
            UnprintedValue(list),
            EncodingError.Context(
                codingPath: [],
                debugDescription:
                    "a list of \(count) value\(count == 1 ? "" : "s") binds the parameters in order, "
                    + "and \(statement) has \(parameterCount)"))
    }

    /// The value at `offset` of a positional list is not storable.
    package static func listElement(_ element: Any, at offset: Int, key: any CodingKey) -> EncodingError {
        EncodingError.invalidValue(
            UnprintedValue(element),
            EncodingError.Context(
                codingPath: [key],
                debugDescription:
                    "value \(offset + 1) of the list is a \(type(of: element)), not a storable value; "
                    + "bind nested values through a struct or dictionary"))
    }

    /// A value of `type` left the parameters `names` unbound; `sql` when the backend has it.
    package static func unbound(_ type: Any.Type, names: [String], sql: String?) -> EncodingError {
        EncodingError.invalidValue(
            UnprintedValue(typeName: String(describing: type)),
            EncodingError.Context(
                codingPath: [],
                debugDescription:
                    "\(type) has no value for parameter\(names.count == 1 ? "" : "s") "
                    + names.joined(separator: ", ") + (sql.map { " of `\($0)`" } ?? "")))
    }

    /// A top-level value asked for an unkeyed container.
    package static func topLevelList(codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            [Any](),
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "a list cannot bind named parameters; encode a struct or dictionary"))
    }

    /// A top-level value asked for a single-value container.
    package static func topLevelSingleValue(codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            (),
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "a single value cannot bind named parameters; encode a struct or dictionary"))
    }

    /// A keyed container asked for a nested container for `key`.
    package static func nestedContainer(forKey key: any CodingKey, codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            key.stringValue,
            EncodingError.Context(
                codingPath: codingPath + [key],
                debugDescription:
                    "a parameter cannot hold a nested container; declare the property as a Codable type "
                    + "and it is bound as one nested value (JSON)"))
    }

    /// A value that encoded nothing into its parameter.
    package static func noValue(_ value: Any, of type: Any.Type, codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            UnprintedValue(value),
            EncodingError.Context(codingPath: codingPath, debugDescription: "\(type) encoded no value"))
    }

    /// `error` as an `EncodingError` naming `parameter`, when it is a ``DatabaseError`` of a bind; any other error
    /// (an `EncodingError` of the value's own) as it is.
    @usableFromInline
    package static func binding(
        _ error: any Error, value: Any, parameter: String?, codingPath: [any CodingKey]
    ) -> any Error {
        guard let databaseError = error as? DatabaseError else { return error }
        return EncodingError.invalidValue(
            UnprintedValue(value),
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: databaseError.description + (parameter.map { " - parameter \($0)" } ?? ""),
                underlyingError: databaseError))
    }
}

/// What a parameter encoding error holds in place of the value that failed to bind: the value's type, never the value.
///
/// `EncodingError.invalidValue` keeps the value, and an `EncodingError`'s description prints it
/// (`EncodingError.invalidValue: "the value" (String)...`); a bound value never appears in an error's description,
/// a log line or a span, so the errors of parameter encoding keep this instead.
package struct UnprintedValue: CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    /// The name of the value's type.
    package let typeName: String

    package init(_ value: Any) {
        typeName = String(describing: type(of: value))
    }

    package init(typeName: String) {
        self.typeName = typeName
    }

    package var description: String { "a value of type \(typeName), not shown" }
    package var debugDescription: String { description }
}

/// The coding key of a value of a positional parameter list, for errors: `?1` for the first.
package struct PositionKey: CodingKey {
    package let intValue: Int?
    package var stringValue: String { "?\((intValue ?? 0) + 1)" }

    package init(intValue: Int) { self.intValue = intValue }
    package init?(stringValue: String) { nil }
}
