import ArgumentParser

/// `strata`: migrate, inspect and query SQLite databases with Strata.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Migrate, inspect and query SQLite databases with Strata.",
        discussion: """
            Migrations are files named NNNN_description.sql in the migrations folder (./Migrations by default). \
            Each one runs in its own transaction together with the bump of the database's user_version to NNNN.

            Quick start, in a project with a Migrations folder:
              strata migrate          # create ./strata.sqlite, apply every migration
              strata status           # current version, applied and pending
              strata query "SELECT * FROM note" --format json
              strata new "add tags"   # create Migrations/NNNN_add_tags.sql

            PostgreSQL: a strata built with the PostgreSQL trait (swift build --traits PostgreSQL) takes \
            --database postgres://user:password@host:port/database for migrate, status and query, with \
            migrations from Migrations/postgresql when that folder exists.
            """,
        subcommands: [MigrateCommand.self, StatusCommand.self, QueryCommand.self, NewCommand.self, BackupCommand.self]
    )
}
