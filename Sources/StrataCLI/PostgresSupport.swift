#if PostgreSQL
    import Strata
    import StrataPostgres

    /// Runs `body` with a pool of one connection to the PostgreSQL server at `url`, closed when the body returns.
    ///
    /// Only in a `strata` built with the PostgreSQL trait; without it, commands given a postgres:// URL throw
    /// ``CommandError/postgresNotBuilt``.
    func withPostgresPool<Result>(_ url: String, _ body: (PostgresPool) async throws -> Result) async throws -> Result {
        let pool = try PostgresPool(url: url, connections: 1)
        do {
            let result = try await body(pool)
            await pool.close()
            return result
        } catch {
            await pool.close()
            throw error
        }
    }
#endif
