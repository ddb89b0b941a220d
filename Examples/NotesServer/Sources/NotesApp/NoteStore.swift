public import Foundation
public import Strata

/// What the request handlers call: each method is one `read` or one `write` of the pool.
///
/// `Sendable`, and shared by every handler: reads run in parallel on the pool's readers, writes one at a time on its
/// writer, each in its own transaction.
public struct NoteStore: Sendable {
    public let pool: DatabasePool

    public init(pool: DatabasePool) {
        self.pool = pool
    }

    /// The `limit` newest notes, newest first. Newest is the highest id: the rowid order, which needs no index and no
    /// sort.
    public func latest(limit: Int) async throws -> [Note] {
        try await pool.read { db in
            try db.fetchAll(Note.order(Column("id").desc).limit(limit))
        }
    }

    /// The note with `id`, or nil.
    public func note(id: Int64) async throws -> Note? {
        try await pool.read { db in try db.find(Note.self, id: id) }
    }

    /// Inserts a note and returns it as stored, with its new id.
    ///
    /// The note is built and returned inside the write: if the commit fails, nothing outside the write ever sees an id
    /// that was not committed.
    public func create(content: String, at date: Date = Date()) async throws -> Note {
        try await pool.write { db in
            var note = Note(createdAt: date, content: content)
            try db.insert(&note)  // INSERT ... RETURNING: `note` now holds the row as stored, id included
            return note
        }
    }

    /// Replaces the content of the note with `id` and sets its `updatedAt`, in one `UPDATE ... RETURNING`.
    ///
    /// - Returns: The note as stored after the update, or nil when no note has that id.
    public func update(id: Int64, content: String, at date: Date = Date()) async throws -> Note? {
        try await pool.write { db in
            try db.updateAndFetchAll(
                Note.filter(Column("id") == id),
                Column("content").set(to: content),
                Column("updated_at").set(to: date)
            ).first
        }
    }

    /// Deletes the note with `id` (its tag links go with it: `ON DELETE CASCADE`).
    ///
    /// - Returns: Whether a note was deleted.
    public func delete(id: Int64) async throws -> Bool {
        try await pool.write { db in try db.delete(Note.self, id: id) }
    }

    /// The number of notes.
    public func count() async throws -> Int {
        try await pool.read { db in try db.count(Note.self) }
    }

    /// The schema version (`PRAGMA user_version`): the last migration applied.
    public func schemaVersion() async throws -> Int {
        try await pool.read { db in try db.userVersion }
    }
}
