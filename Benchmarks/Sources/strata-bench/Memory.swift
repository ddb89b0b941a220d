import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's peak resident set so far, in KiB.
///
/// On Linux this is `VmHWM` from `/proc/self/status`, the high-water mark of the process's own
/// memory. `getrusage`'s `ru_maxrss` is the same figure, except that it also takes the maximum
/// with the RSS of the process image replaced at `exec`: a child started with `posix_spawn`
/// (vfork) from a parent holding 100 MB reports at least those 100 MB. `ru_maxrss` is the fallback.
func peakResidentKB() -> Int {
    if let kilobytes = procStatusKB("VmHWM:") { return kilobytes }
    var usage = rusage()
    #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) / 1024  // bytes on Darwin
    #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)  // KiB on Linux
    #endif
}

/// A `kB` field of `/proc/self/status`, such as `VmHWM:` or `VmRSS:`.
private func procStatusKB(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
}

/// The process's resident set now, in KiB (`VmRSS`); the peak where `/proc` does not exist.
func currentResidentKB() -> Int {
    procStatusKB("VmRSS:") ?? peakResidentKB()
}

/// Lowers the peak resident set to the current one (Linux: `5` into `/proc/self/clear_refs`), so that
/// a later `ru_maxrss` measures what came after, not the setup before. Returns whether it could.
@discardableResult
func resetPeakResident() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("5".utf8))) != nil
}

/// One line of the memory table, as a child process reports it on standard output.
struct MemoryReport {
    static let prefix = "MEMORY "
    var label: String
    var rows: Int
    var baselineKB: Int
    var peakKB: Int

    var growthKB: Int { max(0, peakKB - baselineKB) }

    var line: String {
        "\(Self.prefix)label=\(label) rows=\(rows) baseline_kb=\(baselineKB) peak_kb=\(peakKB)"
    }

    init(label: String, rows: Int, baselineKB: Int, peakKB: Int) {
        (self.label, self.rows, self.baselineKB, self.peakKB) = (label, rows, baselineKB, peakKB)
    }

    init?(line: Substring) {
        guard line.hasPrefix(Self.prefix) else { return nil }
        var fields: [Substring: Substring] = [:]
        for field in line.dropFirst(Self.prefix.count).split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let label = fields["label"], let rows = fields["rows"].flatMap({ Int($0) }),
            let baseline = fields["baseline_kb"].flatMap({ Int($0) }), let peak = fields["peak_kb"].flatMap({ Int($0) })
        else { return nil }
        self.init(label: String(label), rows: rows, baselineKB: baseline, peakKB: peak)
    }
}

/// Runs this executable again with `arguments` and collects the memory line it prints.
func runChild(_ arguments: [String]) throws -> MemoryReport {
    let process = Process()
    let executable =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0,
        let report = text.split(separator: "\n").lazy.compactMap(MemoryReport.init(line:)).first
    else {
        throw BenchmarkFailure(
            "child `strata-bench \(arguments.joined(separator: " "))` failed "
                + "(status \(process.terminationStatus)): \(text)")
    }
    return report
}
