internal import StrataCore

/// SQL with Strata's parameter styles turned into PostgreSQL's `$n`: the values are always sent apart from the
/// SQL, never spliced into it.
///
/// - `:name` is a named parameter; every use of one name is the same `$n`.
/// - `$n` is PostgreSQL's own positional parameter.
/// - `?` is a positional parameter only in SQL that Strata rendered from a request (where a raw fragment written
///   for SQLite uses it), numbered in order with the request's own `$n`; elsewhere it is left as it is, so that
///   jsonb's `?` operators keep working in hand-written SQL.
///
/// String literals (`'...'`, `E'...'`), quoted identifiers (`"..."`), dollar-quoted strings (`$tag$...$tag$`),
/// comments (`--`, `/* */`) and casts (`::type`) are skipped.
struct PostgresStatementText {
    /// The SQL to send.
    let sql: String
    /// The name of each parameter after the positional ones: `names[0]` is `$(positionalCount + 1)`.
    let names: [String]
    /// The highest `$n` (or `?`, numbered) the SQL uses, 0 for none.
    let highestPositional: Int

    /// Reads `sql`, which has `positionalCount` positional values; `questionMarks` turns `?` into `$n`.
    ///
    /// - Throws: ``DatabaseError/Code/unknownParameter`` for a `$n` beyond the values, or a `?` beyond them.
    init(_ sql: String, positionalCount: Int, questionMarks: Bool) throws {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var names: [String] = []
        var positionalSeen = 0
        var highestPositional = 0
        var index = 0

        func isIdentifierStart(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_") || byte >= 0x80
        }
        func isIdentifierPart(_ byte: UInt8) -> Bool {
            isIdentifierStart(byte) || isDigit(byte)
        }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func unknown(_ message: String) -> DatabaseError {
            DatabaseError(code: .unknownParameter, message: message, sql: sql)
        }
        /// Copies up to and including the closing `quote` (a doubled quote is part of the text); backslash escapes
        /// when `backslashes` (E'...').
        func copyQuoted(_ quote: UInt8, backslashes: Bool) {
            output.append(bytes[index])
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                output.append(byte)
                index += 1
                if backslashes, byte == UInt8(ascii: "\\"), index < bytes.count {
                    output.append(bytes[index])
                    index += 1
                } else if byte == quote {
                    if index < bytes.count, bytes[index] == quote {
                        output.append(quote)
                        index += 1
                    } else {
                        return
                    }
                }
            }
        }

        while index < bytes.count {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // E'...' with backslash escapes is read with its word, below.
                copyQuoted(byte, backslashes: false)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") {
                    output.append(bytes[index])
                    index += 1
                }
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                var depth = 0
                repeat {
                    if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*")
                    {
                        depth += 1
                        output.append(contentsOf: bytes[index...index + 1])
                        index += 2
                    } else if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count,
                        bytes[index + 1] == UInt8(ascii: "/")
                    {
                        depth -= 1
                        output.append(contentsOf: bytes[index...index + 1])
                        index += 2
                    } else {
                        output.append(bytes[index])
                        index += 1
                    }
                } while depth > 0 && index < bytes.count
            case UInt8(ascii: ":") where next == UInt8(ascii: ":"):
                output.append(contentsOf: [byte, byte])
                index += 2
            case UInt8(ascii: ":") where next.map(isIdentifierStart) ?? false:
                var end = index + 1
                while end < bytes.count, isIdentifierPart(bytes[end]) { end += 1 }
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                let offset = names.firstIndex(of: name) ?? names.count
                if offset == names.count { names.append(name) }
                output.append(contentsOf: Array("$\(positionalCount + offset + 1)".utf8))
                index = end
            case UInt8(ascii: "$") where next.map(isDigit) ?? false:
                var end = index + 1
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                let number = Int(String(decoding: bytes[(index + 1)..<end], as: UTF8.self)) ?? Int.max
                guard number >= 1, number <= positionalCount else {
                    throw unknown("no value for the parameter $\(number): \(positionalCount) positional values given")
                }
                positionalSeen += 1
                highestPositional = max(highestPositional, number)
                output.append(contentsOf: bytes[index..<end])
                index = end
            case UInt8(ascii: "$") where index == 0 || !isIdentifierPart(bytes[index - 1]):
                // A dollar-quoted string: $$...$$ or $tag$...$tag$.
                var end = index + 1
                while end < bytes.count, isIdentifierPart(bytes[end]) { end += 1 }
                guard end < bytes.count, bytes[end] == UInt8(ascii: "$") else {
                    output.append(byte)
                    index += 1
                    continue
                }
                let delimiter = Array(bytes[index...end])
                var close = end + 1
                while close + delimiter.count <= bytes.count,
                    Array(bytes[close..<(close + delimiter.count)]) != delimiter
                {
                    close += 1
                }
                let stop = min(close + delimiter.count, bytes.count)
                output.append(contentsOf: bytes[index..<stop])
                index = stop
            case UInt8(ascii: "?") where questionMarks:
                positionalSeen += 1
                guard positionalSeen <= positionalCount else {
                    throw unknown("no value for the parameter ? number \(positionalSeen)")
                }
                highestPositional = max(highestPositional, positionalSeen)
                output.append(contentsOf: Array("$\(positionalSeen)".utf8))
                index += 1
            default:
                if isIdentifierPart(byte) {
                    // A whole word at once, so that `a$1` or `e'` inside a name is never read as syntax.
                    var end = index + 1
                    while end < bytes.count, isIdentifierPart(bytes[end]) || bytes[end] == UInt8(ascii: "$") {
                        end += 1
                    }
                    if end < bytes.count, bytes[end] == UInt8(ascii: "'"), end - index == 1,
                        byte == UInt8(ascii: "E") || byte == UInt8(ascii: "e")
                    {
                        output.append(byte)
                        index = end
                        copyQuoted(UInt8(ascii: "'"), backslashes: true)
                        continue
                    }
                    output.append(contentsOf: bytes[index..<end])
                    index = end
                } else {
                    output.append(byte)
                    index += 1
                }
            }
        }
        self.sql = String(decoding: output, as: UTF8.self)
        self.names = names
        self.highestPositional = highestPositional
    }
}
