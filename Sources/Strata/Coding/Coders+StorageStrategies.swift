extension RowDecoder {
    /// Overrides the statement's date strategy; only `.unixMilliseconds` changes how INTEGER is read.
    ///
    /// ```swift
    /// var decoder = RowDecoder()
    /// decoder.dateStrategy = .unixMilliseconds
    /// let events = try db.fetchAll(Event.self, query: "SELECT * FROM event", decoder: decoder)
    /// ```
    ///
    /// A storage strategy is SQLite's: PostgreSQL stores each type in its own column type, so StrataPostgres has no
    /// such setting.
    public var dateStrategy: DateStrategy? {
        get { storageOverrides.date }
        set { storageOverrides.date = newValue }
    }

    /// Overrides the statement's array strategy. Reading accepts JSON and property lists whatever it is.
    public var arrayStrategy: ArrayStrategy? {
        get { storageOverrides.array }
        set { storageOverrides.array = newValue }
    }

    /// Overrides the statement's UUID strategy. Reading accepts a blob and text whatever it is.
    public var uuidStrategy: UUIDStrategy? {
        get { storageOverrides.uuid }
        set { storageOverrides.uuid = newValue }
    }
}

extension StatementEncoder {
    /// Overrides the statement's date strategy.
    ///
    /// ```swift
    /// var encoder = StatementEncoder()
    /// encoder.dateStrategy = .unixMilliseconds
    /// try encoder.encode(event, to: statement)
    /// ```
    ///
    /// A storage strategy is SQLite's: PostgreSQL stores each type in its own column type, so StrataPostgres has no
    /// such setting.
    public var dateStrategy: DateStrategy? {
        get { storageOverrides.date }
        set { storageOverrides.date = newValue }
    }

    /// Overrides the statement's array strategy.
    public var arrayStrategy: ArrayStrategy? {
        get { storageOverrides.array }
        set { storageOverrides.array = newValue }
    }

    /// Overrides the statement's UUID strategy.
    public var uuidStrategy: UUIDStrategy? {
        get { storageOverrides.uuid }
        set { storageOverrides.uuid = newValue }
    }
}
