// swift-tools-version: 6.1
import PackageDescription

// Strata against the raw SQLite C API and GRDB, on one workload, and StrataPostgres against postgres-nio (`--postgres`).
// Not part of the main package:
//
//     swift run -c release --package-path Benchmarks strata-bench
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // Only for the PostgreSQL systems (`--postgres URL`): the floor is postgres-nio by hand.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // Strata's CSQLite is not a product, so the C baseline gets its own view of the system SQLite.
        .systemLibrary(
            name: "CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        .executableTarget(
            name: "strata-bench",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataRecord", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("ExistentialAny"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
