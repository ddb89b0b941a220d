internal import CSQLite

/// The tables a connection's transaction changed, for the observations of its pool or queue: which commits may change
/// which reads (see `Connection.takeCommit()`).
///
/// While ``isRecording``, SQLite's update hook names the table of each row inserted, updated or deleted. It misses
/// some: the rows of a WITHOUT ROWID table, those a `DELETE` without `WHERE` removes at once (the truncate
/// optimization), and any before the hook was installed. A schema change (DDL) changes no row at all. So the log also
/// counts the rows the hook saw against SQLite's own count of changed rows (`sqlite3_total_changes64`), and notes the
/// statements that change the schema: a commit whose counts differ, that changed the schema, or that changed no row
/// (a `PRAGMA user_version = 2`) may have changed anything, ``TableScope/everything``.
///
/// See https://www.sqlite.org/c3ref/update_hook.html
final class ChangeLog {
    /// The tables whose rows the hook saw change, lowercased (SQLite compares table names without case).
    @exclusivity(unchecked) private var tables: Set<String> = []
    /// How many row changes the hook saw.
    @exclusivity(unchecked) private var rowsSeen: Int64 = 0
    /// SQLite's count of changed rows when the log began.
    @exclusivity(unchecked) private var changesBefore: Int64 = 0
    /// Whether a statement that changes the schema ran.
    @exclusivity(unchecked) var schemaChanged = false
    /// The table of the last row the hook saw in the running statement: SQLite's own string, the same pointer for each
    /// row of a table within a statement. Cleared as each statement starts, since the pointer of a table dropped
    /// meanwhile may be another table's.
    @exclusivity(unchecked) var lastTable: UnsafePointer<CChar>?
    /// Whether the update hook is installed.
    @exclusivity(unchecked) private(set) var isRecording = false

    /// Installs the update hook on `handle`, or removes it. The log must outlive the handle: `Connection` owns both.
    func record(_ recording: Bool, on handle: OpaquePointer) {
        guard recording != isRecording else { return }
        isRecording = recording
        guard recording else {
            sqlite3_update_hook(handle, nil, nil)
            return
        }
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                Unmanaged<ChangeLog>.fromOpaque(context).takeUnretainedValue().rowChanged(in: table)
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    private func rowChanged(in table: UnsafePointer<CChar>) {
        rowsSeen += 1
        guard table != lastTable else { return }
        lastTable = table
        tables.insert(String(cString: table).lowercased())
    }

    /// What the transaction changed, when it committed with SQLite's count of changed rows at `totalChanges`.
    func changes(totalChanges: Int64) -> TableScope {
        guard !schemaChanged, !tables.isEmpty, totalChanges - changesBefore == rowsSeen else { return .everything }
        return .tables(tables)
    }

    /// Begins a new log, with SQLite's count of changed rows at `totalChanges`: no transaction is open.
    func restart(totalChanges: Int64) {
        if !tables.isEmpty { tables.removeAll(keepingCapacity: true) }
        rowsSeen = 0
        changesBefore = totalChanges
        schemaChanged = false
        lastTable = nil
    }
}
