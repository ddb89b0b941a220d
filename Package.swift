// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

// Two settings for .ci/run's address sanitizer run, which on a 2-core machine took 21 minutes to build everything
// instrumented (`swift test --sanitize=address` in a build directory of its own), 9 of them for the PostgreSQL stack:
// - `STRATA_TEST_SUITES=sqlite` builds the SQLite suites alone: no StrataPostgres or StrataPostgresTests, and
//   StrataTests without its PostgreSQL parts (compiled `#if !SQLITE_SUITES_ONLY`).
// - `STRATA_SANITIZE=address` instruments this package's own code and not its dependencies, so that the run reuses
//   the dependencies the plain tests built (swift-syntax, swift-log, ...): only Strata's targets build again.
let sqliteSuitesOnly = Context.environment["STRATA_TEST_SUITES"] == "sqlite"
let sanitizer = Context.environment["STRATA_SANITIZE"]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        // `@Table`: generated records. Its own product, so that a user of `Strata` alone never builds swift-syntax.
        .library(name: "StrataRecord", targets: ["StrataRecord"]),
        // DatabasePool and DatabaseQueue as ServiceLifecycle services. Its own product, so that a user of `Strata` alone
        // never builds swift-service-lifecycle and what it depends on (swift-log, swift-async-algorithms).
        .library(name: "StrataServiceLifecycle", targets: ["StrataServiceLifecycle"]),
        // The PostgreSQL backend. Its own product, so that a user of `Strata` alone never builds postgres-nio and
        // what it depends on (swift-nio, swift-nio-ssl, swift-crypto).
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        // The backend conformance suite: Swift Testing checks that every backend runs, parameterised by a backend
        // factory. For test targets; it depends on StrataCore alone, so a third backend can run it too.
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        .executable(name: "strata", targets: ["strata"]),
    ],
    traits: [
        // `strata migrate|status|query --database postgres://...`: builds StrataPostgres, and so postgres-nio, into the
        // `strata` tool. Off by default, so that the tool's SQLite users never build postgres-nio:
        // `swift build --traits PostgreSQL`, `swift run --traits PostgreSQL strata ...`.
        .trait(name: "PostgreSQL", description: "The strata tool works on PostgreSQL databases too (builds postgres-nio)")
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Observability: logs, metrics and spans, which do nothing until the app bootstraps a backend.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Only for the `@Table` macro (StrataRecordMacros), built by users of the StrataRecord product.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Only for StrataServiceLifecycle, built by users of that product.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only for StrataPostgres, built by users of that product.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Only for `swift package generate-documentation`: a plugin, never built into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        // What both backends share: values, errors, `Model`, requests and expressions, the SQL dialect seam, migration
        // files and their validation. Never touches the SQLite C API, so StrataPostgres builds without libsqlite3.
        .target(
            name: "StrataCore",
            dependencies: [
                // `DatabaseObservability` holds a `Logger`: every backend reports through swift-log.
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StrataTesting",
            dependencies: ["StrataCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Strata",
            dependencies: [
                "StrataCore",
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // `@Table`'s expansion, a plain library: the macro plugin below hands it each expansion, and the macro's tests
        // link it. Tests that linked the macro target itself would be built for the host, as the macro is, and so would
        // every module they depend on: the package and its dependencies were compiled twice by each `swift test`.
        .target(
            name: "StrataRecordExpansion",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        .macro(
            name: "StrataRecordMacros",
            dependencies: [
                "StrataRecordExpansion",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StrataRecord",
            dependencies: ["StrataCore", "StrataRecordMacros"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StrataServiceLifecycle",
            dependencies: [
                "Strata",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StrataPostgres",
            dependencies: [
                // StrataCore, not Strata: the PostgreSQL backend never builds or links SQLite (CSQLite, libsqlite3).
                "StrataCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tool's folder is StrataCLI, not strata: names that differ only in case from Sources/Strata merge on
        // macOS's default file system. The target, and so the product and the binary, are still `strata`.
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .target(name: "StrataPostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Sources/StrataCLI",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "strata-durability-child",
            dependencies: ["Strata"],
            path: "Tests/DurabilityChild",
            swiftSettings: swiftSettings
        ),
        // The child process of the I/O fault tests, run with Tests/FaultInjection/fault.c preloaded.
        .executableTarget(
            name: "strata-fault-child",
            dependencies: ["Strata"],
            path: "Tests/FaultChild",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                // StrataCore for the tests of what moved there (`@testable import StrataCore`).
                "Strata", "StrataCore", "StrataRecord", "StrataTesting", "strata-durability-child",
                // Only for the PostgreSQL doc tests (README.md, docs/PostgreSQL.md), observability on PostgreSQL and
                // PostgreSQL's request text.
                "StrataPostgres",
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataRecordMacroTests",
            dependencies: [
                "StrataRecordExpansion",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataServiceLifecycleTests",
            dependencies: [
                "Strata",
                "StrataServiceLifecycle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: [
                "Strata", "StrataPostgres", "StrataTesting",
                // For `@Table` records on PostgreSQL.
                "StrataRecord",
                // Only for the unit tests of the numeric reader, which build cells by hand.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Only for the test that runs a pool in a ServiceGroup.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataCLITests",
            // StrataTesting for ChildProcess, which starts the `strata` runs.
            dependencies: ["strata", "Strata", "StrataTesting"],
            swiftSettings: swiftSettings
        ),
        // I/O faults injected into real processes (the `strata` tool and `strata-fault-child`) by a preloaded shim
        // that the tests compile from Tests/FaultInjection/fault.c.
        .testTarget(
            name: "StrataFaultTests",
            dependencies: ["strata", "strata-fault-child", "Strata", "StrataTesting"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

if sqliteSuitesOnly {
    let postgres: Set = ["StrataPostgres", "StrataPostgresTests"]
    package.products.removeAll { postgres.contains($0.name) }
    package.targets.removeAll { postgres.contains($0.name) }
    for target in package.targets where target.name == "StrataTests" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("SQLITE_SUITES_ONLY")]
    }
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): postgres.contains(name)
            default: false
            }
        }
    }
}

if let sanitizer {
    // The macro's targets run in the compiler, not in the tests.
    for target in package.targets where target.type != .system && target.type != .macro {
        guard target.name != "StrataRecordExpansion" else { continue }
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
    }
}
