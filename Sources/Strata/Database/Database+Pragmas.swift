import Foundation

/// The journal modes of https://www.sqlite.org/pragma.html#pragma_journal_mode
public enum JournalMode: String, Sendable, CaseIterable {
    case delete, truncate, persist, memory, wal, off
}

/// How long a commit waits for the disk: the modes of https://www.sqlite.org/pragma.html#pragma_synchronous
///
/// In WAL mode, Strata's mode for file databases:
///
/// | mode | survives a crash of the process | survives a power loss or an OS crash |
/// |---|---|---|
/// | `.full` (the default) | yes | yes: each commit syncs the WAL |
/// | `.normal` | yes | the database stays consistent, but the last commits may roll back |
/// | `.off` | yes | no: the file may be corrupted |
///
/// `.extra` is `.full` and also syncs the directory after a rollback journal is deleted; in WAL mode it acts as
/// `.full`.
public enum SynchronousMode: Int, Sendable, CaseIterable {
    case off = 0
    case normal = 1
    case full = 2
    case extra = 3
}

/// The modes of https://www.sqlite.org/pragma.html#pragma_auto_vacuum
public enum AutoVacuum: Int, Sendable, CaseIterable {
    case none = 0
    case full = 1
    case incremental = 2
}

/// The modes of https://www.sqlite.org/pragma.html#pragma_secure_delete
public enum SecureDelete: Int, Sendable, CaseIterable {
    case off = 0
    case on = 1
    /// Overwrites deleted content only where it costs no extra I/O.
    case fast = 2
}

/// The modes of https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
public enum WALCheckpointMode: String, Sendable, CaseIterable {
    case passive, full, restart, truncate
}

/// What a WAL checkpoint did.
public struct WALCheckpointResult: Sendable, Equatable {
    /// Whether a writer or reader kept the checkpoint from finishing (SQLITE_BUSY).
    public var wasBlocked: Bool
    /// Frames in the WAL file.
    public var walFrames: Int
    /// Frames copied back into the database.
    public var checkpointedFrames: Int
}

extension Database {
    /// The schema version an application keeps in the file header, 0 in a new database.
    ///
    /// Migrations are driven by it; see ``migrate(version:_:)``.
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_user_version
    public var userVersion: Int {
        get throws { try pragmaInteger("user_version") }
    }

    /// Sets ``userVersion``, for example to baseline an existing database before its first migration.
    ///
    /// - Throws: `DatabaseError.Code.invalidArgument` outside the 32-bit signed range SQLite stores.
    public func setUserVersion(_ version: Int) throws {
        guard let version32 = Int32(exactly: version) else {
            throw DatabaseError(code: .invalidArgument, message: "user_version \(version) is outside the 32-bit range")
        }
        try execute(query: "PRAGMA user_version = \(version32)")
    }

    /// The journal mode: `.wal` for files opened writable, `.memory` for in-memory databases.
    public var journalMode: JournalMode {
        get throws {
            let name = try pragmaText("journal_mode").lowercased()
            guard let mode = JournalMode(rawValue: name) else {
                throw DatabaseError(code: .invalidValue, message: "unknown journal mode \"\(name)\"")
            }
            return mode
        }
    }

    /// Changes the journal mode.
    ///
    /// **It returns only once the file is in the new mode.** Changing between WAL and a rollback-journal mode
    /// writes the file's header, and a failure to write or sync it (a full disk, an I/O error) throws: the file
    /// stays in its old mode.
    ///
    /// - Throws: `DatabaseError` when SQLite keeps another mode, as an in-memory database does for `.wal`, or when
    ///   the change cannot be written.
    public func setJournalMode(_ mode: JournalMode) throws {
        let statement = try prepare(query: "PRAGMA journal_mode = \(mode.rawValue)")
        // The pragma returns the new mode's name before it commits the header: only its last step says whether the
        // change is in the file.
        let result: String = try statement.singleValue()
        guard result.lowercased() == mode.rawValue else {
            throw DatabaseError(
                code: .invalidArgument,
                message: "journal mode stays \(result): could not change it to \(mode.rawValue)",
                sql: statement.sql)
        }
    }

    /// How long each commit waits for the disk: `.full` unless changed (see ``SynchronousMode`` for what each mode
    /// survives).
    ///
    /// ```swift
    /// try db.setSynchronous(.normal)
    /// let mode = try db.synchronous    // .normal
    /// ```
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_synchronous
    public var synchronous: SynchronousMode {
        get throws {
            let raw = try pragmaInteger("synchronous")
            guard let mode = SynchronousMode(rawValue: raw) else {
                throw DatabaseError(code: .invalidValue, message: "unknown synchronous mode \(raw)")
            }
            return mode
        }
    }

    /// Sets ``synchronous`` for this connection. Each connection has its own: on a ``DatabasePool``, pass
    /// `synchronous:` to its initializer, which sets the writer's.
    public func setSynchronous(_ mode: SynchronousMode) throws {
        try execute(query: "PRAGMA synchronous = \(mode.rawValue)")
    }

