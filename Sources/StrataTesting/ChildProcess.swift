#if canImport(Glibc)
    import Glibc

    /// A child process the tests start with `posix_spawn` and reap with `waitpid`: Linux only.
    ///
    /// Not Foundation's `Process`, whose `run()` scans `/proc/self/fd` and overflowed a heap buffer there under the
    /// address sanitizer (in `findMaximumOpenFromProcSelfFD`, inside the toolchain's Foundation), and whose
    /// `waitUntilExit()` once missed a child's exit while the suite ran many processes at once. The child gets none
    /// of the test process's descriptors but its standard input, output and error, which go to the files given.
    package struct ChildProcess: Sendable {
        /// How a child ended.
        package enum Termination: Sendable, Equatable {
            /// It exited with this status.
            case exited(Int32)
            /// A signal ended it.
            case signaled(Int32)
        }

        /// The child's process id.
        package let pid: Int32

        /// Starts `executable` (a path) with `arguments`, in `directory` when given, with `environment` (the test
        /// process's when nil).
        ///
        /// - Parameters:
        ///   - standardOutput: A file the child's standard output replaces; /dev/null when nil. Same for
        ///     `standardError`. Standard input is /dev/null.
        /// - Throws: ``ChildProcessError`` when the child cannot be started.
        package static func spawn(
            _ executable: String, _ arguments: [String], in directory: String? = nil,
            environment: [String: String]? = nil, standardOutput: String? = nil, standardError: String? = nil
        ) throws -> ChildProcess {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            let output = O_WRONLY | O_CREAT | O_TRUNC
            var failures = [
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0),
                posix_spawn_file_actions_addopen(&actions, 1, standardOutput ?? "/dev/null", output, 0o600),
                posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", output, 0o600),
                try GNUSpawnActions.closeFrom(&actions, 3),
            ]
            if let directory {
                failures.append(try GNUSpawnActions.changeDirectory(&actions, directory))
            }
            if let failure = failures.first(where: { $0 != 0 }) {
                throw ChildProcessError("could not prepare to start \(executable): errno \(failure)")
            }
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned: Int32
            if let environment {
                let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
                defer { envp.forEach { free($0) } }
                spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            } else {
                spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
            }
            guard spawned == 0 else {
                throw ChildProcessError("\(executable) could not be started: errno \(spawned)")
            }
            return ChildProcess(pid: pid)
        }

        /// Waits for the child to end, on the calling thread; kills it (`SIGKILL`) after `timeout` and waits for
        /// that. Returns how it ended, and whether it was killed for the timeout.
        package func wait(timeout: Duration) throws -> (termination: Termination, timedOut: Bool) {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            var pause: UInt32 = 500
            while clock.now < deadline {
                if let termination = try reap(blocking: false) { return (termination, false) }
                usleep(pause)
                pause = min(pause * 2, 10_000)
            }
            kill(pid, SIGKILL)
            guard let termination = try reap(blocking: true) else {
                throw ChildProcessError("waitpid returned without the killed child \(pid)")
            }
            return (termination, true)
        }

        /// Waits for the child to end without holding a thread, asking every few milliseconds.
        package func exit() async throws -> Termination {
            while true {
                if let termination = try reap(blocking: false) { return termination }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// How the child ended once it has; nil while it runs (never when `blocking`).
        private func reap(blocking: Bool) throws -> Termination? {
            var status: Int32 = 0
            while true {
                let waited = waitpid(pid, &status, blocking ? 0 : WNOHANG)
                if waited == pid { break }
                if waited == 0 { return nil }
                guard errno == EINTR else { throw ChildProcessError("waitpid(\(pid)) failed: errno \(errno)") }
            }
            // The low 7 bits are the signal that ended it, 0 when it exited; the status is the next byte.
            let signal = status & 0x7f
            return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
        }
    }

    /// Why a child could not be started or waited for.
    package struct ChildProcessError: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// glibc's spawn actions that Swift's Glibc module does not declare (they are GNU extensions): found at run time.
    private enum GNUSpawnActions {
        private typealias AddChangeDirectory =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        private typealias AddCloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

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
