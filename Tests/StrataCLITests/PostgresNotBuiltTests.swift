import Foundation
import Testing

#if !PostgreSQL
    /// Runs the `strata` SwiftPM built with the tests, which has no PostgreSQL trait in a plain `swift test`; skipped when
    /// a trait-built binary is named (the `.ci/run` step that rebuilds `strata` with the trait).
    @Suite(
        "strata without the PostgreSQL trait",
        .enabled(if: PostgresCLI.binary == nil, "STRATA_POSTGRES_BINARY is set: strata may have the PostgreSQL trait"))
    struct PostgresNotBuiltTests {
        @Test("a postgres:// database: one line telling how to build with the trait, exit status 1")
        func postgresURLWithoutTrait() throws {
            let workspace = try CLIWorkspace()
            try workspace.copyExampleMigrations()
            for arguments in [["migrate"], ["status"], ["query", "SELECT 1"]] {
                let result = try CLIResult.run(
                    arguments + ["--database", "postgres://strata@127.0.0.1:5432/strata"], in: workspace.url)
                #expect(result.status == 1)
                #expect(result.stdout.isEmpty)
                #expect(
                    result.stderr
                        == "error: this strata was built without PostgreSQL support: build it with the PostgreSQL "
                        + "trait (swift build --traits PostgreSQL, or swift run --traits PostgreSQL strata ...) to use "
                        + "a postgres:// URL\n")
            }
        }
    }
#endif
