import Foundation

/// Encodes `Encodable` values into a statement's named parameters: each coding key binds the
/// parameter of the same name.
///
/// ```swift
/// let statement = try db.prepare(query: "INSERT INTO foo (b, c, d, e) VALUES (:b, :c, :d, :e)")
/// try StatementEncoder().encode(foo, to: statement)
/// try statement.perform()
/// ```
///
/// - **Every parameter is bound by the value or the encode throws**: bindings are cleared
///   first, so a value never runs with one left over from the statement's previous use.
/// - Keys the statement has no parameter for are skipped.
/// - `nil` binds NULL.
/// - Nested structs, arrays, dictionaries and sets bind one column of JSON TEXT (or a binary
///   property list under ``ArrayStrategy/bplist``); raw-value enums bind their raw value.
/// - A dictionary is a parameter set: `["age": 30]` binds `:age`.
///
/// Errors are `EncodingError`s with the coding path and a message naming the parameter.
public struct StatementEncoder: Sendable {
    /// How coding keys become parameter names. `.useDefaultKeys` by default.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// The SQLite backend's overrides of its statement's storage strategies (`dateStrategy`, `arrayStrategy`,
    /// `uuidStrategy`, which that backend declares).
    @usableFromInline package var storageOverrides = StorageOverrides()
    /// Contextual information for custom `encode(to:)` implementations.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Whether a ``GeneratedRecord`` is bound by its generated code: false only in tests that compare it with the
    /// type's `Codable` conformance.
    @usableFromInline package var usesGeneratedCode = true

    @inlinable
    public init() {}
}

extension StatementEncoder {
    /// Binds the parameters of `binder`, a backend's ``ParameterBinder``, from `value`: StrataCore's one parameter
    /// encoder, which every backend uses, with this encoder's `userInfo`. The binder maps keys to parameter names
    /// with ``keyEncodingStrategy`` (see ``KeyEncodingStrategy/parameterName(for:)``).
    ///
    /// ```swift
    /// try StatementEncoder().encode(note, to: binder)
    /// ```
    ///
    /// - Throws: `EncodingError` with the coding path, naming the parameter, when a parameter is left without a
    ///   value, a value cannot be bound (the binder's ``DatabaseError`` is its underlying error), or `value` cannot
    ///   bind the statement's parameters (a list of another length, a single value for several parameters).
    public func encode<T: Encodable>(_ value: T, to binder: some ParameterBinder) throws {
        try ParameterEncoding(binder: binder, userInfo: userInfo).encode(value)
    }
}
