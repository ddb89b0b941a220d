import PostgresNIO
import Strata
import Testing

@testable import StrataPostgres

/// How Strata's parameter styles become PostgreSQL's `$n`; no server needed.
@Suite("PostgreSQL statement text")
struct PostgresStatementTextTests {
    @Test("any SQL text, however malformed, is read to its end or refused with an error, never a trap")
    func malformedTextNeverTraps() throws {
        // Unterminated quotes, comments and dollar tags, a lone `:` or `$` at the end, digits after `$`: strings of
        // the characters the scanner treats apart, cut anywhere. Each must come back as text or as the error for an
        // unknown parameter; reaching the end of the loop is the proof that none traps.
        let pieces = [
            "'", "\"", "$", "$$", "$tag$", ":", "::", "?", "-", "--", "/", "/*", "*/", "*", "\n", "E'", "\\", "a",
            "name", "1", "12", " ", "é", "\u{0}",
        ]
        var generator = SplitMix(seed: 0x5EED)
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 12)
            let sql = (0..<count).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            for questionMarks in [false, true] {
                do {
                    let text = try PostgresStatementText(sql, positionalCount: 1, questionMarks: questionMarks)
                    // Without a parameter character the text goes out as it came.
                    if !sql.contains(where: { ":?$".contains($0) }) {
                        #expect(text.sql == sql, "\(sql.debugDescription) changed")
                    }
                } catch let error as DatabaseError {
                    #expect(error.code == .unknownParameter, "\(sql.debugDescription): \(error)")
                }
            }
        }
    }

    @Test("named parameters become $n in order of first use; a repeated name is the same $n")
    func namedParameters() throws {
        let text = try PostgresStatementText(
            "SELECT :a, :b, :a, :_c1", positionalCount: 0, questionMarks: false)
        #expect(text.sql == "SELECT $1, $2, $1, $3")
        #expect(text.names == ["a", "b", "_c1"])
    }

    @Test("strings, quoted identifiers, comments, dollar quotes and casts are never parameters")
    func skippedSyntax() throws {
        let sql = """
            SELECT ':a', E'\\':b', ":c", x::text, $$ :d $$, $tag$ :e $tag$, "a""b" -- :f
            /* :g /* :h */ :i */ FROM t WHERE y = :real
            """
        let text = try PostgresStatementText(sql, positionalCount: 0, questionMarks: false)
        #expect(text.names == ["real"])
        #expect(text.sql == sql.replacingOccurrences(of: ":real", with: "$1"))
    }

    @Test("? is a parameter only in rendered requests, numbered with the request's own $n")
    func questionMarks() throws {
        let rendered = try PostgresStatementText(
            "a = $1 AND b > ? AND c = $3 AND d = :n", positionalCount: 3, questionMarks: true)
        #expect(rendered.sql == "a = $1 AND b > $2 AND c = $3 AND d = $4")
        #expect(rendered.names == ["n"])
        let handWritten = try PostgresStatementText(
            "SELECT data ? 'key' FROM t", positionalCount: 0, questionMarks: false)
        #expect(handWritten.sql == "SELECT data ? 'key' FROM t")
    }

    @Test("a $n beyond the values throws unknownParameter, naming the SQL")
    func positionalBeyondValues() {
        let error = #expect(throws: DatabaseError.self) {
            try PostgresStatementText("SELECT $2", positionalCount: 1, questionMarks: false)
        }
        #expect(error?.code == .unknownParameter)
        #expect(error?.sql == "SELECT $2")
    }

    @Test("the PostgreSQL dialect: $n placeholders, EXCLUDED in upserts, RETURNING *")
    func dialect() {
        let dialect = PostgresDialect()
        #expect(dialect.placeholder(3) == "$3")
        #expect(
            dialect.upsertClause(conflictColumn: "\"id\"", columns: ["\"a\"", "\"b\""])
                == " ON CONFLICT (\"id\") DO UPDATE SET \"a\" = EXCLUDED.\"a\", \"b\" = EXCLUDED.\"b\"")
        #expect(dialect.upsertClause(conflictColumn: "\"id\"", columns: []) == " ON CONFLICT (\"id\") DO NOTHING")
        #expect(dialect.returningAllColumns == " RETURNING *")
    }

    @Test("a binary numeric becomes its exact text")
    func numericText() throws {
        // 12345678901234567890.1234567890123: weight 4, scale 13, base-10000 digits.
        let digits: [Int16] = [1234, 5678, 9012, 3456, 7890, 1234, 5678, 9012, 3000]
        #expect(try numeric(weight: 4, sign: 0, scale: 13, digits) == "12345678901234567890.1234567890123")
        #expect(try numeric(weight: -2, sign: 0x4000, scale: 8, [1234]) == "-0.00001234")
        #expect(try numeric(weight: 0, sign: 0, scale: 0, []) == "0")
        #expect(try numeric(weight: 1, sign: 0, scale: 2, [12]) == "120000.00")
        #expect(try numeric(weight: 0, sign: 0xC000, scale: 0, []) == "NaN")
    }

    private func numeric(weight: Int16, sign: UInt16, scale: Int16, _ digits: [Int16]) throws -> String {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int16(digits.count))
        buffer.writeInteger(weight)
        buffer.writeInteger(sign)
        buffer.writeInteger(scale)
        for digit in digits { buffer.writeInteger(digit) }
        let cell = PostgresCell(
            bytes: buffer, dataType: .numeric, format: .binary, columnName: "n", columnIndex: 0)
        return try PostgresCellReader.numericText(buffer, cell: cell)
    }
}

/// A small deterministic random generator (SplitMix64), so that a failure repeats.
private struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
