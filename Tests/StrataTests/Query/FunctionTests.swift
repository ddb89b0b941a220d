import Foundation
import Strata
import Testing

@Suite("SQL functions and collations written in Swift")
struct FunctionTests {
    struct SlugError: Error, CustomStringConvertible {
        var description: String { "slugify needs text" }
    }

    @Test func aFunctionComputesItsResultInSQL() throws {
        let db = try Database()
        try db.createFunction("slugify", argumentCount: 1, deterministic: true) { args in
            .text(try String(databaseValue: args[0]).lowercased().replacingOccurrences(of: " ", with: "-"))
        }
        #expect(try db.fetchOne(String.self, query: "SELECT slugify('Hello World')") == "hello-world")
        try db.execute(query: "CREATE TABLE t (title TEXT); INSERT INTO t VALUES ('A B'), ('C D E')")
        #expect(try db.fetchAll(String.self, query: "SELECT slugify(title) FROM t ORDER BY title") == ["a-b", "c-d-e"])
    }

    @Test func argumentsAndResultsKeepEveryStorageClass() throws {
        let db = try Database()
        try db.createFunction("echo", argumentCount: 1) { args in args[0] }
        try db.createFunction("count_args", argumentCount: -1) { args in .integer(Int64(args.count)) }
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(42)") == .integer(42))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(1.5)") == .real(1.5))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo('héllo')") == .text("héllo"))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo('')") == .text(""))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(x'00ff')") == .blob(Data([0, 255])))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(x'')") == .blob(Data()))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(NULL)") == .null)
        #expect(try db.fetchOne(Int.self, query: "SELECT count_args(1, 'a', NULL)") == 3)
        #expect(try db.fetchOne(Int.self, query: "SELECT count_args()") == 0)
    }

    @Test func aFunctionThatThrowsFailsTheStatementWithItsMessage() throws {
        let db = try Database()
        try db.createFunction("strict", argumentCount: 1) { args in
            guard case .text = args[0] else { throw SlugError() }
            return args[0]
        }
        let error = expectError(.sqlite) { _ = try db.fetchOne(String.self, query: "SELECT strict(1)") }
        #expect(error.text.contains("slugify needs text"))
        // The connection goes on.
        #expect(try db.fetchOne(String.self, query: "SELECT strict('ok')") == "ok")
        // A conversion error thrown by the body is reported too.
        try db.createFunction("as_int", argumentCount: 1) { args in .integer(try Int64(databaseValue: args[0])) }
        let conversion = expectError(.sqlite) { _ = try db.fetchOne(Int.self, query: "SELECT as_int('x')") }
        #expect(conversion.text.contains("could not decode Int64 from TEXT"))
    }

    final class Witness {}

    @Test func closingTheDatabaseReleasesItsFunctionsAndCollations() throws {
        weak var functionWitness: Witness?
        weak var collationWitness: Witness?
        let db = try Database()
        do {
            let function = Witness()
            let collation = Witness()
            functionWitness = function
            collationWitness = collation
            try db.createFunction("witness", argumentCount: 0) { _ in .text("\(ObjectIdentifier(function))") }
            try db.createCollation("witness") { a, b in
                _ = collation
                return a.compare(b)
            }
        }
        #expect(try db.fetchOne(String.self, query: "SELECT witness()") != nil)
        #expect(functionWitness != nil)
        #expect(collationWitness != nil)
        db.close()
        #expect(functionWitness == nil)
        #expect(collationWitness == nil)
    }

    @Test func badRegistrationsThrow() throws {
        let db = try Database()
        expectError(.invalidArgument) { try db.createFunction("", argumentCount: 1) { _ in .null } }
        expectError(.invalidArgument) { try db.createFunction("f", argumentCount: 200) { _ in .null } }
        expectError(.invalidArgument) { try db.createCollation("") { _, _ in .orderedSame } }
        db.close()
        expectError(.connectionClosed) { try db.createFunction("f", argumentCount: 1) { _ in .null } }
    }

    @Test func aCollationOrdersByItsComparisonAndServesAnIndex() throws {
        let db = try Database()
        try db.createCollation("unicode_ci") { a, b in a.caseInsensitiveCompare(b) }
        try db.execute(
            query: """
                CREATE TABLE tag (name TEXT);
                INSERT INTO tag VALUES ('banana'), ('Apple'), ('cherry'), ('apple2');
                """)
        #expect(
            try db.fetchAll(String.self, query: "SELECT name FROM tag ORDER BY name COLLATE unicode_ci")
                == ["Apple", "apple2", "banana", "cherry"])
        #expect(
            try db.fetchAll(String.self, query: "SELECT name FROM tag ORDER BY name")
                == ["Apple", "apple2", "banana", "cherry"].sorted())
        try db.execute(query: "CREATE INDEX tag_name ON tag (name COLLATE unicode_ci)")
        #expect(
            try db.fetchAll(String.self, query: "SELECT name FROM tag WHERE name = 'APPLE' COLLATE unicode_ci") == [
                "Apple"
            ])
        let explain = try db.prepare(
            query: "EXPLAIN QUERY PLAN SELECT name FROM tag WHERE name = 'APPLE' COLLATE unicode_ci")
        var plan: [String] = []
        while let row = try explain.next() { plan.append(try row.detail) }
        #expect(plan.contains { $0.contains("tag_name") })
        #expect(try db.fetchOne(String.self, query: "PRAGMA integrity_check") == "ok")
    }

    @Test func aCollationNeverComparesTextThatIsNotValidUTF8Repaired() throws {
        let db = try Database()
        try db.createCollation("unicode_ci") { a, b in a.caseInsensitiveCompare(b) }
        // x'ff' and x'fe' are both invalid UTF-8: repaired, both were U+FFFD, and so equal.
        #expect(
            try db.fetchOne(Int.self, query: "SELECT CAST(x'ff' AS TEXT) = CAST(x'fe' AS TEXT) COLLATE unicode_ci") == 0
        )
        #expect(
            try db.fetchOne(Int.self, query: "SELECT CAST(x'ff' AS TEXT) = CAST(x'ff' AS TEXT) COLLATE unicode_ci") == 1
        )
        // A total order an index can use: valid text by the collation, then invalid UTF-8 by its bytes.
        try db.execute(query: "CREATE TABLE tag (name TEXT COLLATE unicode_ci UNIQUE)")
        try db.execute(
            query:
                "INSERT INTO tag VALUES (CAST(x'ff' AS TEXT)), (CAST(x'fe41' AS TEXT)), (CAST(x'fe' AS TEXT)), ('b'), ('A')"
        )
        #expect(
            try db.fetchAll(String.self, query: "SELECT hex(name) FROM tag ORDER BY name")
                == ["41", "62", "FE", "FE41", "FF"])
        #expect(try db.fetchOne(String.self, query: "PRAGMA integrity_check") == "ok")
    }

    @Test func unicodeCaseFunctionsReplaceTheASCIIOnesOnOneConnection() throws {
        let db = try Database()
        #expect(try db.fetchOne(String.self, query: "SELECT upper('émile')") == "éMILE")
        try db.useUnicodeCaseFunctions()
        #expect(try db.fetchOne(String.self, query: "SELECT upper('émile')") == "ÉMILE")
        #expect(try db.fetchOne(String.self, query: "SELECT lower('ÉMILE')") == "émile")
        #expect(try db.fetchOne(String.self, query: "SELECT upper('straße')") == "STRASSE")
        #expect(try db.fetchOne(String?.self, query: "SELECT upper(NULL)") == .some(nil))
        #expect(try db.fetchOne(String.self, query: "SELECT upper(12)") == "12")
        let other = try Database()
        #expect(try other.fetchOne(String.self, query: "SELECT upper('émile')") == "éMILE")
    }

    @Test func aPoolAppliesFunctionsToEveryConnectionThroughConfigure() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("app.sqlite"), readers: 2) { db in
            try db.useUnicodeCaseFunctions()
        }
        let written = try await pool.write { db in try db.fetchOne(String.self, query: "SELECT upper('é')") }
        let read = try await pool.read { db in try db.fetchOne(String.self, query: "SELECT lower('É')") }
        #expect(written == "É")
        #expect(read == "é")
        await pool.close()
    }

    /// Values of every storage class that is not valid UTF-8 TEXT, as SQL: the Unicode `upper` and `lower` must give
    /// exactly what SQLite's built-ins give for each (and for ASCII TEXT, which the two agree on).
    static let caseFunctionExpressions: [String] = [
        "NULL", "0", "-1", "42", "9223372036854775807", "-9223372036854775808",
        "1e20", "0.1 + 0.2", "-0.0", "0.0", "1.5", "1e15", "1e16", "123456789012345678.0", "9e999", "-9e999",
        "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "1.0 / 3", "x''", "x'00'", "x'616263'",
        "x'4142ff00617a'", "x'c3a9'", "x'80'", "CAST(x'ff61' AS TEXT)", "CAST(x'61c3' AS TEXT)", "''",
        "'abc XYZ 123 e+'", "CAST(x'610062' AS TEXT)",
    ]

    /// Reals of every magnitude, bound as parameters: from the smallest subnormal to the largest finite value, with
    /// their neighbours, negatives and the infinities.
    static var boundReals: [Double] {
        var values: [Double] = [
            0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            .ulpOfOne, 0.1 + 0.2, 1.0 / 3, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e15, 1e16, 1e17,
        ]
        for exponent in stride(from: -324, through: 308, by: 7) {
            let value = Double("1e\(exponent)") ?? 0
            values += [value, -value, value.nextUp, value * 1.5, value * 7.123456789]
        }
        return values
    }

    /// The storage class and bytes of `function(argument)`, the argument written as SQL or bound.
    private static func caseResult(
        _ function: String, _ argument: String, bound value: DatabaseValue? = nil, in db: Database
    ) throws -> [String] {
        let statement = try db.prepare(query: "SELECT typeof(\(function)(\(argument))), hex(\(function)(\(argument)))")
        if let value { try statement.bind(value: value, at: 1) }
        let row = try #require(try statement.next())
        return [try row[0] as String, try row[1] as String]
    }

    @Test(arguments: ["upper", "lower"])
    func unicodeCaseFunctionsGiveWhatTheBuiltInsGiveForEveryNonTextArgument(function: String) throws {
        let builtIn = try Database()
        let unicode = try Database()
        try unicode.useUnicodeCaseFunctions()
        for expression in Self.caseFunctionExpressions {
            let expected = try Self.caseResult(function, expression, in: builtIn)
            let actual = try Self.caseResult(function, expression, in: unicode)
            #expect(actual == expected, "\(function)(\(expression))")
        }
        var bound: [DatabaseValue] = Self.boundReals.map { .real($0) }
        bound += [Int64.min, Int64.min + 1, -1, 0, 1, 1 << 53, (1 << 53) + 1, Int64.max].map { .integer($0) }
        bound += [.null, .blob(Data()), .blob(Data([0])), .blob(Data("Mixed Case é".utf8)), .blob(Data([0xff, 0x61]))]
        for value in bound {
            let expected = try Self.caseResult(function, "?", bound: value, in: builtIn)
            let actual = try Self.caseResult(function, "?", bound: value, in: unicode)
            #expect(actual == expected, "\(function)(\(value))")
        }
    }

    @Test func unicodeCaseFunctionsGiveSQLitesTextOfANumber() throws {
        let db = try Database()
        try db.useUnicodeCaseFunctions()
        #expect(try db.fetchOne(String.self, query: "SELECT upper(1e20)") == "1.0E+20")
        #expect(try db.fetchOne(String.self, query: "SELECT lower(1e20)") == "1.0e+20")
        #expect(try db.fetchOne(String.self, query: "SELECT upper(0.1 + 0.2)") == "0.3")
        #expect(try db.fetchOne(String.self, query: "SELECT upper(-0.0)") == "0.0")
        #expect(try db.fetchOne(String.self, query: "SELECT upper(9e999)") == "INF")
        #expect(try db.fetchOne(String.self, query: "SELECT typeof(upper(x'6162'))") == "text")
        #expect(try db.fetchOne(String.self, query: "SELECT upper(x'6162c3a9')") == "ABé")
        // Valid UTF-8 TEXT is what changes: every letter Unicode knows.
        #expect(try db.fetchOne(String.self, query: "SELECT upper('straße ǆ')") == "STRASSE Ǆ")
        #expect(try db.fetchOne(String.self, query: "SELECT hex(upper(CAST(x'ff61' AS TEXT)))") == "FF41")
    }

    @Test func aFunctionArgumentThatIsNotValidUTF8TextFailsTheStatement() throws {
        let db = try Database()
        var calls = 0
        try db.createFunction("echo", argumentCount: 2) { args in
            calls += 1
            return args[1]
        }
        let error = expectError(.sqlite) {
            _ = try db.fetchOne(DatabaseValue.self, query: "SELECT echo(1, CAST(x'ff61' AS TEXT))")
        }
        #expect(error.text.contains("argument 2 is TEXT that is not valid UTF-8"))
        #expect(calls == 0)
        // The same bytes as a BLOB reach the function as they are.
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(1, x'ff61')") == .blob(Data([0xff, 0x61])))
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT echo(1, CAST(x'610062' AS TEXT))") == .text("a\0b"))
    }
}
