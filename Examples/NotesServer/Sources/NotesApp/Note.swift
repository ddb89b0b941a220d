public import Foundation
public import Hummingbird
public import Strata

/// A note, as the repository's `Migrations/` store it and as the API sends it.
///
/// The table's columns are snake_case (`created_at`); the JSON keys are the property names (`createdAt`). The one
/// `Codable` conformance serves both: `keyEncodingStrategy` maps the keys for the database only.
public struct Note: Model, ResponseCodable, Sendable, Equatable {
    public static let tableName = "note"
    public static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase

    /// The rowid, nil until the note is inserted.
    public var id: Int64?
    /// When the note was created, to the millisecond (Strata stores dates as UTC text).
    public var createdAt: Date
    public var content: String
    /// When the note was last edited; nil until its first edit.
    public var updatedAt: Date?

    public init(id: Int64? = nil, createdAt: Date, content: String, updatedAt: Date? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.content = content
        self.updatedAt = updatedAt
    }
}

/// The body of `GET /notes`: an object rather than a bare array, so that fields can be added later.
public struct NoteList: ResponseCodable, Sendable, Equatable {
    public var notes: [Note]

    public init(notes: [Note]) {
        self.notes = notes
    }
}

/// The body of `POST /notes` and `PUT /notes/:id`.
public struct NoteInput: Codable, Sendable {
    public var content: String

    public init(content: String) {
        self.content = content
    }
}

/// The `GET /health` body.
public struct Health: ResponseCodable, Sendable, Equatable {
    /// `ok` when the database answered.
    public var status: String
    /// The last migration applied (from `strata_migrations`).
    public var schemaVersion: Int

    public init(status: String, schemaVersion: Int) {
        self.status = status
        self.schemaVersion = schemaVersion
    }
}
