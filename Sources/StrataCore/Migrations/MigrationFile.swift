import Foundation

/// A migration read from a `NNNN_description.sql` file of a migrations folder.
///
/// The number before the first `_` is the version (leading zeros are padding); the rest is
/// the description, made of ASCII letters, digits, `_` and `-`. Hidden files and files that do
/// not end in `.sql` (a README, `.DS_Store`) are not migrations; a `.sql` file with any other
/// name is an error, never skipped.
struct MigrationFile: Sendable {
    /// The version the file migrates to.
    let version: Int
    /// The description part of the name: `create_note` for `0001_create_note.sql`.
    let name: String
    /// Where the file is.
    let url: URL
    /// The SQL it holds, read when the folder is loaded.
    let sql: String
    /// The SHA-256 of the file's bytes, as 64 lowercase hexadecimal digits.
    let checksum: String
    /// Whether the file runs in a transaction with its version bump: false when its first line is
    /// `Migrator.noTransactionDirective`.
    let runsInTransaction: Bool

    /// The file name without its extension: `0001_create_note`.
    var identifier: String { url.deletingPathExtension().lastPathComponent }

    /// The migration files of `directory`, sorted by version.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` when the folder is missing or unreadable, a `.sql`
    ///   file name is malformed, two files share a version, or a file is not UTF-8 text.
    static func load(from directory: URL) throws -> [MigrationFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw DatabaseError(code: .migration, message: "no migrations folder at \(directory.path)")
        }
        guard isDirectory.boolValue else {
            throw DatabaseError(code: .migration, message: "\(directory.path) is not a folder of migrations")
        }
        let entries: [URL]
        do {
            entries = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.isDirectoryKey])
        } catch {
            throw DatabaseError(
                code: .migration, message: "could not list the migrations folder \(directory.path): \(error)",
                underlyingError: error)
        }
        var files: [MigrationFile] = []
        var byVersion: [Int: String] = [:]
        for entry in entries.sorted(by: { $0.lastPathComponent < $1.lastPathComponent }) {
            let fileName = entry.lastPathComponent
            guard let parsed = try parse(fileName: fileName) else { continue }
            if (try? entry.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true {
                throw DatabaseError(code: .migration, message: "migration \(fileName) is a folder, not a file")
            }
            if let other = byVersion[parsed.version] {
                throw DatabaseError(
                    code: .migration,
                    message: "duplicate migration version \(parsed.version): \(other) and \(fileName)")
            }
            byVersion[parsed.version] = fileName
            let (sql, checksum) = try read(entry)
            files.append(
                MigrationFile(
                    version: parsed.version, name: parsed.name, url: entry, sql: sql, checksum: checksum,
                    runsInTransaction: try runsInTransaction(sql, fileName: fileName)))
        }
        return files.sorted { $0.version < $1.version }
    }

    /// The version and description of a migration file name, nil for a file that is not a migration.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` for a `.sql` file whose name is not `NNNN_description.sql`.
    static func parse(fileName: String) throws -> (version: Int, name: String)? {
        guard !fileName.hasPrefix("."),
            let dot = fileName.lastIndex(of: "."),
            fileName[fileName.index(after: dot)...].lowercased() == "sql"
        else { return nil }
        let stem = fileName[..<dot]
        func malformed(_ reason: String) -> DatabaseError {
            DatabaseError(
                code: .migration,
                message: "malformed migration file name \"\(fileName)\": \(reason); "
                    + "expected NNNN_description.sql, such as 0001_create_note.sql")
        }
        guard let underscore = stem.firstIndex(of: "_") else {
            throw malformed("no _ between the version number and the description")
        }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw malformed("the name must start with the version number")
        }
        guard let version = Int32(digits).map(Int.init), version >= 1 else {
            throw malformed("the version must be between 1 and \(Int32.max)")
        }
        guard !name.isEmpty else {
            throw malformed("the description is empty")
        }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw malformed("the description may hold only ASCII letters, digits, _ and -")
        }
        return (version, String(name))
    }

    /// Whether `sql` runs in a transaction: false when its first line is `Migrator.noTransactionDirective`.
    ///
    /// - Throws: ``DatabaseError/Code/migration`` for a `-- strata:` comment line that is not the directive on the
    ///   first line, so that a misspelt or misplaced directive is never silently a comment.
    static func runsInTransaction(_ sql: String, fileName: String) throws -> Bool {
        var runsInTransaction = true
        for (offset, line) in sql.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\u{FEFF}\r")))
            guard text.hasPrefix("--") else { continue }
            let comment = text.dropFirst(2).trimmingCharacters(in: .whitespaces)
            guard comment.lowercased().hasPrefix("strata:") else { continue }
            guard offset == 0, "-- " + comment == Migrator.noTransactionDirective else {
                throw DatabaseError(
                    code: .migration,
                    message: "migration \(fileName), line \(offset + 1): \"\(text.prefix(60))\" is not a Strata "
                        + "directive; the one there is, \(Migrator.noTransactionDirective), goes on the first line")
            }
            runsInTransaction = false
        }
        return runsInTransaction
    }

    private static func read(_ url: URL) throws -> (sql: String, checksum: String) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw DatabaseError(
                code: .migration, message: "could not read migration \(url.lastPathComponent): \(error)",
                underlyingError: error)
        }
        guard let sql = String(validating: data, as: UTF8.self) else {
            throw DatabaseError(code: .migration, message: "migration \(url.lastPathComponent) is not UTF-8 text")
        }
        return (sql, SHA256.hexDigest(of: data))
    }
}
