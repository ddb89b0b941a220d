import Foundation
import StrataTesting
import Testing

@testable import Strata

/// **Memory stays flat however many rows a stream reads**: the process's resident memory grows by less than a
/// generous bound while a million rows of about 120 bytes go through a stream, and by more than that bound when
/// `fetchAll` holds the same rows at once (which shows the bound tells the two apart).
///
/// Only where /proc tells resident memory (Linux), and not under a sanitizer, whose shadow memory and quarantine of
/// freed blocks make resident memory say nothing about the stream.
///
/// The time limit only stops a hang: in the full parallel run on a 2-core machine the test, which first waits for the
/// other memory tests (`ResidentMemory.measuringAlone`), once ran past 3 minutes.
@Suite(
    .timeLimit(.minutes(6)),
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "resident memory is read from /proc"),
    .disabled(
        if: isRunningUnderSanitizer, "a sanitizer's shadow memory and quarantine make resident memory meaningless")
)
struct RowStreamMemoryTests {
    /// A small row: an integer and a text of about 110 characters.
    struct Tick: Decodable, Sendable {
        var id: Int64
        var label: String
    }

    @Test func streamingAMillionRowsKeepsResidentMemoryFlat() async throws {
        let rowCount = 1_000_000
        // Streaming grew by about 50 MiB with the whole suite running beside it (other tests' memory counts too),
        // fetchAll by about 240 MiB.
        let bound = 100 * 1024 * 1024
        try await ResidentMemory.measuringAlone {
            try await withTemporaryPool(readers: 1) { pool, _ in
                try await pool.write { db in
                    try db.execute(query: "CREATE TABLE tick (id INTEGER PRIMARY KEY, label TEXT)")
                    try db.execute(
                        query: """
                            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :count)
                            INSERT INTO tick (id, label) SELECT x, printf('tick %d %.*c', x, 100, 'x') FROM n
                            """,
                        parameters: ["count": rowCount])
                }
                // Warm up: the first batches allocate the statement, decoder caches and a batch buffer.
                for try await _ in pool.stream(Tick.self, query: "SELECT id, label FROM tick LIMIT 1000") {}
                let before = try ResidentMemory.current()
                var peak = before
                var count = 0
                var sum: Int64 = 0
                for try await tick in pool.stream(Tick.self, query: "SELECT id, label FROM tick ORDER BY id") {
                    count += 1
                    sum &+= tick.id
                    if count % 100_000 == 0 { peak = max(peak, try ResidentMemory.current()) }
                }
                let growth = peak - before
                #expect(count == rowCount)
                #expect(sum == Int64(rowCount) * Int64(rowCount + 1) / 2)
                #expect(growth < bound, "grew by \(growth / 1024) KiB")
                #expect(pool.idleReaderCount == 1)
                // The control: the same rows held at once.
                let all = try await pool.read { db in
                    try db.fetchAll(Tick.self, query: "SELECT id, label FROM tick ORDER BY id")
                }
                let fetchAllGrowth = try ResidentMemory.current() - before
                #expect(all.count == rowCount)
                #expect(fetchAllGrowth > bound, "grew by \(fetchAllGrowth / 1024) KiB")
                print(
                    "RowStreamMemoryTests: \(rowCount) rows; resident memory grew by \(growth / 1024) KiB while streaming, "
                        + "by \(fetchAllGrowth / 1024) KiB with fetchAll")
            }
        }
    }
}
