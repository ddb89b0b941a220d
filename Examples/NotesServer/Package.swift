// swift-tools-version: 6.2
// An example server on Strata: a notes JSON API with Hummingbird 2. A package of its own, so that users of Strata never
// build Hummingbird: `swift test --package-path Examples/NotesServer`.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "NotesServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "NotesServer", targets: ["NotesServer"])
    ],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `Service`: what `buildApplication` asks of the database it closes at shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only for the tests: an in-memory tracer and a test metrics backend.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Only for the tests: a client that reads `GET /notes/live`'s server-sent events as they come.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The application: model, storage, routes. A library, so that the tests build the same app the server runs.
        .target(
            name: "NotesApp",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                // `DatabasePool` as a ServiceLifecycle `Service`: the app's service group closes it on shutdown.
                .product(name: "StrataServiceLifecycle", package: "Strata"),
                // The same store on PostgreSQL, selected by a `postgres://` database URL.
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command line: options, then the app until SIGINT or SIGTERM.
        .executableTarget(
            name: "NotesServer",
            dependencies: [
                "NotesApp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the generic `NoteStore` costs on SQLite next to the pool's synchronous blocks (see its doc comment).
        .executableTarget(
            name: "NotesStoreBenchmark",
            dependencies: [
                "NotesApp",
                .product(name: "Strata", package: "Strata"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NotesAppTests",
            dependencies: [
                "NotesApp",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
