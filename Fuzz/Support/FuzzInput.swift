// Shared by every fuzz target: reads typed values off the fuzzer's bytes, and a guarded database.
//
// The fuzz targets compile Strata's sources into one module with the target file, so they reach
// the library's internal API and the C API (for resource limits) directly.

import CSQLite
import Foundation

/// Reads values off the front of the fuzzer's input; every read succeeds (with zeros at the end).
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position >= bytes.count }
    var remaining: Int { max(0, bytes.count - position) }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
        var value: T = 0
        for _ in 0..<(T.bitWidth / 8) {
            value = (value << 8) | T(truncatingIfNeeded: byte())
        }
        return value
    }

    /// Up to `limit` bytes, the count taken from the input.
    mutating func chunk(limit: Int = 64) -> [UInt8] {
        let count = min(Int(byte()) % (limit + 1), remaining)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return isAtEnd ? [] : Array(bytes[position...])
    }
}

/// Stops the fuzzer with a message: a defect of the library that the harness found.
func fuzzFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("FUZZ DEFECT: " + message + "\n").utf8))
    abort()
}

/// Counts progress-handler calls, so that a runaway query (a recursive CTE) is interrupted.
nonisolated(unsafe) var fuzzProgressBudget: Int32 = 0

/// An in-memory database whose queries are cut short after a bounded amount of work, and that
/// cannot attach files or load extensions: a fuzzed query touches nothing outside memory.
func makeGuardedDatabase() -> Database? {
    guard let db = try? Database(), let handle = db.handle else { return nil }
    fuzzProgressBudget = 0
    sqlite3_progress_handler(
        handle, 1000,
        { _ in
            fuzzProgressBudget += 1
            return fuzzProgressBudget > 200 ? 1 : 0
        }, nil)
    sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, 1 << 20)
    sqlite3_limit(handle, SQLITE_LIMIT_SQL_LENGTH, 1 << 16)
    sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
    sqlite3_set_authorizer(
        handle,
        { _, action, _, _, _, _ in
            // No ATTACH (files) and no pragmas that change the process (mmap, temp_store_directory, ...).
            action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK
        }, nil)
    return db
}
