#if canImport(Glibc)
    import Foundation
    import Glibc
    import StrataTesting
    import Testing

    /// StrataTesting's `ChildProcess`, which starts the children of the process, CLI, fault and PostgreSQL tests:
    /// both outputs read at once past a pipe's capacity, the environment and folder it is given, how a child ended,
    /// and a hung child killed at the deadline instead of hanging the test.
    @Suite struct ChildProcessTests {
        @Test func bothOutputsAreReadToTheirEndsPastAPipesCapacity() throws {
            // A megabyte to standard error first, then one to standard output: a reader that read standard output to
            // its end before standard error would wait for ever, the child blocked on the full error pipe.
            let script = """
                head -c 1000000 /dev/zero | tr '\\0' e >&2
                head -c 1000000 /dev/zero | tr '\\0' o
                """
            let finished = try ChildProcess.run("/bin/sh", ["-c", script], timeout: .seconds(120))
            #expect(finished.termination == .exited(0))
            #expect(finished.output.count == 1_000_000)
            #expect(finished.output.allSatisfy { $0 == UInt8(ascii: "o") })
            #expect(finished.errorOutput.count == 1_000_000)
            #expect(finished.errorOutput.allSatisfy { $0 == UInt8(ascii: "e") })
        }

        @Test func theChildGetsTheEnvironmentAndFolderGivenAndNothingElse() throws {
            let folder = try TemporaryDirectory()
            let path = folder.url.resolvingSymlinksInPath().path
            let finished = try ChildProcess.run(
                "/bin/sh", ["-c", #"printf '%s|%s|%s' "$STRATA_CHILD_VALUE" "${HOME-unset}" "$(pwd -P)""#],
                in: path, environment: ["STRATA_CHILD_VALUE": "a b=c", "PATH": "/usr/bin:/bin"],
                timeout: .seconds(60))
            #expect(finished.termination == .exited(0), "\(finished.errorText)")
            #expect(finished.outputText == "a b=c|unset|\(path)")
        }

        @Test func aChildThatInheritsTheEnvironmentSeesThisProcesssVariables() throws {
            setenv("STRATA_CHILD_INHERITED", "inherited value", 1)
            let finished = try ChildProcess.run(
                "/bin/sh", ["-c", #"printf '%s' "$STRATA_CHILD_INHERITED""#], timeout: .seconds(60))
            #expect(finished.outputText == "inherited value")
        }

        @Test func anExitStatusIsToldFromASignal() throws {
            let exited = try ChildProcess.run("/bin/sh", ["-c", "exit 3"], timeout: .seconds(60))
            #expect(exited.termination == .exited(3))
            let signaled = try ChildProcess.run("/bin/sh", ["-c", "kill -TERM $$"], timeout: .seconds(60))
            #expect(signaled.termination == .signaled(SIGTERM))
        }

        @Test func aHungChildIsKilledAtTheDeadlineAndFailsTheRun() throws {
            let clock = ContinuousClock()
            let start = clock.now
            let error = #expect(throws: ChildProcessError.self) {
                try ChildProcess.run("/bin/sh", ["-c", "echo started; exec sleep 600"], timeout: .milliseconds(500))
            }
            #expect(error?.description.contains("did not end within") == true, "\(String(describing: error))")
            #expect(error?.description.contains("started") == true, "\(String(describing: error))")
            // Generous: the child sleeps 600 s, the run ends at its 0.5 s deadline.
            #expect(clock.now - start < .seconds(60))

            let child = try ChildProcess.spawn("/bin/sleep", ["600"])
            let (termination, timedOut) = try child.wait(timeout: .milliseconds(200))
            #expect(timedOut)
            #expect(termination == .signaled(SIGKILL))
        }

        @Test func readingStopsOnceTheOutputHoldsWhatIsAwaited() throws {
            // Timeline: the child prints a line, then waits for ever; the read returns on the line, before the end.
            let child = try ChildProcess.spawn(
                "/bin/sh", ["-c", "echo ready; exec sleep 600"], standardOutput: .pipe, standardError: .pipe)
            let found = child.read(timeout: .seconds(60)) { String(decoding: $0, as: UTF8.self) == "ready\n" }
            #expect(found)
            #expect(try child.kill() == .signaled(SIGKILL))
            #expect(String(decoding: child.output, as: UTF8.self) == "ready\n")
        }
    }
#endif
