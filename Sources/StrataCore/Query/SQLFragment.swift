/// How a dialect writes what a scanner of its SQL must skip: string literals, quoted identifiers, comments, and in
/// PostgreSQL dollar-quoted strings and `::` casts. Strata reads a raw fragment (`filter(sql:)`) with it, to find the
/// fragment's own `?` placeholders and renumber them into the request.
///
/// A dialect names the nearer of the two (``SQLDialect/syntax``).
public enum SQLSyntax: Sendable {
    /// SQLite: `'...'`, `"..."`, `[...]`, names in backquotes, `--`, `/* */`; `:name`, `@name` and `$name`
    /// parameters.
    case sqlite
    /// PostgreSQL: `'...'`, `E'...'`, `"..."`, `$tag$...$tag$`, `--`, nested `/* */`, `::type`; `:name` parameters
    /// and `$n` positional ones.
    case postgres
}

/// One piece of a raw SQL fragment, as ``SQLFragmentScanner`` reads it.
package enum SQLFragmentPiece: Equatable {
    /// Text copied as it is: SQL, strings, identifiers, comments, named parameters.
    case text(Substring)
    /// A positional placeholder: `?` (`number` nil), `?NNN` or, in PostgreSQL, `$NNN`.
    case placeholder(number: Int?, spelling: Substring)
}

/// Splits a raw fragment into text and positional placeholders, skipping what its dialect quotes or comments out.
///
/// A fragment's positional placeholders are its own: `?1` is the fragment's first value, not the request's, so the
/// renderer renumbers them into the request (see `SQLRenderer.appendText`).
package struct SQLFragmentScanner {
    let text: Substring
    let syntax: SQLSyntax

    package init(_ text: String, syntax: SQLSyntax) {
        self.text = text[...]
        self.syntax = syntax
    }

    /// The pieces of the fragment, in order, whether it ends inside a `--` comment (which would swallow SQL
    /// appended after it on the same line), and whether it ends inside a string, a quoted name or a `/* */` comment
    /// that it does not close (where a value appended after it would be part of that text, not a parameter).
    package func pieces() -> (pieces: [SQLFragmentPiece], endsInLineComment: Bool, endsQuoted: Bool) {
        var pieces: [SQLFragmentPiece] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        var textStart = index
        var endsInLineComment = false
        var endsQuoted = false

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            var position = index
            for _ in 0..<offset {
                guard position < scalars.endIndex else { return nil }
                position = scalars.index(after: position)
            }
            return position < scalars.endIndex ? scalars[position] : nil
        }
        func advance(_ count: Int = 1) {
            for _ in 0..<count where index < scalars.endIndex { index = scalars.index(after: index) }
        }
        func skipQuoted(until close: Unicode.Scalar, backslashes: Bool = false) {
            advance()
            while let scalar = peek() {
                advance()
                if backslashes, scalar == "\\" {
                    advance()
                } else if scalar == close {
                    if peek() == close { advance() } else { return }
                }
            }
            endsQuoted = true
        }
        func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { ("0"..."9").contains($0) } ?? false }
        func isWordPart(_ scalar: Unicode.Scalar?) -> Bool {
            guard let scalar else { return false }
            return scalar == "_" || scalar == "$" || scalar.value >= 0x80 || ("a"..."z").contains(scalar)
                || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        func flushText(upTo end: String.UnicodeScalarView.Index) {
            if textStart < end { pieces.append(.text(Substring(scalars[textStart..<end]))) }
        }
        /// The number written at `index` (nil past a million, which no fragment has values for), and where it ends.
        func digits() -> (Int?, String.UnicodeScalarView.Index) {
            var end = index
            var value: Int? = 0
            while end < scalars.endIndex, isDigit(scalars[end]) {
                let digit = Int(scalars[end].value) - 48
                value = value.map { $0 * 10 + digit }.flatMap { $0 > 1_000_000 ? nil : $0 }
                end = scalars.index(after: end)
            }
            return (value, end)
        }

        while let scalar = peek() {
            switch scalar {
            case "'":
                skipQuoted(until: "'")
            case "\"":
                skipQuoted(until: "\"")
            case "[" where syntax == .sqlite:
                skipQuoted(until: "]")
            case "`" where syntax == .sqlite:
                skipQuoted(until: "`")
            case "-" where peek(1) == "-":
                while let next = peek(), next != "\n" { advance() }
                endsInLineComment = peek() == nil
            case "/" where peek(1) == "*":
                var depth = 0
                repeat {
                    if peek() == "/", peek(1) == "*" {
                        depth += syntax == .postgres || depth == 0 ? 1 : 0
                        advance(2)
                    } else if peek() == "*", peek(1) == "/" {
                        depth -= 1
                        advance(2)
                    } else {
                        advance()
                    }
                } while depth > 0 && index < scalars.endIndex
                if depth > 0 { endsQuoted = true }
            case "E" where syntax == .postgres && peek(1) == "'", "e" where syntax == .postgres && peek(1) == "'":
                // Reached only at the start of a word (words are read whole below): an escape string.
                advance()
                skipQuoted(until: "'", backslashes: true)
            case ":" where peek(1) == ":":
                advance(2)
            case "$" where syntax == .postgres && isDigit(peek(1)):
                let start = index
                advance()
                let (number, end) = digits()
                index = end
                flushText(upTo: start)
                pieces.append(.placeholder(number: number ?? 0, spelling: Substring(scalars[start..<end])))
                textStart = index
            case "$" where syntax == .postgres:
                let before = index > scalars.startIndex ? scalars[scalars.index(before: index)] : nil
                guard !isWordPart(before) else {
                    advance()
                    continue
                }
                // A dollar-quoted string: $$...$$ or $tag$...$tag$.
                var end = scalars.index(after: index)
                while end < scalars.endIndex, isWordPart(scalars[end]), scalars[end] != "$" {
                    end = scalars.index(after: end)
                }
                guard end < scalars.endIndex, scalars[end] == "$" else {
                    advance()
                    continue
                }
                let delimiter = String(scalars[index...end])
                let rest = text[scalars.index(after: end)...]
                if let close = rest.range(of: delimiter) {
                    index = close.upperBound
                } else {
                    index = scalars.endIndex
                    endsQuoted = true
                }
            case "?":
                let start = index
                advance()
                var number: Int?
                if isDigit(peek()) {
                    let (value, end) = digits()
                    number = value ?? 0
                    index = end
                }
                flushText(upTo: start)
                pieces.append(.placeholder(number: number, spelling: Substring(scalars[start..<index])))
                textStart = index
            default:
                if isWordPart(scalar) {
                    // A whole word at once, so that `a$1` or `e'` inside a name is never read as syntax.
                    advance()
                    while isWordPart(peek()) { advance() }
                } else {
                    advance()
                }
            }
        }
        flushText(upTo: scalars.endIndex)
        return (pieces, endsInLineComment, endsQuoted)
    }
}
