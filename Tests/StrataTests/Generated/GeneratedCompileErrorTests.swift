import Foundation
import StrataTesting
import Testing

/// Models that must not compile, compiled for real: `swiftc -typecheck` on small files that import StrataRecord,
/// with the modules and the `@Table` macro SwiftPM built next to this test bundle (no package is built; one
/// compiler run of a few seconds checks every file).
///
/// A macro sees only the struct's body. What Swift honours elsewhere (`CodingKeys`, `init(from:)` or `encode(to:)`
/// declared in an extension) must be a compile error, never coding that the generated reader and writer silently
/// ignore: these files compiled, and stored wrong data, before `@Table` declared those members itself.
@Suite("Generated records: what @Table refuses to compile")
struct GeneratedCompileErrorTests {
    /// One file each, and what the compiler must say about it.
    static let refused: [(file: String, type: String, source: String, error: String)] = [
        (
            "ExtensionCodingKeys.swift", "Person",
            """
            @Table("person")
            struct Person: Codable {
                var id: Int64?
                var fullName: String?
            }

            extension Person {
                enum CodingKeys: String, CodingKey {
                    case id
                    case fullName = "full_name"
                }
            }
            """,
            "invalid redeclaration of 'CodingKeys'"
        ),
        (
            "ExtensionDecoder.swift", "Tagged",
            """
            @Table("tagged")
            struct Tagged: Codable {
                var id: Int64?
                var tags: [String]
            }

            extension Tagged {
                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: CodingKeys.self)
                    id = try container.decodeIfPresent(Int64.self, forKey: .id)
                    tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
                }
            }
            """,
            "invalid redeclaration of 'init(from:)'"
        ),
        (
            "ExtensionEncoder.swift", "Account",
            """
            @Table("account")
            struct Account: Codable {
                var id: Int64?
                var email: String
            }

            extension Account {
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encodeIfPresent(id, forKey: .id)
                    try container.encode(email.lowercased(), forKey: .email)
                }
            }
            """,
            "invalid redeclaration of 'encode(to:)'"
        ),
        (
            "CodingKeysAlias.swift", "Setting",
            """
            enum SettingKeys: String, CodingKey {
                case id
                case theme = "ui_theme"
            }

            @Table("setting")
            struct Setting: Codable {
                var id: Int64?
                var theme: String?
                typealias CodingKeys = SettingKeys
            }
            """,
            "Setting.CodingKeys is a typealias, whose keys @Table cannot read"
        ),
    ]

    /// Compiles with no diagnostic: `CodingKeys` in the body, an extension with other members, and a model in one
    /// file whose extension in another file declares no coding. Proves that the compiler run itself works.
    static let accepted: [(file: String, source: String)] = [
        (
            "Accepted.swift",
            """
            @Table("renamed")
            struct Renamed: Codable {
                var id: Int64?
                var fullName: String?

                enum CodingKeys: String, CodingKey {
                    case id
                    case fullName = "full_name"
                }
            }

            extension Renamed {
                var initials: String { String(fullName?.prefix(1) ?? "") }
                init(name: String) { self.init(id: nil, fullName: name) }
            }
            """
        )
    ]

    /// A `CodingKeys` declared in an extension in another file than the model's.
    static let otherFile: [(file: String, source: String)] = [
        (
            "Profile.swift",
            """
            @Table("profile")
            struct Profile: Codable {
                var id: Int64?
                var displayName: String
            }
            """
        ),
        (
            "ProfileKeys.swift",
            """
            extension Profile {
                enum CodingKeys: String, CodingKey {
                    case id
                    case displayName = "display_name"
                }
            }
            """
        ),
    ]

