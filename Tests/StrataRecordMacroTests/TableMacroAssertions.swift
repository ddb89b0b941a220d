import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataRecordExpansion

/// Expands `@Table` in `source` and checks the expanded source and the diagnostics, recording each mismatch as an
/// issue at the place it concerns: the calling test, or the `DiagnosticSpec` that does not match.
///
/// `conformances` are the protocols the compiler passes to the macro: those the struct does not declare yet.
func assertTableExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    conformances: [TypeSyntax] = ["Model", "GeneratedRecord"],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: ["Table": MacroSpec(type: TableMacro.self, conformances: conformances)],
        indentationWidth: .spaces(4),
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID,
                    filePath: failure.location.filePath,
                    line: failure.location.line,
                    column: failure.location.column
                )
            )
        },
        fileID: fileID,
        filePath: filePath,
        line: line,
        column: column
    )
}
