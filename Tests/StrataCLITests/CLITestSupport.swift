import Foundation
import StrataTesting
import Testing

/// A fresh folder under the system temp folder, removed when released; the working directory of a `strata` run.
final class CLIWorkspace {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(name))
    }

    /// Writes `contents` to `name`, creating its folder.
    func write(_ contents: String, to name: String) throws {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: file)
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }

    /// Copies the repository's example `Migrations/` folder here.
    func copyExampleMigrations() throws {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // StrataCLITests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package
            .appendingPathComponent("Migrations")
        try FileManager.default.copyItem(at: source, to: url.appendingPathComponent("Migrations"))
    }

    /// Runs `strata` with `arguments` in this folder.
    func strata(_ arguments: String...) throws -> CLIResult {
        try CLIResult.run(arguments, in: url)
    }
}

/// The outcome of one `strata` process.
struct CLIResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The lines of standard output.
    var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Runs the built `strata` binary, or `binary`. Output goes through files, so a large output cannot block the
    /// process.
    static func run(_ arguments: [String], in directory: URL, binary: URL? = nil) throws -> CLIResult {
        try RunningStrata(arguments, in: directory, binary: binary).wait()
    }

    /// The `strata` executable SwiftPM built next to this test bundle (`.build…/debug/strata`).
    static func strataBinary() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["STRATA_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        // On macOS the test bundle is a folder (`….xctest/Contents/MacOS`); climb to the products folder.
        for folder in folders {
            var candidate = folder
            for _ in 0..<4 {
                let binary = candidate.appendingPathComponent("strata")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: binary.path)
                {
                    return binary
                }
                candidate = candidate.deletingLastPathComponent()
            }
        }
        throw CLITestError(
            "no strata binary next to the test bundle (looked in \(folders.map(\.path))); "
                + "build with `swift build --build-tests` or set STRATA_BINARY")
    }
}

/// A `strata` process started and not yet waited for, so that several can run at once.
///
/// Started with StrataTesting's `ChildProcess` (posix_spawn) on Linux, not Foundation's `Process`, whose `run()`
/// overflowed a heap buffer under the address sanitizer. Its outputs go to files, so a process that prints much never
/// waits for this one to read.
final class RunningStrata {
    /// How long a run may take before it is killed and the test fails: generous, for a loaded machine and the
    /// sanitizers, and far from any run's real length.
    static let timeout = Duration.seconds(300)

    private let outputs: URL
    #if canImport(Glibc)
        private let child: ChildProcess
    #else
        private let process = Process()
        private let stdoutHandle: FileHandle
        private let stderrHandle: FileHandle
    #endif

    init(_ arguments: [String], in directory: URL, binary: URL? = nil) throws {
        let executable = try binary ?? CLIResult.strataBinary()
        outputs = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cli-output-\(UUID())")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        #if canImport(Glibc)
            do {
                child = try ChildProcess.spawn(
                    executable.path, arguments, in: directory.path,
                    standardOutput: .file(outputs.appendingPathComponent("stdout").path),
                    standardError: .file(outputs.appendingPathComponent("stderr").path))
            } catch {
                try? FileManager.default.removeItem(at: outputs)
                throw error
            }
        #else
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = directory
            try Data().write(to: outputs.appendingPathComponent("stdout"))
            try Data().write(to: outputs.appendingPathComponent("stderr"))
            stdoutHandle = try FileHandle(forWritingTo: outputs.appendingPathComponent("stdout"))
            stderrHandle = try FileHandle(forWritingTo: outputs.appendingPathComponent("stderr"))
            process.standardOutput = stdoutHandle
            process.standardError = stderrHandle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        #endif
    }

    /// Waits for the process to exit and returns what it printed.
    ///
    /// - Throws: `CLITestError` when it has not exited within ``timeout``: it is killed then.
    func wait() throws -> CLIResult {
        defer { try? FileManager.default.removeItem(at: outputs) }
        #if canImport(Glibc)
            let (termination, timedOut) = try child.wait(timeout: Self.timeout)
            // As Foundation's `terminationStatus`: the exit status, or the signal that ended it.
            let status: Int32 =
                switch termination {
                case .exited(let status): status
                case .signaled(let signal): signal
                }
        #else
            process.waitUntilExit()
            try stdoutHandle.close()
            try stderrHandle.close()
            let timedOut = false
            let status = process.terminationStatus
        #endif
        let result = CLIResult(
            status: status,
            stdout: try String(contentsOf: outputs.appendingPathComponent("stdout"), encoding: .utf8),
            stderr: try String(contentsOf: outputs.appendingPathComponent("stderr"), encoding: .utf8))
        guard !timedOut else {
            throw CLITestError(
                "strata did not exit within \(Self.timeout) and was killed; stdout: \(result.stdout.suffix(500)); "
                    + "stderr: \(result.stderr.suffix(500))")
        }
        return result
    }
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
