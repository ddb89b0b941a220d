extension ConnectionPool {
    /// Backs up the database from one of this pool's connections, one step per turn on the connection's queue: the
    /// loop of ``DatabasePool/backup(to:overwrite:pagesPerStep:progress:)`` and
    /// ``DatabaseQueue/backup(to:overwrite:pagesPerStep:progress:)``.
    ///
    /// The connection stays lent to the backup from the first step to the last, so its read transaction, and the
    /// snapshot it pins, last across the steps. Between two steps the task is suspended on the next step's turn, so
    /// no thread of the cooperative pool waits for the copy.
    func backup(
        to path: String,
        overwrite: Bool,
        pagesPerStep: Int32,
        progress: ((BackupProgress) async throws -> Void)?
    ) async throws -> BackupProgress {
        let connection = try await acquire()
        defer { release(connection) }
        let operation = try await connection.perform { db in
            try BackupOperation(source: db, path: path, overwrite: overwrite, pagesPerStep: pagesPerStep)
        }
        do {
            var current: BackupProgress
            repeat {
                try Task.checkCancellation()
                current = try await connection.perform { db in try operation.step(source: db) }
                try await progress?(current)
            } while !operation.isDone
            try await connection.perform { db in try operation.finish(source: db) }
            current.leftovers = operation.leftovers
            return current
        } catch {
            // Abandoning throws nothing; `perform` throws only for a connection that stopped, which a lent one never
            // does, or that could not be replaced after an I/O error: then the operation's deinit removes the file.
            try? await connection.perform { db in operation.abandon(source: db) }
            throw operation.reportingLeftovers(in: error)
        }
    }
}
