import ArgumentParser
import Foundation
import Strata

/// `strata new NAME`: creates the next migration file.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create the next migration file, NNNN_name.sql, in the migrations folder.",
        discussion: """
            The name is turned into lowercase snake_case: "Add tags" and "addTags" both give add_tags. \
            The folder is created when missing.
            """
    )

    @Argument(help: "What the migration does, such as \"add tags\".")
    var name: String

    @OptionGroup var migrationsOptions: MigrationsOptions

    func run() throws {
        try reportingErrors {
            let snakeName = Self.snakeCase(name)
            guard !snakeName.isEmpty else {
                throw CommandError(
                    name.trimmingCharacters(in: .whitespaces).isEmpty
                        ? "the migration name is empty"
                        : "the migration name \"\(name)\" has no ASCII letters or digits")
            }
            let folder = migrationsOptions.url
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var migrator = Migrator()
            try migrator.registerSQLFiles(in: folder)
            let version = migrator.latestVersion + 1
            let digits = String(version)
            let fileName = String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + snakeName + ".sql"
            let file = folder.appendingPathComponent(fileName)
            let header = """
                -- Migration \(version): \(snakeName.replacingOccurrences(of: "_", with: " "))
                --
                -- `strata migrate` runs this file in one transaction together with the bump of the
                -- database's user_version to \(version): if any statement fails, nothing changes.
                -- Write SQL statements separated by semicolons.

                """
            do {
                try Data(header.utf8).write(to: file, options: .withoutOverwriting)
            } catch let error as CocoaError where error.code == .fileWriteFileExists {
                throw CommandError("could not create \(file.path): it exists")
            } catch {
                // A write that failed half-way (a full disk) leaves a file `migrate` would run: remove it, or say so.
                var message = "could not create \(file.path): \(error.localizedDescription)"
                if FileManager.default.fileExists(atPath: file.path) {
                    do {
                        try FileManager.default.removeItem(at: file)
                    } catch {
                        message += "; the incomplete file is left behind, remove it by hand"
                    }
                }
                throw CommandError(message)
            }
            Terminal.write("created \(migrationsOptions.migrations)/\(fileName)")
        }
    }

    /// `name` in lowercase snake_case, ASCII only: "Add tags!" and "addTags" give `add_tags`.
    static func snakeCase(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var words: [String] = []
        var word = ""
        var previous: Character?
        let characters = Array(folded)
        for (offset, character) in characters.enumerated() {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !word.isEmpty { words.append(word) }
                word = ""
                previous = nil
                continue
            }
            if character.isUppercase, let previous, !word.isEmpty {
                let next = offset + 1 < characters.count ? characters[offset + 1] : nil
                // addTags -> add_tags, HTMLParser -> html_parser, v2Notes -> v2_notes.
                let startsWord =
                    previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next.map { $0.isASCII && $0.isLowercase } == true)
                if startsWord {
                    words.append(word)
                    word = ""
                }
            }
            word.append(Character(character.lowercased()))
            previous = character
        }
        if !word.isEmpty { words.append(word) }
        return words.joined(separator: "_")
    }
}
