/// How the columns of a row of a join written by hand (`SELECT note.*, tag.* FROM note JOIN tag ...`) split between
/// its models, by the table each column is read from. The one rule of every backend; each backend says where a
/// column comes from in its own terms (SQLite a table name, PostgreSQL a table's object id).
///
/// A run of columns of one table is one model's, and a column name that repeats within a run starts the next run,
/// so that a self-join (`SELECT a.*, b.* FROM note a JOIN note b ...`) splits between its two aliases. Each model
/// takes the first run of its own table that no earlier model took.
package struct JoinedColumnSplit<Table: Equatable> {
    /// The row's column names.
    let names: [String]
    /// The runs of columns of one table, in order: the table (nil for expressions) and the columns.
    private var runs: [(table: Table?, columns: Range<Int>)] = []

    /// The split of a row whose columns are `names`, read from `origins` (nil for an expression).
    package init(names: [String], origins: [Table?]) {
        self.names = names
        var seen: Set<String> = []
        for (index, (name, table)) in zip(names, origins).enumerated() {
            let name = name.lowercased()
            if let last = runs.last, last.table == table, !seen.contains(name) {
                runs[runs.count - 1].columns = last.columns.lowerBound..<index + 1
            } else {
                runs.append((table, index..<index + 1))
                seen = []
            }
            seen.insert(name)
        }
    }

    /// The columns of each model, whose tables are `tables` (nil for a table the database does not have).
    ///
    /// - Parameters:
    ///   - tableNames: The models' table names, for the error.
    ///   - sql: The statement, for the error.
    ///   - columnsOfTable: For a model that no run is read from, the lowercased column names of its table, or nil:
    ///     SQLite reports the columns of a view as its base table's, so a model on a view takes the first run that no
    ///     model took whose names are the view's columns.
    /// - Throws: ``DatabaseError/Code/unknownColumn`` naming the table of a model that has no columns in the row.
    package func columns(
        of tables: [Table?], tableNames: [String], sql: String?,
        columnsOfTable: (Int) throws -> [String]? = { _ in nil }
    ) throws -> [Range<Int>] {
        var taken = Set<Int>()
        var found: [Range<Int>?] = tables.map { table in
            guard let table, let run = runs.indices.first(where: { !taken.contains($0) && runs[$0].table == table })
            else { return nil }
            taken.insert(run)
            return runs[run].columns
        }
        for position in found.indices where found[position] == nil {
            guard let columns = try columnsOfTable(position), !columns.isEmpty else { continue }
            let run = runs.indices.first { run in
                !taken.contains(run) && runs[run].columns.map { names[$0].lowercased() } == columns
            }
            if let run {
                taken.insert(run)
                found[position] = runs[run].columns
            }
        }
        return try zip(tableNames, found).map { table, columns in
            guard let columns else {
                throw DatabaseError(
                    code: .unknownColumn,
                    message: "the joined row has no columns of table \"\(table)\"; select them, as in "
                        + "SELECT \(tableNames.map { "\($0).*" }.joined(separator: ", "))",
                    sql: sql)
            }
            return columns
        }
    }
}
