import Foundation

/// Runs the phases, checks every result, and prints the tables.
final class Runner {
    private let options: Options
    private let directory: URL
    private var results: [String: [String: Statistics]] = [:]

    init(options: Options) throws {
        self.options = options
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private var systemTypes: [any BenchmarkSystem.Type] {
        allSystems.filter { options.systems.contains($0.name) }
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    func run() throws {
        if options.memory {
            try runMemoryChild()
            return
        }
        printMachine()
        let items = Workload.items(count: options.rows)
        let expectedAll = Checksum(items)
        let ids = Workload.lookupIDs(count: options.lookups, rows: options.rows)
        let expectedLookups = Checksum(ids.lazy.map { items[Int($0) - 1] })
        let systems = try systemTypes.map { try $0.init(items: items) }

        var source: String?
        func sourcePath() throws -> String {
            if let source { return source }
            let made = path("source.sqlite")
            try writeSourceDatabase(path: made, count: options.rows)
            source = made
            return made
        }

        for phase in options.phases {
            switch phase {
            case "insert", "insert-file":
                try runInsert(phase: phase, systems: systems, expected: expectedAll)
            case "fetch":
                try runRead(phase: phase, systems: systems, source: sourcePath(), expected: expectedAll) {
                    try $0.fetchAll()
                }
            case "lookup":
                try runRead(phase: phase, systems: systems, source: sourcePath(), expected: expectedLookups) {
                    try $0.lookup(ids: ids)
                }
            default:
                throw BenchmarkFailure("unknown phase \(phase)")
            }
        }
        printTable()
        printTargets()
        if let jsonPath = options.jsonPath {
            try writeJSON(to: jsonPath)
            print("wrote \(jsonPath)")
        }
        if options.memoryTable {
            try runMemoryTable(source: sourcePath())
        }
    }

    // MARK: Timing

    /// The order of systems in round `round`: rotated, so that no system always runs first or after the same one.
    private func rotated<T>(_ systems: [T], round: Int) -> [T] {
        guard !systems.isEmpty else { return systems }
        let shift = round % systems.count
        return Array(systems[shift...] + systems[..<shift])
    }

    private func runInsert(phase: String, systems: [any BenchmarkSystem], expected: Checksum) throws {
        let file = phase == "insert-file"
        var times: [String: [Duration]] = [:]
        progress("\(phase): \(options.rows) rows in one transaction, \(file ? "WAL file" : "in memory")")
        for round in 0..<(options.warmup + options.reps) {
            for system in rotated(systems, round: round) {
                let name = type(of: system).name
                let database = file ? path("insert-\(name).sqlite") : nil
                if let database { removeDatabase(database) }
                try system.openEmpty(path: database)
                let (elapsed, _) = try timed { try system.insertAll() }
                let export = path("export-\(name).sqlite")
                removeDatabase(export)
                try system.exportAndClose(to: export)
                try verify(try checksumOfFile(export), expected: expected, phase: phase, system: name)
                removeDatabase(export)
                if let database { removeDatabase(database) }
                if round >= options.warmup { times[name, default: []].append(elapsed) }
            }
        }
        record(phase: phase, times: times)
    }

    private func runRead(
        phase: String, systems: [any BenchmarkSystem], source: String, expected: Checksum,
        body: (any BenchmarkSystem) throws -> Measurement
    ) throws {
        let what = phase == "fetch" ? "\(options.rows) rows into an array" : "\(options.lookups) rows by primary key"
        progress("\(phase): \(what), in-memory database")
        for system in systems { try system.openLoaded(source: source) }
        defer { for system in systems { system.close() } }
        var times: [String: [Duration]] = [:]
        for round in 0..<(options.warmup + options.reps) {
            for system in rotated(systems, round: round) {
                let name = type(of: system).name
                let measurement = try body(system)
                try verify(measurement.checksum, expected: expected, phase: phase, system: name)
                if round >= options.warmup { times[name, default: []].append(measurement.elapsed) }
            }
        }
        record(phase: phase, times: times)
    }

    private func verify(_ checksum: Checksum, expected: Checksum, phase: String, system: String) throws {
        guard checksum == expected else {
            throw BenchmarkFailure(
                "\(system) \(phase): checksum mismatch\n  expected \(expected)\n  got      \(checksum)")
        }
    }

    private func record(phase: String, times: [String: [Duration]]) {
        for (system, durations) in times {
            results[phase, default: [:]][system] = Statistics(durations)
        }
    }

    private func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    // MARK: Reports

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("… \(message)\n".utf8))
    }

