import Foundation

/// The command line. Plain parsing: the benchmark has no subcommands and a handful of options.
struct Options {
    static let phases = ["insert", "insert-file", "fetch", "lookup"]
    static let usage = """
        USAGE: strata-bench [options]

        Compares Strata (Codable and Row APIs) with hand-written SQLite C API code and GRDB.

        OPTIONS:
          --n ROWS            rows to insert and fetch (default 100000)
          --lookups COUNT     primary key lookups (default 10000)
          --reps COUNT        measured runs per phase and system (default 7)
          --warmup COUNT      unmeasured runs first (default 1)
          --only SYSTEMS      comma-separated: c, strata-codable, strata-table, strata-request, strata-row,
                              grdb-codable, grdb-manual
          --phase PHASES      comma-separated: insert, insert-file, fetch, lookup (default all);
                              with --memory also: cursor (Strata's lazy cursor over a file)
          --json PATH         write the medians in ms as {"results": {PHASE: {SYSTEM: ms}}}
          --memory            one system, one phase (fetch or cursor): report peak RSS and exit
          --memory-table      after timing, run one child process per system for FETCH peak RSS,
                              and the cursor over --cursor-rows rows
          --cursor-rows ROWS  rows for the cursor memory check (default 1000000)
          --source PATH       an existing source database file of --n rows (children use it)
          --postgres URL      instead of SQLite: insert, fetch and lookup on a PostgreSQL server
                              (postgres://user@host:port/database; or STRATA_BENCH_POSTGRES_URL),
                              through StrataPostgres and through postgres-nio by hand; --only takes
                              postgres-nio, strata-postgres. The server's `item` table is dropped.
          -h, --help          show this help

        SCENARIOS:
          --scenario import-under-load
                              a long import into a DatabasePool while small writes arrive: one write
                              for the whole import, one write per row, and pausableWrite; reports
                              the import time and the small writes' p50/p99/max latency
          --import-rows ROWS  rows the import inserts (default 1000000)
          --writers COUNT     tasks doing small writes (default 8)
          --interval-ms MS    time between two small writes of one task (default 5)
          --modes MODES       comma-separated: single-write, write-per-row, pausable-write (default all)
          --scenario pool     tasks doing small writes (insert a note), then small reads (find by id), through
                              Strata's DatabasePool and GRDB's, same settings: writes/s, reads/s, p50, p99
                              (--reps rounds, medians)
          --tasks COUNTS      comma-separated task counts (default 8,64)
          --writes COUNT      writes per task (default 2000); --reads COUNT: reads per task (default 5000)
          --synchronous MODE  OFF, NORMAL or FULL for both pools (default NORMAL)
          --scenario async-write
                              small writes on a DatabasePool (WAL, synchronous = OFF) with a synchronous
                              block, an async block, and an async block that suspends once: writes/s, the
                              median of --reps rounds; --tasks (default 1,8), --writes per task
          --scenario batch-insert
                              new models (nil keys, read back through RETURNING) into an in-memory table:
                              insert(contentsOf:) against a loop of insert(&model) in one transaction, for a
                              Codable model and a @Table model; medians of --reps runs after --warmup
          --batch-rows ROWS   models per run (default 10000)
          --batch-file        the table in a WAL file with synchronous = NORMAL instead of in memory
          --scenario observe  observations of a DatabasePool (WAL, --synchronous): the time from a commit to
                              the observation's new value (p50, p99, max), for a commit through the pool,
                              one by another connection and one by a child process; --writes single-row
                              writes per second with 0, 10 and 100 observations running (--reps rounds,
                              medians), and the new values each observation had meanwhile
                              With --postgres URL, the same on a PostgresPool (LISTEN/NOTIFY; the commit
                              by another client through a second pool); the server's `item` table is dropped.
          --samples COUNT     latency samples of the observe scenario (default 300)
        """

