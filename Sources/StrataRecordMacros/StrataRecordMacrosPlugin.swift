import StrataRecordExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that expands `@Table`. The compiler asks it for `StrataRecordMacros.TableMacro`, a type of this
/// module, which hands each expansion to StrataRecordExpansion's: that one is written in a plain library so that the
/// macro's tests link it as they link any other, instead of the package's tests being built for the host as the
/// macro is (every module of the package and its dependencies would then be compiled twice).
@main
struct StrataRecordMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [TableMacro.self]
}

/// `@Table`, as StrataRecord declares it (`#externalMacro(module: "StrataRecordMacros", type: "TableMacro")`).
struct TableMacro: ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try StrataRecordExpansion.TableMacro.expansion(
            of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}
