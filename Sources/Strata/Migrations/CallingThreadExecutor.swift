import Foundation

/// Runs `body`, which may suspend, to its end on the calling thread, and returns what it returns: for the
/// synchronous entry points of SQLite (`migrator.migrate(db)`) over code written once, `async`, for every backend.
///
/// The body runs in a task that prefers a ``CallingThreadExecutor``: every nonisolated part of it runs on this
/// thread, which waits meanwhile, so a `Database`, which belongs to one thread at a time, never leaves it. A body
/// that only calls SQLite never really suspends; one that awaits something else blocks this thread until it
/// resumes, as a synchronous call does.
func runOnCallingThread<Output>(_ body: () async throws -> Output) throws -> Output {
    try withoutActuallyEscaping(body) { escapable in
        let run = CallingThreadRun(escapable)
        let executor = CallingThreadExecutor()
        Task(executorPreference: executor) { await run.start() }
        executor.runJobs(until: run.isFinished)
        return try run.takeOutput()
    }
}

/// The body of ``runOnCallingThread(_:)`` and its outcome.
///
/// `@unchecked Sendable` is sound because the body and the outcome are only touched on the calling thread: by the
/// task's jobs, which the calling thread runs, and by the calling thread after them.
private final class CallingThreadRun<Output>: @unchecked Sendable {
    private var body: (() async throws -> Output)?
    private var outcome: Result<Output, any Error>?

    init(_ body: @escaping () async throws -> Output) {
        self.body = body
    }

    func start() async {
        guard let body else { return }
        // Released before the caller's `withoutActuallyEscaping` ends, whenever the task itself is released.
        self.body = nil
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
    }

    func isFinished() -> Bool { outcome != nil }

    func takeOutput() throws -> Output {
        guard let outcome else {
            throw DatabaseError(code: .invalidArgument, message: "the migration stopped before it ended")
        }
        return try outcome.get()
    }
}

/// A task executor whose jobs run on the thread that calls ``runJobs(until:)``.
///
/// See https://github.com/swiftlang/swift-evolution/blob/main/proposals/0417-task-executor-preference.md
private final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // `@unchecked Sendable`: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs enqueued, waiting for the next when there is none, until `isFinished` is true.
    func runJobs(until isFinished: () -> Bool) {
        while !isFinished() {
            condition.lock()
            while jobs.isEmpty {
                condition.wait()
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
