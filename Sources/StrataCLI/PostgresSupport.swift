#if PostgreSQL
    import Strata
    import StrataPostgres

    /// Runs `body` with a pool of one connection to the PostgreSQL server at `url`, running while the body does.
    ///
    /// Only in a `strata` built with the PostgreSQL trait; without it, commands given a postgres:// URL throw
    /// ``CommandError/postgresNotBuilt``.
    func withPostgresPool<Result>(_ url: String, _ body: (PostgresPool) async throws -> Result) async throws -> Result {
        let pool = try PostgresPool(url: url, connections: 1)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            return try await body(pool)
        }
    }
#endif
