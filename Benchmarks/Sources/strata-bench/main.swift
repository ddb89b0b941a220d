import Foundation

do {
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    try Runner(options: options).run()
} catch {
    FileHandle.standardError.write(Data("strata-bench: \(error)\n".utf8))
    exit(1)
}
