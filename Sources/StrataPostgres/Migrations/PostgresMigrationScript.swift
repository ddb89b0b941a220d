/// The SQL of a migration file as PostgreSQL reads it: its statements, each with the line it starts on.
///
/// Quoted text (`'...'`, `E'...'`, `"..."`, `$tag$...$tag$`), comments (`--`, nested `/* */`), parentheses and the
/// `BEGIN ... END` body of a `CREATE FUNCTION` or `CREATE PROCEDURE` (`BEGIN ATOMIC`) are read through, so that a `;`
/// or a keyword inside them neither ends a statement nor starts one. psql's `\restrict` and `\unrestrict` lines,
/// which pg_dump writes around a dump (since 17.6, 16.10, 15.14, 14.19, 13.22), are left out of ``sql``; any other psql
/// command (`\connect`, `\.`...) is listed in ``psqlCommands``.
///
/// ```swift
/// let script = PostgresMigrationScript("CREATE TABLE t (x int);\nBEGIN;\nINSERT INTO t VALUES (1);")
/// script.statements.map(\.leadingWords)   // [["CREATE", "TABLE", "T", "X"], ["BEGIN"], ["INSERT", "INTO", "T", "VALUES"]]
/// script.statements[1].line              // 2
/// ```
struct PostgresMigrationScript {
    /// One statement of the script.
    struct Statement {
        /// Where the statement's text is in ``PostgresMigrationScript/sql``'s UTF-8 bytes: without its `;`, with any
        /// comments before it.
        let range: Range<Int>
        /// The line its first word is on, from 1.
        let line: Int
        /// Its first four words, upper-cased: `["CREATE", "INDEX", "CONCURRENTLY", "A_NAME"]`.
        let leadingWords: [String]
        /// Whether a word of it, outside quotes and comments, is `STDIN` or `STDOUT` (`COPY t FROM stdin`).
        let namesClientStream: Bool
    }

    /// The statements, in order; the text between them that holds only comments is not one.
    let statements: [Statement]
    /// The script to run: the text as given, without psql's `\restrict` and `\unrestrict` lines.
    let sql: String
    /// The UTF-8 bytes of ``sql``.
    private let sqlBytes: [UInt8]
    /// psql commands other than `\restrict` and `\unrestrict`, which PostgreSQL cannot run: each name (`connect`)
    /// and line.
    let psqlCommands: [(name: String, line: Int)]

    /// Reads `text`.
    ///
    /// - Complexity: O(n) in the length of `text`.
    init(_ text: String) {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var line = 1
        var statements: [Statement] = []
        var psqlCommands: [(name: String, line: Int)] = []

        // The statement being read.
        var statementStart = 0
        var statementLine: Int?
        var words: [String] = []
        var namesClientStream = false
        var parenthesisDepth = 0
        var isRoutine = false
        var routineBodyDepth = 0

        func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }
        func isWordStart(_ byte: UInt8) -> Bool {
            let lower = byte | 0x20
            return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "_")
                || byte >= 0x80
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func isWordPart(_ byte: UInt8) -> Bool { isWordStart(byte) || isDigit(byte) || byte == UInt8(ascii: "$") }
        /// Copies `bytes[index..<end]` to the output, counting its lines, and moves to `end`.
        func copy(to end: Int) {
            let stop = min(end, bytes.count)
            while index < stop {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                output.append(bytes[index])
                index += 1
            }
        }
        /// Notes that the statement has begun, on the current line.
        func begin() {
            if statementLine == nil { statementLine = line }
        }
        func endStatement() {
            if let statementLine {
                statements.append(
                    Statement(
                        range: statementStart..<output.count, line: statementLine,
                        leadingWords: words, namesClientStream: namesClientStream))
            }
            statementLine = nil
            words = []
            namesClientStream = false
            parenthesisDepth = 0
            isRoutine = false
            routineBodyDepth = 0
        }
        /// Reads a quoted text from the quote at `index` to its closing quote (a doubled quote is part of it).
        func copyQuoted(backslashEscapes: Bool) {
            let quote = bytes[index]
            var end = index + 1
            while end < bytes.count {
                if backslashEscapes, bytes[end] == UInt8(ascii: "\\") {
                    end += 2
                } else if bytes[end] == quote {
                    if byte(at: end + 1) == quote {
                        end += 2
                    } else {
                        end += 1
                        break
                    }
                } else {
                    end += 1
                }
            }
            copy(to: end)
        }

