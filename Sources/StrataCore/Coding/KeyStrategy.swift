/// How coding keys become column and parameter names.
@usableFromInline
package enum KeyMapping: Sendable {
    case useDefaultKeys
    case snakeCase
    case custom(@Sendable (String) -> String)

    @inlinable
    package func name(for key: String) -> String {
        switch self {
        case .useDefaultKeys: key
        case .snakeCase: Self.snakeCased(key)
        case .custom(let transform): transform(key)
        }
    }

    /// The error of a row without the column that `key` maps to: `no column named "x" for key x; the row has "a",
    /// "b"`, the same on every backend.
    package func keyNotFound(
        _ key: some CodingKey, codingPath: [any CodingKey], columns: [String]
    ) -> DecodingError {
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        return DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription:
                    "no column named \"\(name(for: key.stringValue))\" for key \(key.stringValue); the row has \(names)"
            ))
    }

    /// `created_at` as `createdAt`: how a keyed container's `allKeys` names a snake_case column whose name is not a
    /// key of its own.
    @usableFromInline
    package static func camelCased(_ column: String) -> String {
        let parts = column.split(separator: "_", omittingEmptySubsequences: true)
        guard let first = parts.first else { return column }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A tag for caches: mappings with equal tags map every key alike. Custom mappings are never cached.
    @inlinable
    package var cacheTag: Int? {
        switch self {
        case .useDefaultKeys: 0
        case .snakeCase: 1
        case .custom: nil
        }
    }

    /// `createdAt` → `created_at`, `userID` → `user_id`, `myURLValue` → `my_url_value`.
    ///
    /// A word starts at an uppercase letter that follows a lowercase letter or digit, and at the
    /// last capital of an acronym followed by a lowercase letter. Leading and trailing underscores stay.
    @usableFromInline
    static func snakeCased(_ key: String) -> String {
        let scalars = Array(key.unicodeScalars)
        guard scalars.contains(where: { $0.properties.isUppercase }) else { return key }
        var result = String.UnicodeScalarView()
        for (offset, scalar) in scalars.enumerated() {
            if scalar.properties.isUppercase, offset > 0 {
                let previous = scalars[offset - 1]
                let next = offset + 1 < scalars.count ? scalars[offset + 1] : nil
                let afterLower = previous.properties.isLowercase || previous.properties.numericType != nil
                let endsAcronym = previous.properties.isUppercase && (next?.properties.isLowercase ?? false)
                if afterLower || endsAcronym {
                    result.append("_")
                }
            }
            result.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        }
        return String(result)
    }
}

extension StatementEncoder {
    /// How coding keys become parameter names, named as on Foundation's `JSONEncoder`.
    public enum KeyEncodingStrategy: Sendable {
        /// `createdAt` binds `:createdAt`.
        case useDefaultKeys
        /// `createdAt` binds `:created_at`.
        case convertToSnakeCase
        /// The closure returns the parameter name (without prefix) for a key.
        case custom(@Sendable (String) -> String)

        /// The name of the parameter that the coding key `key` binds, without prefix: `created_at` for `createdAt`
        /// with `.convertToSnakeCase`.
        public func parameterName(for key: String) -> String { mapping.name(for: key) }

        @inlinable
        package var mapping: KeyMapping {
            switch self {
            case .useDefaultKeys: .useDefaultKeys
            case .convertToSnakeCase: .snakeCase
            case .custom(let transform): .custom(transform)
            }
        }
    }
}

extension RowDecoder {
    /// How coding keys find their columns, named as on Foundation's `JSONDecoder`.
    public enum KeyDecodingStrategy: Sendable {
        /// `createdAt` reads the column `createdAt`.
        case useDefaultKeys
        /// `createdAt` reads the column `created_at`.
        case convertFromSnakeCase
        /// The closure returns the column name for a key.
        case custom(@Sendable (String) -> String)

        /// The name of the column that the coding key `key` reads: `created_at` for `createdAt` with
        /// `.convertFromSnakeCase`.
        public func columnName(for key: String) -> String { mapping.name(for: key) }

        @inlinable
        package var mapping: KeyMapping {
            switch self {
            case .useDefaultKeys: .useDefaultKeys
            case .convertFromSnakeCase: .snakeCase
            case .custom(let transform): .custom(transform)
            }
        }
    }
}

/// A coder's overrides of its statement's storage strategies, nil keeping the statement's.
///
/// The coders are shared by every backend, but the strategies are SQLite's storage choices: the SQLite backend sets
/// them through its own `dateStrategy`, `arrayStrategy` and `uuidStrategy` on ``RowDecoder`` and
/// ``StatementEncoder``, which other backends do not offer.
@usableFromInline
package struct StorageOverrides: Sendable, Hashable {
    @usableFromInline package var date: DateStrategy?
    @usableFromInline package var array: ArrayStrategy?
    @usableFromInline package var uuid: UUIDStrategy?

    @inlinable
    package init() {}
}

extension ValueStrategies {
    /// These strategies with a coder's overrides applied.
    @inlinable
    package func overridden(by overrides: StorageOverrides) -> ValueStrategies {
        ValueStrategies(
            date: overrides.date ?? date, array: overrides.array ?? array, uuid: overrides.uuid ?? uuid)
    }
}
