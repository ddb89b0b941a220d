/// How dates are stored.
///
/// Reading accepts what any strategy wrote: INTEGER as Unix seconds (milliseconds under
/// ``unixMilliseconds``), REAL as a Julian day, TEXT in SQLite's format or ISO 8601.
public enum DateStrategy: Sendable, Hashable {
    /// INTEGER seconds since 1970-01-01 00:00:00 UTC; sub-second parts are truncated toward the past.
    case integer
    /// REAL Julian day number, as SQLite's `julianday()` returns.
    case real
    /// TEXT `YYYY-MM-DD HH:MM:SS.SSS` in UTC: sorts chronologically and compares with `datetime('now')`.
    case text
    /// INTEGER milliseconds since 1970-01-01 00:00:00 UTC.
    case unixMilliseconds
}

/// How arrays (and other nested Codable values) are stored in one column.
public enum ArrayStrategy: Sendable, Hashable {
    /// TEXT holding JSON, so that SQLite's `json_extract` and `json_each` work on it.
    case json
    /// BLOB holding a binary property list.
    case bplist
}

/// How UUIDs are stored. Reading accepts both.
public enum UUIDStrategy: Sendable, Hashable {
    /// A 16-byte BLOB.
    case blob
    /// TEXT in the canonical uppercase form `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    case text
}