    var rows = 100_000
    var lookups = 10_000
    var reps = 7
    var warmup = 1
    var systems: [String] = allSystems.map { $0.name }
    var phases = Options.phases
    var jsonPath: String?
    var memory = false
    var memoryTable = false
    var cursorRows = 1_000_000
    var source: String?
    var scenario: String?
    var importRows = 1_000_000
    var writers = 8
    var intervalMilliseconds = 5
    var importModes = ImportUnderLoad.modes
    var poolTasks = [8, 64]
    /// `--tasks` of the async-write scenario, whose default differs from the pool scenario's.
    var asyncTasks = [1, 8]
    var poolWrites = 2_000
    /// `--samples` of the observe scenario.
    var observeSamples = 300
    var poolReads = 5_000
    var synchronous = "NORMAL"
    var batchRows = 10_000
    var batchFile = false
    /// The PostgreSQL server of the PostgreSQL mode, nil for SQLite.
    var postgresURL: String? = ProcessInfo.processInfo.environment["STRATA_BENCH_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    init(arguments: [String]) throws {
        var systemsGiven = false
        var remaining = arguments[...]
        func value(_ option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw BenchmarkFailure("\(option) needs a value") }
            return value
        }
        func count(_ option: String, minimum: Int) throws -> Int {
            let text = try value(option)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= minimum else {
                throw BenchmarkFailure("\(option) takes a whole number of at least \(minimum), not \(text)")
            }
            return number
        }
        func list(_ option: String, allowed: [String]) throws -> [String] {
            let names = try value(option).split(separator: ",").map { String($0) }
            for name in names where !allowed.contains(name) {
                throw BenchmarkFailure(
                    "unknown \(option) value \(name); expected one of \(allowed.joined(separator: ", "))")
            }
            guard !names.isEmpty else { throw BenchmarkFailure("\(option) needs at least one name") }
            return names
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--n": rows = try count(argument, minimum: 1)
            case "--lookups": lookups = try count(argument, minimum: 1)
            case "--reps": reps = try count(argument, minimum: 1)
            case "--warmup": warmup = try count(argument, minimum: 0)
            case "--only":
                systems = try list(
                    argument, allowed: allSystems.map { $0.name } + allPostgresSystems.map { $0.name })
                systemsGiven = true
            case "--postgres": postgresURL = try value(argument)
            case "--phase": phases = try list(argument, allowed: Options.phases + ["cursor"])
            case "--json": jsonPath = try value(argument)
            case "--memory": memory = true
            case "--memory-table": memoryTable = true
            case "--cursor-rows": cursorRows = try count(argument, minimum: 1)
            case "--source": source = try value(argument)
            case "--scenario":
                scenario = try list(
                    argument, allowed: ["import-under-load", "pool", "async-write", "batch-insert", "observe"])[0]
            case "--samples": observeSamples = try count(argument, minimum: 1)
            case "--tasks":
                poolTasks = try value(argument).split(separator: ",").map { text in
                    guard let count = Int(text), count >= 1 else {
                        throw BenchmarkFailure("--tasks takes whole numbers of at least 1, not \(text)")
                    }
                    return count
                }
                asyncTasks = poolTasks
            case "--writes": poolWrites = try count(argument, minimum: 1)
            case "--reads": poolReads = try count(argument, minimum: 1)
            case "--synchronous": synchronous = try list(argument, allowed: ["OFF", "NORMAL", "FULL"])[0]
            case "--batch-rows": batchRows = try count(argument, minimum: 1)
            case "--batch-file": batchFile = true
            case "--import-rows": importRows = try count(argument, minimum: 1)
            case "--writers": writers = try count(argument, minimum: 1)
            case "--interval-ms": intervalMilliseconds = try count(argument, minimum: 1)
            case "--modes": importModes = try list(argument, allowed: ImportUnderLoad.modes)
            case "-h", "--help":
                print(Options.usage)
                exit(0)
            default:
                throw BenchmarkFailure("unknown option \(argument)\n\n\(Options.usage)")
            }
        }
        if postgresURL != nil {
            if !systemsGiven { systems = allPostgresSystems.map { $0.name } }
            guard memory == false, memoryTable == false, scenario == nil || scenario == "observe" else {
                throw BenchmarkFailure("--postgres runs the insert, fetch and lookup phases, or --scenario observe")
            }
        } else if systems.contains(where: { name in allPostgresSystems.contains { $0.name == name } }) {
            throw BenchmarkFailure("postgres-nio and strata-postgres need --postgres URL")
        }
        if memory {
            guard systems.count == 1, phases.count == 1, ["fetch", "cursor"].contains(phases[0]) else {
                throw BenchmarkFailure("--memory takes one system (--only) and one phase: fetch or cursor")
            }
            guard phases[0] != "cursor" || systems[0] == StrataCodableSystem.name else {
                throw BenchmarkFailure("--phase cursor measures Strata's cursor: use --only strata-codable")
            }
        } else if phases.contains("cursor") {
            throw BenchmarkFailure("--phase cursor needs --memory")
        }
    }
}
