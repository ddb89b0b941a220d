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
}
