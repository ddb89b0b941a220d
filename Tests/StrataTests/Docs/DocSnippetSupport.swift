import Foundation
import Strata
import Testing

/// The Swift code blocks of README.md and docs/, and the copies of them that the tests in this folder run.
///
/// Each block is copied into a test, between `// snippet: FILE N` (the N-th Swift block of FILE, from 1) and
/// `// end snippet`, with setup before it and expectations after it. `DocsSyncTests` fails when a block and
/// its copy differ, or when a block has no copy, so the docs cannot drift from code that compiles and runs.
enum DocSnippets {
    /// The package folder.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Docs
        .deletingLastPathComponent()  // StrataTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// README.md and every Markdown file in docs/, relative to the package folder.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    /// The ```swift blocks of `document`, in order, without their leading `import` lines (a test file has
    /// its imports at the top).
    static func swiftBlocks(in document: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if var lines = current, line == "```" {
                while let first = lines.first, first.hasPrefix("import ") || first.isEmpty { lines.removeFirst() }
                blocks.append(normalized(lines))
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The snippets of the test files in this folder, by document and block number.
    static func snippets() throws -> [String: [Int: String]] {
        let folder = root.appendingPathComponent("Tests/StrataTests/Docs")
        var snippets: [String: [Int: String]] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            var open: (document: String, number: Int, indent: Int, lines: [Substring])?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("// snippet: ") {
                    let parts = trimmed.dropFirst("// snippet: ".count).split(separator: " ")
                    guard parts.count == 2, let number = Int(parts[1]) else { continue }
                    open = (String(parts[0]), number, line.count - trimmed.count, [])
                } else if trimmed == "// end snippet", let snippet = open {
                    snippets[snippet.document, default: [:]][snippet.number] = normalized(
                        snippet.lines.map { $0.count >= snippet.indent ? $0.dropFirst(snippet.indent) : "" })
                    open = nil
                } else if open != nil {
                    open?.lines.append(line)
                }
            }
        }
        return snippets
    }

    private static func normalized(_ lines: [Substring]) -> String {
        lines.map { String($0.reversed().drop { $0 == " " }.reversed()) }.joined(separator: "\n")
    }
}

/// A fresh scratch folder made the current directory, holding a copy of the repository's `Migrations/`: the
/// doc examples use relative paths such as `app.sqlite` and `Migrations`.
///
/// The current directory belongs to the whole process, so the doc tests take turns through `enter()`; no
/// other test uses a relative path.
final class ScratchDirectory {
    private static let turns = Turns()
    private let directory: TemporaryDirectory
    private let previous: String

    private init(directory: TemporaryDirectory, previous: String) {
        self.directory = directory
        self.previous = previous
    }

    static func enter() async throws -> ScratchDirectory {
        await turns.take()
        do {
            let directory = try TemporaryDirectory()
            try FileManager.default.copyItem(
                at: DocSnippets.root.appendingPathComponent("Migrations"),
                to: directory.url.appendingPathComponent("Migrations"))
            let previous = FileManager.default.currentDirectoryPath
            _ = FileManager.default.changeCurrentDirectoryPath(directory.url.path)
            return ScratchDirectory(directory: directory, previous: previous)
        } catch {
            await turns.give()
            throw error
        }
    }

    /// The path of `name` in the folder.
    func path(_ name: String) -> String {
        directory.path(name)
    }

    /// Restores the current directory and lets the next doc test in.
    func leave() {
        _ = FileManager.default.changeCurrentDirectoryPath(previous)
        let turns = Self.turns
        Task { await turns.give() }
    }

    /// One doc test at a time, served in order, without holding a thread while waiting.
    private actor Turns {
        private var isTaken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard isTaken else {
                isTaken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func give() {
            if waiting.isEmpty {
                isTaken = false
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
}

@Suite("Docs: every Swift block of README.md and docs/ is a test")
struct DocsSyncTests {
    @Test func everyBlockHasAnIdenticalCopyThatRuns() throws {
        let snippets = try DocSnippets.snippets()
        var documented: Set<String> = []
        for document in try DocSnippets.documents() {
            documented.insert(document)
            let blocks = try DocSnippets.swiftBlocks(in: document)
            let copies = snippets[document] ?? [:]
            for (offset, block) in blocks.enumerated() {
                let copy = copies[offset + 1]
                #expect(copy != nil, "\(document) block \(offset + 1) has no test: run scripts/doc-snippets.py")
                if let copy, copy != block {
                    Issue.record("\(document) block \(offset + 1) differs from its test copy:\n\(block)\n---\n\(copy)")
                }
            }
            #expect(
                copies.keys.sorted() == blocks.indices.map { $0 + 1 },
                "\(document): a test copies a block that is not there")
        }
        #expect(Set(snippets.keys).isSubset(of: documented), "snippets of unknown documents: \(snippets.keys)")
    }
}
