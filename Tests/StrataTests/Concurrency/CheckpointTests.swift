import Foundation
import Strata
import StrataTesting
import Testing

/// A pool checkpoints its WAL on a connection of its own, after the commit that grew it past
/// `wal_autocheckpoint` pages, instead of inside that commit.
@Suite(.timeLimit(.minutes(2)))
struct CheckpointTests {
    /// Writes about `pages` pages of 4 KiB, in writes of 100 rows.
    private func writePages(_ pages: Int, to pool: DatabasePool) async throws {
        try await pool.write { db in try db.execute(query: "CREATE TABLE IF NOT EXISTS blob (data BLOB)") }
        for _ in 0..<(pages / 100) {
            try await pool.write { db in
                let insert = try db.prepare(query: "INSERT INTO blob VALUES (zeroblob(4000))")
                for _ in 0..<100 { try insert.perform() }
            }
        }
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func aGrowingWALIsCheckpointedIntoTheDatabaseFile() async throws {
        try await withTemporaryPool { pool, path in
            // In WAL mode only a checkpoint writes the database file. 1,500 pages cross the default threshold of
            // 1,000 once; the checkpoint runs in the background, so wait for the file to grow (`hangBound` at most).
            let sizeBefore = fileSize(path)
            try await writePages(1500, to: pool)
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(hangBound)
            while fileSize(path) < sizeBefore + 1000 * 4096 && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(fileSize(path) >= sizeBefore + 1000 * 4096)
            // Every row is there, through the WAL and the file alike.
            #expect(try await pool.read { db in try countRows(db, in: "blob") } == 1500)
        }
    }

    @Test func walAutocheckpointZeroInConfigureTurnsCheckpointsOff() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("no-checkpoint.sqlite")
        let pool = try DatabasePool(path: path) { db in try db.execute(query: "PRAGMA wal_autocheckpoint = 0") }
        let sizeBefore = fileSize(path)
        try await writePages(1500, to: pool)
        // Had a commit queued a checkpoint, it would run during the writes that follow (with the threshold taken as
        // 0, every commit queues one, and the file had grown to 5.7 MB here in each of three runs).
        #expect(fileSize(path) == sizeBefore)
        #expect(fileSize(path + "-wal") > 1500 * 4096)
        await pool.close()
        // Closing the last connection still checkpoints everything and removes the WAL.
        #expect(FileManager.default.fileExists(atPath: path + "-wal") == false)
        #expect(fileSize(path) > 1500 * 4096)
    }

    @Test func aWriterThatNeverPausesStillStartsTheWALOver() async throws {
        // A checkpoint in the background copies the WAL as it was when it started, while the writer goes on. Unless
        // the writer copies the rest before its next write, the WAL never starts over from its beginning: it grows
        // with every commit, and every commit's sync costs more. Here the writer commits 3,000 pages back to back,
        // a page a commit, with checkpoints every 100 pages. Never started over, the WAL holds all 9,178 frames
        // written (it did); started over, a few hundred pages at most (114 to 154 here). The bound leaves room for a
        // slow disk.
        let directory = try TemporaryDirectory()
        let path = directory.path("busy-writer.sqlite")
        let pool = try DatabasePool(path: path) { db in try db.execute(query: "PRAGMA wal_autocheckpoint = 100") }
        try await pool.writeWithoutTransaction { db in
            try db.execute(query: "CREATE TABLE blob (data BLOB)")
            let insert = try db.prepare(query: "INSERT INTO blob VALUES (zeroblob(4000))")
            for _ in 0..<3000 { try insert.perform() }
        }
        let walPages = fileSize(path + "-wal") / 4096
        #expect(walPages < 3000, "the WAL grew to \(walPages) pages")
        #expect(try await pool.read { db in try countRows(db, in: "blob") } == 3000)
        await pool.close()
    }
}
