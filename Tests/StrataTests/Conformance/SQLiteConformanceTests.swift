import Foundation
import StrataTesting
import Testing

@testable import Strata

/// SQLite's queue, in memory or on a file, for the conformance suite.
struct SQLiteQueueBackend: ConformanceBackend {
    let inMemory: Bool

    var description: String { inMemory ? "DatabaseQueue in memory" : "DatabaseQueue on a file" }

    func makeWriter() async throws -> DatabaseQueue {
        inMemory ? try DatabaseQueue() : try DatabaseQueue(path: freshDatabasePath())
    }

    func assignedPrimaryKey(_ name: String) -> String { "\(name) INTEGER PRIMARY KEY" }

    var readsRunBesideWrites: Bool { false }

    func dispose(_ writer: DatabaseQueue) async {
        if !inMemory { removeDatabaseFolder(of: writer.path) }
    }

    func writeWaits(on writer: DatabaseQueue, marker: String) async throws -> Bool {
        writer.writerWaitingCount > 0
    }

    /// A queue of its own on the file, as another process would open it; none in memory.
    func makeOtherClient(of writer: DatabaseQueue) async throws -> DatabaseQueue? {
        inMemory ? nil : try DatabaseQueue(path: writer.path)
    }
}

/// SQLite's pool on a file, for the conformance suite.
struct SQLitePoolBackend: ConformanceBackend {
    var description: String { "DatabasePool" }

    func makeWriter() async throws -> DatabasePool {
        try DatabasePool(path: freshDatabasePath(), readers: 2)
    }

    func assignedPrimaryKey(_ name: String) -> String { "\(name) INTEGER PRIMARY KEY" }

    var readsRunBesideWrites: Bool { true }

    func dispose(_ writer: DatabasePool) async {
        removeDatabaseFolder(of: writer.path)
    }

    func writeWaits(on writer: DatabasePool, marker: String) async throws -> Bool {
        writer.writerWaitingCount > 0
    }

    /// A pool of its own on the file, as another process would open it.
    func makeOtherClient(of writer: DatabasePool) async throws -> DatabasePool? {
        try DatabasePool(path: writer.path, readers: 1)
    }
}

/// A database file in a folder of its own, which `removeDatabaseFolder(of:)` removes.
private func freshDatabasePath() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-conformance-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("conformance.sqlite").path
}

private func removeDatabaseFolder(of path: String) {
    try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
}

@Suite("Conformance: the shared protocols behave the same on SQLite's queue and pool, in memory and on a file")
struct SQLiteConformanceTests {
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case memoryQueue, fileQueue, filePool
        var testDescription: String { rawValue }
    }

    @Test(arguments: Writer.allCases, ConformanceCheck.allCases)
    func conformance(_ writer: Writer, _ check: ConformanceCheck) async throws {
        switch writer {
        case .memoryQueue: try await check.run(on: SQLiteQueueBackend(inMemory: true))
        case .fileQueue: try await check.run(on: SQLiteQueueBackend(inMemory: false))
        case .filePool: try await check.run(on: SQLitePoolBackend())
        }
    }
}
