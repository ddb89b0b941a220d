public import Foundation
public import Strata

/// What the request handlers call, written once for every backend: each method is one `read` or one `write` of
/// `database`, a `DatabasePool` (SQLite) or a `PostgresPool` (PostgreSQL), or any other `DatabaseWriter`.
///
/// `Sendable`, and shared by every handler: reads run in parallel, each on one consistent snapshot; writes each in
/// their own transaction (one at a time on SQLite).
///
/// ```swift
/// let store = NoteStore(database: pool)      // a DatabasePool, a DatabaseQueue or a PostgresPool
/// let note = try await store.create(content: "Hello")
/// let latest = try await store.latest(limit: 20)
/// ```
///
/// **The SQLite fast path.** On a `DatabasePool`, the three routes under load (`note(id:)`, `latest(limit:)`,
/// `create(content:at:)`) run the same statements in the pool's synchronous blocks (`pool.read { db in ... }`) rather
/// than in blocks that suspend: a block that suspends runs on the connection's thread through a task executor,
/// which costs one more thread hop per call. `NotesStoreBenchmark` measured the suspending blocks at 0.68x to 0.79x
/// the calls per second of the synchronous ones for a read by id, 0.84x to 0.87x for the list, and 0.53x to 0.87x
/// for writes (see the README). ``usesSQLiteFastPath`` turns it off; the tests run the store both ways.
public struct NoteStore<Writer: DatabaseWriter>: Sendable {
    public let database: Writer
    /// Whether a `DatabasePool` serves the hot routes through its synchronous blocks (the default); the other
    /// writers always take the blocks written once for every backend.
    public let usesSQLiteFastPath: Bool

    public init(database: Writer, usesSQLiteFastPath: Bool = true) {
        self.database = database
        self.usesSQLiteFastPath = usesSQLiteFastPath
    }

    /// The SQLite pool, when the fast path serves this store.
    private var sqlitePool: DatabasePool? {
        usesSQLiteFastPath ? database as? DatabasePool : nil
    }

    /// The `limit` newest notes, newest first. Newest is the highest id: the key order, which needs no sort on
    /// SQLite (the rowid) and reads the primary key's index backwards on PostgreSQL (a request ordered by the model's
    /// primary key says no `NULLS LAST` there, since the key is never NULL).
    public func latest(limit: Int) async throws -> [Note] {
        let newest = Self.newest(limit: limit)
        if let pool = sqlitePool {
            return try await pool.read { db in try db.fetchAll(newest) }
        }
        return try await database.read { session in try await session.fetchAll(newest) }
    }

    /// The `limit` newest notes, as ``latest(limit:)`` reads them, now and after each commit that changes them.
    public func observeLatest(limit: Int) -> DatabaseObservation<[Note]> {
        database.observe(Self.newest(limit: limit))
    }

    /// The request of the `limit` newest notes, newest first.
    private static func newest(limit: Int) -> QueryRequest<Note> {
        Note.order(Column("id").desc).limit(limit)
    }

    /// The note with `id`, or nil.
    public func note(id: Int64) async throws -> Note? {
        if let pool = sqlitePool {
            return try await pool.read { db in try db.find(Note.self, id: id) }
        }
        return try await database.read { session in try await session.find(Note.self, id: id) }
    }

    /// Inserts a note and returns it as stored, with its new id.
    ///
    /// The note is built and returned inside the write: if the commit fails, nothing outside the write ever sees an id
    /// that was not committed.
    public func create(content: String, at date: Date = Date()) async throws -> Note {
        if let pool = sqlitePool {
            return try await pool.write { db in
                var note = Note(createdAt: date, content: content)
                try db.insert(&note)
                return note
            }
        }
        return try await database.write { session in
            var note = Note(createdAt: date, content: content)
            try await session.insert(&note)  // INSERT ... RETURNING: `note` now holds the row as stored, id included
            return note
        }
    }

    /// Replaces the content of the note with `id` and sets its `updatedAt`, then reads the note back in the same
    /// transaction.
    ///
    /// - Returns: The note as stored after the update, or nil when no note has that id.
    public func update(id: Int64, content: String, at date: Date = Date()) async throws -> Note? {
        try await database.write { session in
            let changed = try await session.updateAll(
                Note.filter(Column("id") == id),
                Column("content").set(to: content),
                Column("updated_at").set(to: date)
            )
            guard changed > 0 else { return nil }
            return try await session.find(Note.self, id: id)
        }
    }

    /// Deletes the note with `id` (its tag links go with it: `ON DELETE CASCADE`).
    ///
    /// - Returns: Whether a note was deleted.
    public func delete(id: Int64) async throws -> Bool {
        try await database.write { session in try await session.delete(Note.self, id: id) }
    }

    /// The number of notes.
    public func count() async throws -> Int {
        try await database.read { session in try await session.fetchCount(Note.all()) }
    }

    /// The schema version: the last migration applied, from the migrator's history (`strata_migrations`, which the
    /// migrator keeps on both backends); 0 before any.
    public func schemaVersion() async throws -> Int {
        try await database.read { session in
            try await session.fetchOne(Int.self, "SELECT coalesce(max(version), 0) FROM strata_migrations") ?? 0
        }
    }
}
