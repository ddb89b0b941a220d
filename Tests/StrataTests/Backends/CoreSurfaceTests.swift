import Foundation
import Testing

/// What the shared core offers every backend, checked by compiling against it alone: `swiftc -typecheck` on files
/// that import StrataRecord, which re-exports StrataCore and nothing of SQLite, as StrataPostgres re-exports it.
///
/// SQLite's storage strategies and its request text belong to the SQLite backend. Declared on the shared coders and
/// requests, they compiled on PostgreSQL too: `decoder.dateStrategy = .integer` was silently ignored there, and
/// `request.sql` showed SQLite's text, not the one PostgreSQL runs.
@Suite("The shared core: no SQLite settings or spelling")
struct CoreSurfaceTests {
    @Test("Storage strategies, request.sql and SQLiteDialect do not compile without import Strata")
    func sqliteOnlyNamesAreRefused() throws {
        let refused = """
            func configure() {
                var decoder = RowDecoder()
                decoder.dateStrategy = .integer
                var encoder = StatementEncoder()
                encoder.uuidStrategy = .text
            }

            func placeholder() -> String { SQLiteDialect().placeholder(1) }
            """
        // `sql` alone names `sql(for:)` here, which the compiler then reports as that method's misuse.
        let requestText = """
            func text<Record: Model>(_ request: QueryRequest<Record>) -> String {
                let text: String = request.sql
                return text
            }
            """
        let accepted = """
            func text<Record: Model>(_ request: QueryRequest<Record>, in dialect: some SQLDialect) -> String {
                var decoder = RowDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return request.sql(for: dialect)
            }
            """
        let diagnostics = try TypeCheck.run([
            ("Refused.swift", refused), ("RequestText.swift", requestText), ("Accepted.swift", accepted),
        ])

        let errors = diagnostics.filter { $0.file == "Refused.swift" && $0.kind == "error" }.map(\.message)
        #expect(errors.contains("value of type 'RowDecoder' has no member 'dateStrategy'"), "\(errors)")
        #expect(errors.contains("value of type 'StatementEncoder' has no member 'uuidStrategy'"), "\(errors)")
        #expect(errors.contains("cannot find 'SQLiteDialect' in scope"), "\(errors)")
        let requestTextErrors = diagnostics.filter { $0.file == "RequestText.swift" && $0.kind == "error" }
        // The file's fifth line, after the imports TypeCheck writes and the function's first line.
        #expect(!requestTextErrors.isEmpty && requestTextErrors.allSatisfy { $0.line == 5 }, "\(requestTextErrors)")
        let acceptedDiagnostics = diagnostics.filter { $0.file == "Accepted.swift" }
        #expect(acceptedDiagnostics.isEmpty, "\(acceptedDiagnostics)")
    }
}
