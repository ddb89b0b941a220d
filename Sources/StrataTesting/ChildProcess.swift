#if canImport(Glibc)
    import Glibc
    import Synchronization

    /// A child process the tests start with `posix_spawn` and reap with `waitpid`: Linux only.
    ///
    /// Not Foundation's `Process`, whose `run()` scans `/proc/self/fd` and overflowed a heap buffer there under the
    /// address sanitizer (in `findMaximumOpenFromProcSelfFD`, inside the toolchain's Foundation), and whose
    /// `waitUntilExit()` once missed a child's exit while the suite ran many processes at once. The child gets none
    /// of the test process's descriptors but its standard input, output and error; its signals start at their
    /// defaults, unblocked, as with `Process`.
    ///
    /// An output sent to a ``Output/pipe`` is read by this process into ``output`` or ``errorOutput``: by
    /// ``read(timeout:until:)``, and by ``wait(timeout:)``, ``kill()`` and ``exit()`` while they wait, which read both
    /// pipes at once, so a child that writes more than a pipe holds to either never blocks for good. What a
    /// grandchild still writes after the child ended is not read.
    ///
    /// ```swift
    /// let finished = try ChildProcess.run("/usr/bin/sha256sum", [path], timeout: .seconds(60))
    /// #expect(finished.termination == .exited(0))
    /// print(finished.outputText)
    /// ```
    ///
    /// One thread at a time uses a child. A child not yet waited for when it is released is killed and reaped.
    package final class ChildProcess: Sendable {
        /// How a child ended.
        package enum Termination: Sendable, Equatable {
            /// It exited with this status.
            case exited(Int32)
            /// A signal ended it.
            case signaled(Int32)
        }

        /// Where the child's standard output or error goes.
        package enum Output: Sendable, Equatable {
            /// To /dev/null.
            case discard
            /// To this file, created or emptied.
            case file(String)
            /// Into a pipe this process reads, into ``ChildProcess/output`` or ``ChildProcess/errorOutput``.
            case pipe
        }

        /// A child that ended, and everything it wrote to its pipes.
        package struct Finished: Sendable {
            /// How it ended.
            package let termination: Termination
            /// What it wrote to standard output.
            package let output: [UInt8]
            /// What it wrote to standard error.
            package let errorOutput: [UInt8]

            /// Standard output as UTF-8 (invalid bytes replaced).
            package var outputText: String { String(decoding: output, as: UTF8.self) }
            /// Standard error as UTF-8 (invalid bytes replaced).
            package var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
        }

        /// The child's process id.
        package let pid: Int32
        /// The read end of the standard output pipe; -1 without one.
        private let outputPipe: Int32
        /// The read end of the standard error pipe; -1 without one.
        private let errorPipe: Int32
        private let state: Mutex<State>

        private struct State {
            /// How the child ended, once it is reaped: its pid may belong to another process then.
            var termination: Termination?
            var output: [UInt8] = []
            var errorOutput: [UInt8] = []
            /// Whether the pipe may still give bytes (false without one).
            var outputOpen: Bool
            var errorOpen: Bool
        }

        private init(pid: Int32, outputPipe: Int32, errorPipe: Int32) {
            self.pid = pid
            self.outputPipe = outputPipe
            self.errorPipe = errorPipe
            state = Mutex(State(outputOpen: outputPipe >= 0, errorOpen: errorPipe >= 0))
        }

        deinit {
            if state.withLock({ $0.termination }) == nil {
                Glibc.kill(pid, SIGKILL)
                _ = try? reap(blocking: true)
            }
            if outputPipe >= 0 { close(outputPipe) }
            if errorPipe >= 0 { close(errorPipe) }
        }

        /// Starts `executable` (a path) with `arguments`, in `directory` when given, with `environment` (the test
        /// process's when nil). Standard input is /dev/null.
        ///
        /// - Throws: ``ChildProcessError`` when the child cannot be started.
        package static func spawn(
            _ executable: String, _ arguments: [String], in directory: String? = nil,
            environment: [String: String]? = nil, standardOutput: Output = .discard, standardError: Output = .discard
        ) throws -> ChildProcess {
            // The pipes' ends close on exec: the child keeps only the copies made its descriptors 1 and 2, and no
            // other child started meanwhile inherits them (which would hold a pipe open after this child ended).
            var pipes: [Int32] = []
            defer { pipes.forEach { close($0) } }
            func pipe(for output: Output) throws -> (read: Int32, write: Int32) {
                guard output == .pipe else { return (-1, -1) }
                var ends: [Int32] = [-1, -1]
                guard try GNUFunctions.pipe(&ends, O_CLOEXEC) == 0 else {
                    throw ChildProcessError("could not make a pipe for \(executable): errno \(errno)")
                }
                pipes += ends
                // Only this side does not block: the child writes as to any pipe.
                guard fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0 else {
                    throw ChildProcessError("could not make a pipe for \(executable) non-blocking: errno \(errno)")
                }
                return (ends[0], ends[1])
            }
            let outputEnds = try pipe(for: standardOutput)
            let errorEnds = try pipe(for: standardError)

            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            func redirect(_ descriptor: Int32, to output: Output, pipe: Int32) -> Int32 {
                switch output {
                case .discard:
                    posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                case .pipe:
                    posix_spawn_file_actions_adddup2(&actions, pipe, descriptor)
                }
            }
            var failures = [
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0),
                redirect(1, to: standardOutput, pipe: outputEnds.write),
                redirect(2, to: standardError, pipe: errorEnds.write),
                try GNUFunctions.closeFrom(&actions, 3),
            ]
            if let directory {
                failures.append(try GNUFunctions.changeDirectory(&actions, directory))
            }
            if let failure = failures.first(where: { $0 != 0 }) {
                throw ChildProcessError("could not prepare to start \(executable): errno \(failure)")
            }

            // Every signal at its default and none blocked, whatever this process set.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var all = sigset_t()
            var none = sigset_t()
            sigfillset(&all)
            sigemptyset(&none)
            let attributeFailures = [
                posix_spawnattr_setsigdefault(&attributes, &all),
                posix_spawnattr_setsigmask(&attributes, &none),
                posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)),
            ]
            if let failure = attributeFailures.first(where: { $0 != 0 }) {
                throw ChildProcessError("could not prepare the signals of \(executable): errno \(failure)")
            }

            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned: Int32
            if let environment {
                let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
                defer { envp.forEach { free($0) } }
                spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
            } else {
                spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
            guard spawned == 0 else {
                throw ChildProcessError("\(executable) could not be started: errno \(spawned)")
            }
            // The read ends are the child's now; the deferred close closes the write ends only.
            pipes.removeAll { $0 == outputEnds.read || $0 == errorEnds.read }
            return ChildProcess(pid: pid, outputPipe: outputEnds.read, errorPipe: errorEnds.read)
        }

        /// Runs `executable` to its end with both outputs piped, and returns how it ended and what it wrote.
        ///
        /// - Throws: ``ChildProcessError`` when it cannot be started, or when it has not ended after `timeout`: it
        ///   is killed then, and the error quotes the end of what it wrote.
        package static func run(
            _ executable: String, _ arguments: [String], in directory: String? = nil,
            environment: [String: String]? = nil, timeout: Duration
        ) throws -> Finished {
            let child = try spawn(
                executable, arguments, in: directory, environment: environment, standardOutput: .pipe,
                standardError: .pipe)
            let (termination, timedOut) = try child.wait(timeout: timeout)
            let finished = Finished(termination: termination, output: child.output, errorOutput: child.errorOutput)
            guard !timedOut else {
                throw ChildProcessError(
                    "\(executable) \(arguments.joined(separator: " ")) did not end within \(timeout) and was killed; "
                        + "its output ends: \(finished.outputText.suffix(500)); its errors end: "
                        + "\(finished.errorText.suffix(500))")
            }
            return finished
        }

        /// What the child wrote to its standard output pipe so far.
        package var output: [UInt8] { state.withLock { $0.output } }

        /// What the child wrote to its standard error pipe so far.
        package var errorOutput: [UInt8] { state.withLock { $0.errorOutput } }

        /// Reads the child's pipes until `condition` holds for its standard output so far, both pipes have ended,
        /// or `timeout` has passed; returns whether `condition` held.
        package func read(timeout: Duration, until condition: ([UInt8]) -> Bool) -> Bool {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while !condition(output) {
                let remaining = deadline - clock.now
                guard remaining > .zero else { return false }
                guard pump(waitingAtMost: min(remaining, .seconds(1))) else { return condition(output) }
            }
            return true
        }

        /// Waits for the child to end, on the calling thread, reading its pipes meanwhile; kills it (`SIGKILL`)
        /// after `timeout` and waits for that. Returns how it ended, and whether it was killed for the timeout.
        package func wait(timeout: Duration) throws -> (termination: Termination, timedOut: Bool) {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var pause: UInt32 = 500
            while clock.now < deadline {
                if let termination = try reap(blocking: false) {
                    drainAfterExit()
                    return (termination, false)
                }
                if !pump(waitingAtMost: .milliseconds(10)) {
                    usleep(pause)
                    pause = min(pause * 2, 10_000)
                }
            }
            return (try kill(), true)
        }

        /// Waits for the child to end without holding a thread, asking (and reading its pipes) every few
        /// milliseconds.
        package func exit() async throws -> Termination {
            while true {
                if let termination = try reap(blocking: false) {
                    drainAfterExit()
                    return termination
                }
                _ = pump(waitingAtMost: .zero)
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// Kills the child (`SIGKILL`) unless it has ended, waits for it, and reads what it wrote before; returns
        /// how it ended, which is how it ended by itself when it had already.
        @discardableResult
        package func kill() throws -> Termination {
            if let termination = try reap(blocking: false) {
                drainAfterExit()
                return termination
            }
            // Not reaped, so the pid is still the child's (a zombie at worst).
            Glibc.kill(pid, SIGKILL)
            guard let termination = try reap(blocking: true) else {
                throw ChildProcessError("waitpid returned without the killed child \(pid)")
            }
            drainAfterExit()
            return termination
        }

        /// How the child ended once it has; nil while it runs (never when `blocking`).
        private func reap(blocking: Bool) throws -> Termination? {
            if let termination = state.withLock({ $0.termination }) { return termination }
            var status: Int32 = 0
            while true {
                let waited = waitpid(pid, &status, blocking ? 0 : WNOHANG)
                if waited == pid { break }
                if waited == 0 { return nil }
                guard errno == EINTR else { throw ChildProcessError("waitpid(\(pid)) failed: errno \(errno)") }
            }
            // The low 7 bits are the signal that ended it, 0 when it exited; the status is the next byte.
            let signal = status & 0x7f
            let termination: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            state.withLock { $0.termination = termination }
            return termination
        }

        /// Waits up to `timeout` for either pipe to have bytes and reads what they have; returns whether a pipe may
        /// still give more (false at once without pipes).
        private func pump(waitingAtMost timeout: Duration) -> Bool {
            var descriptors = state.withLock { state in
                [(outputPipe, state.outputOpen), (errorPipe, state.errorOpen)].filter(\.1).map {
                    pollfd(fd: $0.0, events: Int16(POLLIN), revents: 0)
                }
            }
            guard !descriptors.isEmpty else { return false }
            let (seconds, attoseconds) = timeout.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            if poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 {
                _ = readPipes()
            }
            return state.withLock { $0.outputOpen || $0.errorOpen }
        }

        /// Reads what the child wrote before it ended: all of it is in the pipes (a grandchild's later bytes are not).
        private func drainAfterExit() {
            while readPipes() {}
        }

        /// Reads what both pipes have now, without waiting; returns whether one had more than one call reads.
        private func readPipes() -> Bool {
            state.withLock { state in
                var more = false
                if state.outputOpen {
                    let outcome = Self.readAvailable(outputPipe, into: &state.output)
                    state.outputOpen = outcome != .ended
                    more = more || outcome == .more
                }
                if state.errorOpen {
                    let outcome = Self.readAvailable(errorPipe, into: &state.errorOutput)
                    state.errorOpen = outcome != .ended
                    more = more || outcome == .more
                }
                return more
            }
        }

        private enum ReadOutcome { case ended, empty, more }

        /// Reads a non-blocking pipe until it is empty or has ended, or 4 MiB (a child writing without pause must
        /// not keep the reader from its deadline).
        private static func readAvailable(_ descriptor: Int32, into bytes: inout [UInt8]) -> ReadOutcome {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            for _ in 0..<64 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    bytes.append(contentsOf: buffer[0..<count])
                } else if count == 0 {
                    return .ended
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    return .empty
                } else if errno != EINTR {
                    return .ended
                }
            }
            return .more
        }
    }

    /// Why a child could not be started or waited for.
    package struct ChildProcessError: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// glibc's functions that Swift's Glibc module does not declare (they are GNU extensions): found at run time.
    private enum GNUFunctions {
        private typealias AddChangeDirectory =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        private typealias AddCloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32

        /// `pipe2`, which makes both ends with `flags` at once (glibc 2.9).
        static func pipe(_ ends: UnsafeMutablePointer<Int32>, _ flags: Int32) throws -> Int32 {
            let function = unsafeBitCast(try symbol("pipe2"), to: Pipe2.self)
            return function(ends, flags)
        }

        /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29).
        static func changeDirectory(
            _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ directory: String
        ) throws -> Int32 {
            let function = unsafeBitCast(
                try symbol("posix_spawn_file_actions_addchdir_np"), to: AddChangeDirectory.self)
            return function(actions, directory)
        }

        /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34).
        static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) throws
            -> Int32
        {
            let function = unsafeBitCast(
                try symbol("posix_spawn_file_actions_addclosefrom_np"), to: AddCloseFrom.self)
            return function(actions, lowest)
        }

        private static func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            // RTLD_DEFAULT, which is a null handle on glibc: the libraries the process has loaded.
            guard let address = dlsym(nil, name) else {
                throw ChildProcessError("\(name) is missing from the C library (it needs glibc 2.34 or later)")
            }
            return address
        }
    }
#endif
