// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

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
        .executable(name: "strata", targets: ["strata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Only for the `@Table` macro (StrataRecordMacros), built by users of the StrataRecord product.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Only for StrataServiceLifecycle, built by users of that product.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only for `swift package generate-documentation`: a plugin, never built into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        .target(
            name: "Strata",
            dependencies: ["CSQLite"],
            swiftSettings: swiftSettings
        ),
        .macro(
            name: "StrataRecordMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "StrataRecord",
            dependencies: ["Strata", "StrataRecordMacros"],
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
        // The tool's folder is StrataCLI, not strata: names that differ only in case from Sources/Strata merge on
        // macOS's default file system. The target, and so the product and the binary, are still `strata`.
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataRecord", "strata-durability-child"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StrataRecordMacroTests",
            dependencies: [
                "StrataRecordMacros",
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
            name: "StrataCLITests",
            dependencies: ["strata", "Strata"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