    /// Whether foreign key constraints are enforced. On by default in Strata.
    public var foreignKeys: Bool {
        get throws { try pragmaInteger("foreign_keys") != 0 }
    }

    /// Turns foreign key enforcement on or off.
    ///
    /// - Throws: `DatabaseError.Code.invalidArgument` inside a transaction, where SQLite ignores the change.
    public func setForeignKeys(_ enabled: Bool) throws {
        try execute(query: "PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
        guard try foreignKeys == enabled else {
            throw DatabaseError(
                code: .invalidArgument, message: "foreign_keys cannot change inside a transaction")
        }
    }

    /// The auto-vacuum mode. See https://www.sqlite.org/pragma.html#pragma_auto_vacuum
    public var autoVacuum: AutoVacuum {
        get throws {
            let raw = try pragmaInteger("auto_vacuum")
            guard let mode = AutoVacuum(rawValue: raw) else {
                throw DatabaseError(code: .invalidValue, message: "unknown auto_vacuum mode \(raw)")
            }
            return mode
        }
    }

    /// Sets the auto-vacuum mode. An existing database takes a change between `.none` and the others only at its
    /// next ``vacuum()``.
    public func setAutoVacuum(_ mode: AutoVacuum) throws {
        try execute(query: "PRAGMA auto_vacuum = \(mode.rawValue)")
    }

    /// Whether deleted content is overwritten. See https://www.sqlite.org/pragma.html#pragma_secure_delete
    public var secureDelete: SecureDelete {
        get throws {
            let raw = try pragmaInteger("secure_delete")
            guard let mode = SecureDelete(rawValue: raw) else {
                throw DatabaseError(code: .invalidValue, message: "unknown secure_delete mode \(raw)")
            }
            return mode
        }
    }

    public func setSecureDelete(_ mode: SecureDelete) throws {
        // SQLite reads the value as a boolean, so 2 would mean ON: FAST must be spelled out.
        let value =
            switch mode {
            case .off: "OFF"
            case .on: "ON"
            case .fast: "FAST"
            }
        try execute(query: "PRAGMA secure_delete = \(value)")
    }

    /// Rebuilds the database file, reclaiming free pages. Fails inside a transaction.
    ///
    /// See https://www.sqlite.org/lang_vacuum.html
    public func vacuum() throws {
        try execute(query: "VACUUM")
    }

    /// Frees up to `pages` free pages (all of them when `pages` is 0) in `.incremental` auto-vacuum mode.
    public func incrementalVacuum(pages: Int = 0) throws {
        guard pages >= 0 else {
            throw DatabaseError(code: .invalidArgument, message: "incremental vacuum of \(pages) pages")
        }
        try execute(query: pages == 0 ? "PRAGMA incremental_vacuum" : "PRAGMA incremental_vacuum(\(pages))")
    }

    /// Copies WAL content back into the database file.
    ///
    /// See https://www.sqlite.org/pragma.html#pragma_wal_checkpoint
    @discardableResult
    public func walCheckpoint(mode: WALCheckpointMode = .passive) throws -> WALCheckpointResult {
        let statement = try prepare(query: "PRAGMA wal_checkpoint(\(mode.rawValue))")
        guard case .row(let row) = try statement.step() else {
            throw DatabaseError(code: .invalidValue, message: "wal_checkpoint returned no row", sql: statement.sql)
        }
        let result = WALCheckpointResult(
            wasBlocked: try row[0] != 0, walFrames: try row[1], checkpointedFrames: try row[2])
        // Run to the end, as `singleValue()` does: a failure after the row is thrown, not dropped by a reset.
        while case .row = try statement.step() {}
        return result
    }

    /// Runs `PRAGMA integrity_check` and returns its lines: `["ok"]` for a sound database.
    public func integrityCheck() throws -> [String] {
        let statement = try prepare(query: "PRAGMA integrity_check")
        var lines: [String] = []
        while let row = try statement.next() {
            lines.append(try row[0])
        }
        return lines
    }

    // MARK: Internal

    func pragmaInteger(_ name: String) throws -> Int {
        try prepare(query: "PRAGMA \(name)").singleValue()
    }

    func pragmaText(_ name: String) throws -> String {
        try prepare(query: "PRAGMA \(name)").singleValue()
    }
}

extension Statement {
    /// The first column of the first row, for statements that return one value, **run to its end**.
    ///
    /// A pragma that changes the file (`journal_mode`) returns its row before it commits, in its last step: a failure
    /// there (a full disk, an I/O error) must be thrown, not dropped by the reset that ends an unfinished statement.
    func singleValue<Value: DatabaseValueConvertible>() throws -> Value {
        guard case .row(let row) = try step() else {
            throw DatabaseError(code: .invalidValue, message: "the statement returned no row", sql: sql)
        }
        let value: Value = try row[0]
        while case .row = try step() {}
        return value
    }
}