    private func printMachine() {
        print(machineDescription())
        print(
            "workload: \(options.rows) rows, \(options.lookups) lookups; \(options.warmup) warm-up and "
                + "\(options.reps) measured runs per phase and system, interleaved\n")
    }

    private func printTable() {
        let header = [
            "phase".padding(12), "system".padding(16), "median ms".leftPadding(10), "min ms".leftPadding(10),
            "x c".leftPadding(7), "x grdb-codable".leftPadding(15),
        ]
        print(header.joined(separator: " "))
        print(String(repeating: "-", count: header.joined(separator: " ").count))
        for phase in Options.phases {
            guard let bySystem = results[phase] else { continue }
            let c = bySystem[CSystem.name]?.median
            let grdb = bySystem[GRDBCodableSystem.name]?.median
            for system in allSystems.map({ $0.name }) {
                guard let stats = bySystem[system] else { continue }
                let row = [
                    phase.padding(12), system.padding(16), format(stats.median).leftPadding(10),
                    format(stats.min).leftPadding(10),
                    (c.map { format(stats.median / $0, digits: 2) } ?? "-").leftPadding(7),
                    (grdb.map { format(stats.median / $0, digits: 2) } ?? "-").leftPadding(15),
                ]
                print(row.joined(separator: " "))
            }
        }
        print("")
    }

    /// The issues' targets, checked against this run's medians: the Codable path (#9) and the generated records of
    /// `@Table` (#14). Informational only.
    private func printTargets() {
        let targets: [(system: String, limits: [String: Double])] = [
            (StrataCodableSystem.name, ["insert": 1.3, "insert-file": 1.3, "fetch": 1.5, "lookup": 1.3]),
            (StrataTableSystem.name, ["insert": 1.15, "insert-file": 1.15, "fetch": 1.2, "lookup": 1.1]),
        ]
        for (system, limits) in targets {
            var lines: [String] = []
            for phase in Options.phases {
                guard let bySystem = results[phase], let strata = bySystem[system]?.median else { continue }
                var parts: [String] = []
                if let c = bySystem[CSystem.name]?.median, let limit = limits[phase] {
                    let ratio = strata / c
                    parts.append(
                        "\(format(ratio, digits: 2))x c (target <= \(limit)x: \(ratio <= limit ? "met" : "MISSED"))")
                }
                if let grdb = bySystem[GRDBCodableSystem.name]?.median {
                    parts.append("\(strata < grdb ? "faster" : "NOT faster") than grdb-codable")
                }
                if let codable = bySystem[StrataCodableSystem.name]?.median, system != StrataCodableSystem.name {
                    parts.append("\(format(strata / codable, digits: 2))x strata-codable")
                }
                if !parts.isEmpty { lines.append("  \(phase.padding(12)) " + parts.joined(separator: ", ")) }
            }
            guard !lines.isEmpty else { continue }
            print("\(system) targets:")
            for line in lines { print(line) }
            print("")
        }
    }

