import Strata

#if PostgreSQL
    import StrataPostgres

    /// The writer of a PostgreSQL URL: a pool of one connection, which the caller closes.
    ///
    /// Only in a `strata` built with the PostgreSQL trait; without it, commands given a postgres:// URL throw
    /// ``CommandError/postgresNotBuilt``. The one place the tool names PostgreSQL's types.
    func openPostgresWriter(_ url: String) throws -> any DatabaseWriter {
        try PostgresPool(url: url, connections: 1)
    }

    extension PostgresSession: QueryableSession {
        func queryResult(_ sql: String) async throws -> QueryResult {
            let result = try await rowsOfQuery(sql)
            return QueryResult(
                columns: result.columns, rows: result.rows, changes: result.changes, returnsRows: result.returnsRows)
        }
    }
#else
    /// Throws ``CommandError/postgresNotBuilt``: this `strata` was built without the PostgreSQL trait.
    func openPostgresWriter(_ url: String) throws -> any DatabaseWriter {
        throw CommandError.postgresNotBuilt
    }
#endif
