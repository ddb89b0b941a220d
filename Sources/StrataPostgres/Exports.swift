// `import StrataPostgres` is the one import a PostgreSQL user writes: the models, requests and migrations it shares
// with SQLite live in StrataCore (not in Strata, which links SQLite) and come with it.
@_exported public import StrataCore
