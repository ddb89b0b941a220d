import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's resident memory, for the tests that check that a stream's memory stays flat: Linux only (it is
/// read from /proc).
package enum ResidentMemory {
    /// The resident memory of the process now, in bytes.
    package static func current() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "/proc/self/status"])
        }
        return kilobytes * 1024
    }

    /// Runs `body` while no other measurement of this process runs: resident memory is the whole process's, so two
    /// memory tests of the suite running at once would each count the other's rows. Waits, suspended, for the
    /// other to end (an advisory lock on a file of the temporary folder, polled).
    package static func measuringAlone<Output>(_ body: () async throws -> Output) async throws -> Output {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-memory-tests.lock").path
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        guard descriptor >= 0 else { return try await body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            try await Task.sleep(for: .milliseconds(100))
        }
        defer { flock(descriptor, LOCK_UN) }
        return try await body()
    }
}