        while index < bytes.count {
            let current = bytes[index]
            let next = byte(at: index + 1)
            switch current {
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                copy(to: end)
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                var depth = 0
                var end = index
                repeat {
                    if bytes[end] == UInt8(ascii: "/"), byte(at: end + 1) == UInt8(ascii: "*") {
                        depth += 1
                        end += 2
                    } else if bytes[end] == UInt8(ascii: "*"), byte(at: end + 1) == UInt8(ascii: "/") {
                        depth -= 1
                        end += 2
                    } else {
                        end += 1
                    }
                } while depth > 0 && end < bytes.count
                copy(to: end)
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                begin()
                copyQuoted(backslashEscapes: false)
            case UInt8(ascii: "$") where next.map(isDigit) ?? false:
                // A parameter, $1.
                begin()
                var end = index + 1
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                copy(to: end)
            case UInt8(ascii: "$"):
                begin()
                var end = index + 1
                while end < bytes.count, isWordStart(bytes[end]) || isDigit(bytes[end]) { end += 1 }
                guard end < bytes.count, bytes[end] == UInt8(ascii: "$") else {
                    copy(to: index + 1)
                    continue
                }
                // A dollar-quoted text, $$...$$ or $tag$...$tag$: up to the next occurrence of its tag.
                let tag = bytes[index...end]
                var close = end + 1
                while close + tag.count <= bytes.count, !bytes[close..<(close + tag.count)].elementsEqual(tag) {
                    close += 1
                }
                copy(to: close + tag.count)
            case UInt8(ascii: "("):
                begin()
                parenthesisDepth += 1
                copy(to: index + 1)
            case UInt8(ascii: ")"):
                begin()
                parenthesisDepth = max(0, parenthesisDepth - 1)
                copy(to: index + 1)
            case UInt8(ascii: ";") where parenthesisDepth == 0 && routineBodyDepth == 0:
                endStatement()
                index += 1
                output.append(current)
                statementStart = output.count
            case UInt8(ascii: "\\"):
                // A psql command: its name, then its arguments to the end of the line.
                var nameEnd = index + 1
                while nameEnd < bytes.count, bytes[nameEnd] > UInt8(ascii: " ") { nameEnd += 1 }
                let name = String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)
                var end = nameEnd
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if name == "restrict" || name == "unrestrict" {
                    index = end
                } else {
                    psqlCommands.append((name, line))
                    copy(to: end)
                }
            default:
                if isWordStart(current) {
                    begin()
                    var end = index + 1
                    while end < bytes.count, isWordPart(bytes[end]) { end += 1 }
                    let word = bytes[index..<end]
                    copy(to: end)
                    if word.count == 1, word.first == UInt8(ascii: "E") || word.first == UInt8(ascii: "e"),
                        byte(at: index) == UInt8(ascii: "'")
                    {
                        copyQuoted(backslashEscapes: true)
                        continue
                    }
                    // Only the first words are kept as text; the others are compared byte by byte, for speed.
                    if words.count < 4 {
                        words.append(String(decoding: word, as: UTF8.self).uppercased())
                        isRoutine = Self.isRoutineDefinition(words)
                    }
                    if words.first == "COPY", Self.is(word, "STDIN") || Self.is(word, "STDOUT") {
                        namesClientStream = true
                    }
                    if isRoutine, parenthesisDepth == 0 {
                        // CREATE FUNCTION ... BEGIN ATOMIC ...; ...; END: the body's `;` do not end the statement.
                        if Self.is(word, "BEGIN") || (routineBodyDepth > 0 && Self.is(word, "CASE")) {
                            routineBodyDepth += 1
                        } else if routineBodyDepth > 0, Self.is(word, "END") {
                            routineBodyDepth -= 1
                        }
                    }
                } else if isDigit(current) {
                    begin()
                    var end = index + 1
                    while end < bytes.count, isWordPart(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
                    copy(to: end)
                } else {
                    if current > UInt8(ascii: " ") { begin() }
                    copy(to: index + 1)
                }
            }
        }
        endStatement()
        self.statements = statements
        self.psqlCommands = psqlCommands
        sql = String(decoding: output, as: UTF8.self)
        sqlBytes = output
    }

    /// The text of `statement`, one of ``statements``.
    func text(of statement: Statement) -> String {
        String(decoding: sqlBytes[statement.range], as: UTF8.self)
    }

    /// Whether `word` is `keyword` (upper-case ASCII), in any case.
    private static func `is`(_ word: ArraySlice<UInt8>, _ keyword: StaticString) -> Bool {
        guard word.count == keyword.utf8CodeUnitCount else { return false }
        let upper = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
        return zip(word, upper).allSatisfy { byte, expected in
            byte == expected
                || (expected >= UInt8(ascii: "A") && expected <= UInt8(ascii: "Z") && byte == expected | 0x20)
        }
    }

    /// Whether `words`, a statement's first words, begin `CREATE [OR REPLACE] FUNCTION` or `... PROCEDURE`.
    private static func isRoutineDefinition(_ words: [String]) -> Bool {
        guard words.first == "CREATE" else { return false }
        let kind =
            words.count > 2 && words[1] == "OR" && words[2] == "REPLACE"
            ? words.dropFirst(3).first : words.dropFirst().first
        return kind == "FUNCTION" || kind == "PROCEDURE"
    }
}

extension PostgresMigrationScript {
    /// The text of each statement of `sql`, in order, for `execute` to run one after another: `sql` itself when it
    /// has no `;`.
    static func statementTexts(of sql: String) -> [String] {
        guard sql.utf8.contains(UInt8(ascii: ";")) else { return [sql] }
        let script = PostgresMigrationScript(sql)
        return script.statements.map(script.text(of:))
    }

    /// Whether `sql` holds more than one statement.
    static func holdsSeveralStatements(_ sql: String) -> Bool {
        sql.utf8.contains(UInt8(ascii: ";")) && PostgresMigrationScript(sql).statements.count > 1
    }
}
