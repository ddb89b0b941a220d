import Foundation
import Strata
import Testing

/// Damaged database files and files that are not databases give a thrown error on open or on the
/// first query — never a crash, never silently wrong rows.
@Suite("Reliability: corrupt files")
struct CorruptFileTests {
    /// Writes a database of 2,000 rows over several pages, checkpointed into the main file, and returns its bytes.
    private func makeDatabaseFile(at path: String) throws -> [UInt8] {
        let db = try Database(path: path)
        try db.execute(query: "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB)")
        try db.execute(query: "CREATE INDEX item_name ON item (name)")
        try db.transaction { db in
            let insert = try db.prepare(query: "INSERT INTO item (name, payload) VALUES (?, randomblob(64))")
            for index in 0..<2_000 {
                try insert.bind(value: "item \(index)", at: 1)
                try insert.perform()
            }
        }
        db.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Opens `path` and reads everything, with an integrity check; the first failure is returned as thrown.
    private func openAndReadAll(_ path: String, readOnly: Bool = false) throws -> [String] {
        let db = try Database(path: path, readOnly: readOnly)
        defer { db.close() }
        let names = try db.fetchAll(String.self, query: "SELECT name FROM item ORDER BY id")
        _ = try db.fetchAll(Int64.self, query: "SELECT id FROM item WHERE name > 'item 5' ORDER BY name")
        let check = try db.integrityCheck()
        guard check == ["ok"] else {
            throw CorruptionReported(lines: check)
        }
        return names
    }

    private struct CorruptionReported: Error { var lines: [String] }

    @Test("An intact file reads back every row: the baseline of the damaged ones")
    func intactFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("intact.sqlite")
        _ = try makeDatabaseFile(at: path)
        let names = try openAndReadAll(path)
        #expect(names.count == 2_000)
        #expect(names.first == "item 0" && names.last == "item 1999")
    }

    /// Offsets of https://www.sqlite.org/fileformat.html#the_database_header: magic string, page size,
    /// write/read versions, payload fractions, page count, schema format, and at 100 the b-tree header of
    /// page 1. (Fields SQLite masks or only uses as hints, such as the text encoding at 56 or the change
    /// counter at 24, can be damaged without losing data; they are not in this list.)
    @Test("A damaged header throws on open", arguments: [0, 5, 16, 18, 21, 28, 44, 100])
    func damagedHeader(offset: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("header.sqlite")
        var bytes = try makeDatabaseFile(at: path)
        for index in offset..<(offset + 4) {
            bytes[index] ^= 0xA5
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self, "header byte \(offset) damaged") {
            _ = try openAndReadAll(path)
        }
    }

    @Test("Damaged pages throw on open, on a query or in the integrity check", arguments: 0..<12)
    func damagedPages(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pages.sqlite")
        var bytes = try makeDatabaseFile(at: path)
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageCount = bytes.count / pageSize
        var generator = SplitMix64(seed: 0xC0_44_07 + seed)
        // Page 1 holds the schema; damage a random page after it, with random bytes at random places.
        let page = Int.random(in: 1..<pageCount, using: &generator)
        for _ in 0..<64 {
            let offset = page * pageSize + Int.random(in: 0..<pageSize, using: &generator)
            bytes[offset] = UInt8.random(in: 0...255, using: &generator)
        }
        // The page header too, so that the damage is always structural.
        for offset in (page * pageSize)..<(page * pageSize + 12) {
            bytes[offset] = UInt8.random(in: 0...255, using: &generator)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self, "page \(page) of \(pageCount) damaged") {
            _ = try openAndReadAll(path)
        }
    }

    @Test("A damaged schema page throws on open")
    func damagedSchemaPage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("schema.sqlite")
        var bytes = try makeDatabaseFile(at: path)
        for offset in 100..<400 {
            bytes[offset] = UInt8(truncatingIfNeeded: offset &* 31)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(
            error?.resultCode?.primary == .corrupt || error?.resultCode?.primary == .notADatabase,
            "\(String(describing: error))")
        #expect(error.text.contains(path))
    }

    @Test("Files that are not databases throw on open", arguments: NotADatabase.allCases)
    func notADatabase(kind: NotADatabase) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("file.sqlite")
        let contents: [UInt8]
        switch kind {
        case .text: contents = Array(String(repeating: "this is not a database\n", count: 500).utf8)
        case .zeros: contents = [UInt8](repeating: 0, count: 8192)
        case .random:
            var generator = SplitMix64(seed: 42)
            contents = (0..<16384).map { _ in UInt8.random(in: 0...255, using: &generator) }
        case .truncatedHeader: contents = Array(try makeDatabaseFile(at: path).prefix(50))
        case .truncatedPages: contents = Array(try makeDatabaseFile(at: path).prefix(4096 + 100))
        case .magicOnly: contents = Array("SQLite format 3\u{0}".utf8)
        }
        try Data(contents).write(to: URL(fileURLWithPath: path))
        for readOnly in [false, true] {
            let error = #expect(throws: (any Error).self, "\(kind), readOnly \(readOnly)") {
                _ = try openAndReadAll(path, readOnly: readOnly)
            }
            if let error = error as? DatabaseError {
                #expect(error.resultCode != nil, "\(error)")
            }
        }
    }

    @Test("An empty file is a new, empty database, as SQLite defines it")
    func emptyFileIsANewDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let db = try Database(path: path)
        #expect(try db.fetchAll(String.self, query: "SELECT name FROM sqlite_schema").isEmpty)
        #expect(try db.integrityCheck() == ["ok"])
    }

    @Test("A directory or a missing folder throws on open")
    func directoryAndMissingFolder() throws {
        let directory = try TemporaryDirectory()
        expectError(.sqlite) { _ = try Database(path: directory.url.path) }
        expectError(.sqlite) { _ = try Database(path: directory.path("missing/folder/db.sqlite")) }
        expectError(.sqlite) { _ = try Database(path: directory.path("absent.sqlite"), readOnly: true) }
    }

    @Test("A garbage WAL file next to a sound database is ignored: every row is still there")
    func garbageWALIsIgnored() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("wal.sqlite")
        _ = try makeDatabaseFile(at: path)
        var generator = SplitMix64(seed: 7)
        let garbage = (0..<40_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(garbage).write(to: URL(fileURLWithPath: path + "-wal"))
        let names = try openAndReadAll(path)
        #expect(names.count == 2_000)
    }

    enum NotADatabase: String, CaseIterable, Sendable {
        case text, zeros, random, truncatedHeader, truncatedPages, magicOnly
    }
}