    private func writeJSON(to path: String) throws {
        var phases: [String: [String: Double]] = [:]
        for (phase, bySystem) in results {
            for (system, stats) in bySystem {
                phases[phase, default: [:]][system] = (stats.median * 1000).rounded() / 1000
            }
        }
        let data = try JSONSerialization.data(
            withJSONObject: ["results": phases], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }

    // MARK: Memory

    /// In a child process: one system's FETCH, or Strata's cursor, and the peak RSS it reached.
    private func runMemoryChild() throws {
        let phase = options.phases[0]
        let rows = options.rows
        let source =
            try options.source
            ?? {
                let made = path("source.sqlite")
                try writeSourceDatabase(path: made, count: rows)
                return made
            }()
        let report: MemoryReport
        let checksum: Checksum
        if phase == "cursor" {
            let result = try StrataCodableSystem.cursorMemory(source: source)
            checksum = result.checksum
            report = MemoryReport(
                label: "strata-cursor", rows: rows, baselineKB: result.baselineKB, peakKB: result.peakKB)
        } else {
            guard let systemType = systemTypes.first else { throw BenchmarkFailure("no system") }
            let system = try systemType.init(items: [])
            try system.openLoaded(source: source)
            resetPeakResident()
            let baseline = currentResidentKB()
            let measurement = try system.fetchAll()
            let peak = peakResidentKB()
            checksum = measurement.checksum
            report = MemoryReport(label: systemType.name, rows: rows, baselineKB: baseline, peakKB: peak)
            system.close()
        }
        var expected = Checksum()
        for id in 1...rows { expected.add(Workload.item(id: Int64(id))) }
        try verify(checksum, expected: expected, phase: phase, system: report.label)
        print(report.line)
        print(
            "\(report.label) \(phase) of \(rows) rows: RSS before \(megabytes(report.baselineKB)) MB, "
                + "peak \(megabytes(report.peakKB)) MB, growth \(megabytes(report.growthKB)) MB")
    }

    /// One child process per measurement, so each peak RSS is its own.
    private func runMemoryTable(source: String) throws {
        var reports: [(String, MemoryReport)] = []
        for system in options.systems {
            progress("memory: \(system) fetch of \(options.rows) rows")
            let report = try runChild([
                "--memory", "--only", system, "--phase", "fetch", "--n", "\(options.rows)", "--source", source,
            ])
            reports.append(("fetchAll", report))
        }
        if options.systems.contains(StrataCodableSystem.name) {
            let big = path("cursor-source.sqlite")
            progress("memory: writing \(options.cursorRows) rows for the cursor")
            try writeSourceDatabase(path: big, count: options.cursorRows)
            progress("memory: strata-codable cursor over \(options.cursorRows) rows")
            reports.append(
                (
                    "fetchCursor (file)",
                    try runChild([
                        "--memory", "--only", StrataCodableSystem.name, "--phase", "cursor", "--n",
                        "\(options.cursorRows)", "--source", big,
                    ])
                ))
            progress("memory: strata-codable fetchAll of \(options.cursorRows) rows, for contrast")
            reports.append(
                (
                    "fetchAll",
                    try runChild([
                        "--memory", "--only", StrataCodableSystem.name, "--phase", "fetch", "--n",
                        "\(options.cursorRows)", "--source", big,
                    ])
                ))
            removeDatabase(big)
        }
        print("peak memory, one process per line (peak RSS = VmHWM, reset before reading; growth = peak - RSS before):")
        let header = [
            "system".padding(16), "API".padding(20), "rows".leftPadding(9), "RSS before MB".leftPadding(14),
            "peak MB".leftPadding(9), "growth MB".leftPadding(10),
        ]
        print(header.joined(separator: " "))
        print(String(repeating: "-", count: header.joined(separator: " ").count))
        for (api, report) in reports {
            let system = report.label == "strata-cursor" ? StrataCodableSystem.name : report.label
            print(
                [
                    system.padding(16), api.padding(20), "\(report.rows)".leftPadding(9),
                    megabytes(report.baselineKB).leftPadding(14), megabytes(report.peakKB).leftPadding(9),
                    megabytes(report.growthKB).leftPadding(10),
                ].joined(separator: " "))
        }
        print("")
    }

    private func megabytes(_ kilobytes: Int) -> String {
        format(Double(kilobytes) / 1024, digits: 1)
    }
}

/// Median and minimum of a phase's measured runs, in milliseconds.
struct Statistics {
    var median: Double
    var min: Double

    init(_ durations: [Duration]) {
        let milliseconds = durations.map { duration -> Double in
            let (seconds, attoseconds) = duration.components
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }.sorted()
        let middle = milliseconds.count / 2
        median =
            milliseconds.isEmpty
            ? 0
            : milliseconds.count % 2 == 1 ? milliseconds[middle] : (milliseconds[middle - 1] + milliseconds[middle]) / 2
        min = milliseconds.first ?? 0
    }
}

func format(_ value: Double, digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// The cores, the CPU model and the SQLite version, for the head of a report.
func machineDescription() -> String {
    let cpu =
        (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        ?? "unknown"
    return "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu); SQLite \(CDatabase.libraryVersion)"
}
