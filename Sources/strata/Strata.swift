import ArgumentParser

@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Migrate, inspect and query SQLite databases with Strata."
    )
}