    @Test("CodingKeys, init(from:) or encode(to:) in an extension does not compile, pointing at why")
    func refusedModels() throws {
        let files = Self.refused.map { ($0.file, $0.source) } + Self.accepted + Self.otherFile
        let diagnostics = try TypeCheck.run(files)

        for model in Self.refused {
            let errors = diagnostics.filter { $0.file == model.file && $0.kind == "error" }.map(\.message)
            #expect(errors.contains { $0.contains(model.error) }, "\(model.file): \(errors)")
        }
        for model in Self.accepted {
            let found = diagnostics.filter { $0.file == model.file }
            #expect(found.isEmpty, "\(model.file): \(found.map(\.message))")
        }

        // Each redeclaration is reported at the user's declaration with a note at the declaration @Table generated,
        // or at the generated one: either way the compiler shows the generated declaration, whose doc comment's last
        // lines (the ones shown above it) say why it is there and what to do.
        let otherFileErrors = diagnostics.filter {
            $0.kind == "error" && $0.message == "invalid redeclaration of 'CodingKeys'"
                && ($0.file == "ProfileKeys.swift" || $0.path.contains("Profile"))
        }
        #expect(!otherFileErrors.isEmpty, "\(diagnostics)")
        for type in Self.refused.prefix(3).map(\.type) + ["Profile"] {
            let generated = diagnostics.first {
                $0.path.contains("swiftmacro") && $0.path.contains(type)
                    && ($0.message.hasPrefix("invalid redeclaration")
                        || $0.message.hasSuffix("previously declared here"))
            }
            try Self.expectExplanation(above: try #require(generated, "\(type): \(diagnostics)"))
        }
    }

    /// Checks that the two lines above `diagnostic`'s line in the generated source say why the declaration is there.
    private static func expectExplanation(above diagnostic: TypeCheck.Diagnostic) throws {
        // The compiler writes each macro expansion it reports to a file.
        let source = try String(contentsOfFile: diagnostic.path, encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let above = lines[max(0, diagnostic.line - 3)..<max(0, diagnostic.line - 1)].joined(separator: "\n")
        #expect(above.contains("in an extension"), "\(above)")
        #expect(above.contains("Declare CodingKeys inside"), "\(above)")
    }
}

/// One `swiftc -typecheck` run over source files that import StrataRecord, with what SwiftPM built next to this
/// test bundle: the modules, and the `@Table` macro's plugin.
enum TypeCheck {
    struct Diagnostic: CustomStringConvertible {
        var path: String
        var line: Int
        var kind: String
        var message: String

        var file: String { URL(fileURLWithPath: path).lastPathComponent }
        var description: String { "\(file):\(line): \(kind): \(message)" }
    }

    /// Type-checks `files` (name and source; each gets `import StrataRecord`) as one module, and returns every
    /// error, warning and note.
    static func run(_ files: [(String, String)]) throws -> [Diagnostic] {
        let products = try productsFolder()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-typecheck-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = []
        for (name, source) in files {
            let url = folder.appendingPathComponent(name)
            try Data(("import Foundation\nimport StrataRecord\n\n" + source + "\n").utf8).write(to: url)
            paths.append(url.path)
        }
        let package = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Generated
            .deletingLastPathComponent()  // StrataTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // the package

        let arguments =
            [
                "swiftc", "-typecheck", "-continue-building-after-errors", "-diagnostic-style", "llvm",
                "-module-name", "TypeCheckedModels",
                "-I", products.appendingPathComponent("Modules").path,
                "-Xcc", "-fmodule-map-file=" + package.appendingPathComponent("Sources/CSQLite/module.modulemap").path,
                "-load-plugin-executable",
                products.appendingPathComponent("StrataRecordMacros-tool").path + "#StrataRecordMacros",
            ] + paths
        #if canImport(Glibc)
            // StrataTesting's ChildProcess (posix_spawn), not Foundation's `Process`, whose `run()` overflowed a heap
            // buffer under the address sanitizer. Both outputs are read to their ends at once; a hung compiler is
            // killed, and that fails the test.
            let finished = try ChildProcess.run(
                "/usr/bin/env", arguments, in: folder.path, timeout: .seconds(600))
            let text = finished.outputText + finished.errorText
            let succeeded = finished.termination == .exited(0)
        #else
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.currentDirectoryURL = folder
            let output = folder.appendingPathComponent("output")
            try Data().write(to: output)
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            process.waitUntilExit()
            try handle.close()
            let text = try String(contentsOf: output, encoding: .utf8)
            let succeeded = process.terminationStatus == 0
        #endif

        // `path:line:column: kind: message`
        var diagnostics: [Diagnostic] = []
        for line in text.split(separator: "\n") {
            for kind in ["error", "warning", "note"] {
                guard let range = line.range(of: ": \(kind): ") else { continue }
                let location = line[..<range.lowerBound].split(separator: ":")
                guard location.count >= 3, let number = Int(location[location.count - 2]) else { continue }
                diagnostics.append(
                    Diagnostic(
                        path: location.dropLast(2).joined(separator: ":"), line: number, kind: kind,
                        message: String(line[range.upperBound...])))
                break
            }
        }
        if succeeded && !diagnostics.isEmpty {
            Issue.record("swiftc succeeded with diagnostics:\n\(text)")
        }
        if diagnostics.isEmpty && !succeeded {
            throw TypeCheckError(description: "swiftc failed without a diagnostic:\n\(text)")
        }
        return diagnostics
    }

    /// The folder with `Modules/StrataRecord.swiftmodule` and `StrataRecordMacros-tool` that SwiftPM built this test
    /// bundle into, or `STRATA_PRODUCTS`.
    static func productsFolder() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["STRATA_PRODUCTS"] {
            return URL(fileURLWithPath: override)
        }
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            folders.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        // On macOS the test bundle is a folder (`….xctest/Contents/MacOS`); climb to the products folder.
        for folder in folders {
            var candidate = folder
            for _ in 0..<4 {
                let module = candidate.appendingPathComponent("Modules/StrataRecord.swiftmodule")
                let plugin = candidate.appendingPathComponent("StrataRecordMacros-tool")
                if FileManager.default.fileExists(atPath: module.path),
                    FileManager.default.isExecutableFile(atPath: plugin.path)
                {
                    return candidate
                }
                candidate = candidate.deletingLastPathComponent()
            }
        }
        throw TypeCheckError(
            description: "no Modules/StrataRecord.swiftmodule and StrataRecordMacros-tool next to the test bundle "
                + "(looked in \(folders.map(\.path))); build with `swift build --build-tests` or set STRATA_PRODUCTS")
    }

    struct TypeCheckError: Error, CustomStringConvertible {
        var description: String
    }
}
