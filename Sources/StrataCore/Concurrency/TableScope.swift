/// The tables a read depends on, or a commit changed, as a backend names them: what lets an observation (`observe`)
/// read again only after the commits that may change its result.
///
/// Each backend names tables its own way, the same on its reads and its commits: SQLite by name in lowercase,
/// StrataPostgres by the table's OID. `.everything` stands for any table: a read whose tables cannot be known, and a
/// commit whose changes cannot be (a schema change, another process's commit to a SQLite file).
public enum TableScope: Sendable, Hashable {
    /// Every table.
    case everything
    /// These tables only; none for a read of no table (`SELECT 1`), which only a commit of `.everything` changes.
    case tables(Set<String>)
}
