import Foundation

/// A new folder for a scenario's files in the temporary directory, named after the scenario and this process; the
/// caller removes it.
func scenarioDirectory(_ scenario: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-bench-\(scenario)-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

do {
    if CommandLine.arguments.count == 3, CommandLine.arguments[1] == ObserveWriterChild.argument {
        try ObserveWriterChild.run(path: CommandLine.arguments[2])
        exit(0)
    }
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    if let url = options.postgresURL, options.scenario == "observe" {
        try await PostgresObserveScenario(
            url: url, samples: options.observeSamples, writes: options.poolWrites, rounds: options.reps
        ).run()
    } else if let url = options.postgresURL {
        try await PostgresRunner(options: options, url: url).run()
    } else if options.scenario == "import-under-load" {
        let directory = try scenarioDirectory("import")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ImportUnderLoad(
            rows: options.importRows, writers: options.writers,
            interval: .milliseconds(options.intervalMilliseconds), modes: options.importModes,
            directory: directory
        ).run()
    } else if options.scenario == "pool" {
        let directory = try scenarioDirectory("pool")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await PoolScenario(
            taskCounts: options.poolTasks, writesPerTask: options.poolWrites, readsPerTask: options.poolReads,
            synchronous: options.synchronous, rounds: options.reps, directory: directory
        ).run()
    } else if options.scenario == "async-write" {
        let directory = try scenarioDirectory("async")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await AsyncWriteScenario(
            taskCounts: options.asyncTasks, writesPerTask: options.poolWrites, rounds: options.reps,
            directory: directory
        ).run()
    } else if options.scenario == "observe" {
        let directory = try scenarioDirectory("observe")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ObserveScenario(
            samples: options.observeSamples, writes: options.poolWrites, synchronous: options.synchronous,
            rounds: options.reps, directory: directory
        ).run()
    } else if options.scenario == "batch-insert" {
        var directory: URL?
        if options.batchFile {
            directory = try scenarioDirectory("batch")
        }
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        try BatchInsert(rows: options.batchRows, reps: options.reps, warmup: options.warmup, directory: directory).run()
    } else {
        try Runner(options: options).run()
    }
} catch {
    FileHandle.standardError.write(Data("strata-bench: \(error)\n".utf8))
    exit(1)
}
