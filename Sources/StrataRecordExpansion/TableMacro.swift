import SwiftDiagnostics
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@Table("name")`: the `Model` and `GeneratedRecord` conformances of a struct, read from its stored properties
/// the way Swift synthesizes `Codable` from them, and that `Codable` conformance itself.
///
/// A macro sees only the struct's body, while Swift honours `CodingKeys`, `init(from:)` and `encode(to:)` wherever
/// the struct declares them. So the generated extension declares them too, exactly as Swift would synthesize them:
/// one declared in an extension is then a redeclaration, a compile error, rather than coding that the generated
/// reader and writer silently ignore. Stored properties and coding keys inside `#if` get their code under the same
/// conditions.
public struct TableMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: TableDiagnostic.notAStruct(kind: declarationKind(declaration)))
            ])
        }
        let record = try RecordDeclaration(structDecl, attribute: node)
        for warning in record.warnings { context.diagnose(warning) }
        // The protocols the struct does not conform to yet, named with their module.
        let missing = protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" }
        let conformances = ["Model", "GeneratedRecord"].filter(missing.contains).map { "StrataCore." + $0 }
        let inheritance = conformances.isEmpty ? "" : ": " + conformances.joined(separator: ", ")
        let writer = MemberWriter(
            record: record, access: accessModifier(of: structDecl),
            // The type's full name: a nested struct's bare name is not in scope in the extension.
            recordType: type.trimmedDescription + record.genericArguments)

        let source: DeclSyntax = """
            extension \(type.trimmed)\(raw: inheritance) {
            \(raw: writer.source())
            }
            """
        guard let extensionDecl = source.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    private static func declarationKind(_ declaration: some DeclGroupSyntax) -> String {
        if declaration.is(ClassDeclSyntax.self) { return "a class" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        if declaration.is(ExtensionDeclSyntax.self) { return "an extension" }
        return "not a struct"
    }

    /// `public ` or `package ` when the struct is, so that the conformance's members are visible where it is.
    private static func accessModifier(of structDecl: StructDeclSyntax) -> String {
        for modifier in structDecl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    static func stringLiteral(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\0": escaped += "\\0"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }
}

/// The source of the generated members, once per combination of `#if` clauses.
struct MemberWriter {
    var record: RecordDeclaration
    var access: String
    var recordType: String

    /// The members: `tableName`, then the members of every combination, each under the `#if` clauses that select
    /// it.
    func source() -> String {
        var members: [String] = []
        if let tableName = record.tableName {
            members.append("\(access)static var tableName: String { \(tableName) }")
        }
        members.append(self.members(of: record.configuration))
        return members.joined(separator: "\n\n")
    }

    private func members(of configuration: ShapeConfiguration) -> String {
        switch configuration {
        case .shape(let shape):
            return members(of: shape).joined(separator: "\n\n")
        case .clauses(let clauses):
            var lines: [String] = []
            for (offset, clause) in clauses.enumerated() {
                switch (offset, clause.condition) {
                case (0, let condition): lines.append("#if \(condition ?? "true")")
                case (_, let condition?): lines.append("#elseif \(condition)")
                case (_, nil): lines.append("#else")
                }
                lines.append(members(of: clause.configuration))
            }
            lines.append("#endif")
            return lines.joined(separator: "\n")
        }
    }

    private func members(of shape: RecordShape) -> [String] {
        // A combination with errors has no members, only the errors, which the compiler reports if it compiles it.
        guard shape.conditionalErrors.isEmpty else {
            return shape.conditionalErrors.map { "#error(\(TableMacro.stringLiteral($0)))" }
        }
        let typeName = record.typeName
        let properties = shape.properties
        var members = shape.conditionalWarnings.map { "#warning(\(TableMacro.stringLiteral($0)))" }
        let keys = properties.map { key(of: $0, in: shape) }.joined(separator: ", ")
        members.append("\(access)static var recordKeys: [String] { [\(keys)] }")

        // Every column is read into a local first and the properties are set after the last read: an assignment
        // between two reads that may throw makes the compiler build the value aside and copy it out.
        let decoded = properties.enumerated().filter { $0.element.isDecoded }
        let reads = decoded.map { position, property in
            "let value\(position) = try row.decode(\(property.type).self, \(position))"
        }
        let assignments = decoded.map { position, property in "self.\(property.name) = value\(position)" }
        members.append(
            """
            \(access)init(row: some StrataCore.RecordRow) throws {
            \(indented(reads + assignments))
            }
            """)
        let writes = properties.enumerated().map { position, property in
            "try parameters.encode(self.\(property.name), \(position))"
        }
        members.append(
            """
            \(access)func encode(to parameters: some StrataCore.RecordParameters) throws {
            \(indented(writes))
            }
            """)

        members += codableMembers(of: shape)

        let columns = properties.filter(\.hasColumn).map { property in
            "\(columnAccess(of: property))let \(property.name) = StrataCore.TypedColumn<\(recordType), \(property.type)>"
                + "(key: \(key(of: property, in: shape)))"
        }
        members.append(
            """
            /// The typed columns of \(typeName), one per coded property that is not private.
            \(access)struct Columns: Sendable {
            \(indented(columns))
                \(access)init() {}
            }
            """)
        members.append(
            """
            /// The typed columns of \(typeName), such as `\(typeName).columns.\(properties.first?.name ?? "id")`.
            \(access)static var columns: Columns { Columns() }
            """)
        return members
    }

    /// The access of `property`'s typed column: the struct's, or the property's when that is lower (an internal
    /// property of a public struct may have an internal type).
    private func columnAccess(of property: RecordShape.Property) -> String {
        switch access {
        case "public ": property.isPublic ? access : property.isPackage ? "package " : ""
        case "package ": property.isPublic || property.isPackage ? access : ""
        default: access
        }
    }

    /// The coding key of `property`: its name when `@Table` declares `CodingKeys` (private to the struct, so that
    /// nothing can give them another `stringValue`), else what the struct's `CodingKeys` say, however they compute
    /// their `stringValue`.
    private func key(of property: RecordShape.Property, in shape: RecordShape) -> String {
        shape.declaresCodingKeys
            ? "CodingKeys.\(property.name).stringValue" : TableMacro.stringLiteral(property.key)
    }

    /// `CodingKeys` (when the struct declares none), `init(from:)` and `encode(to:)`, exactly as Swift synthesizes
    /// them: the same keys, the same calls in the same order (`decodeIfPresent` and `encodeIfPresent` for an
    /// optional, no decoding of a `let` with an initial value).
    private func codableMembers(of shape: RecordShape) -> [String] {
        let typeName = record.typeName
        let properties = shape.properties
        // The last two lines are the ones the compiler shows above a redeclaration error in the expansion.
        let why = """
            /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
            /// Declare CodingKeys inside \(typeName), or use a Model without @Table for custom coding.
            """
        var members: [String] = []
        if !shape.declaresCodingKeys {
            members.append(
                """
                /// The coding keys of \(typeName)'s stored properties, as Swift synthesizes them, which @Table's reader
                /// and writer follow.
                ///
                \(why)
                private enum CodingKeys: CodingKey {
                    case \(properties.map(\.name).joined(separator: ", "))
                }
                """)
        }

        let decoded = properties.filter(\.isDecoded)
        let container =
            decoded.isEmpty
            ? "_ = try decoder.container(keyedBy: CodingKeys.self)"
            : "let container = try decoder.container(keyedBy: CodingKeys.self)"
        let decodes = decoded.map { property -> String in
            let key = ".\(property.name)"
            let value: String =
                switch property.optionality {
                case .optional(let wrapped):
                    "container.decodeIfPresent(\(wrapped).self, forKey: \(key))"
                case .nonOptional:
                    "container.decode(\(property.type).self, forKey: \(key))"
                case .unknown:
                    """
                    StrataCore.TableCoding.decode(
                        \(property.type).self, { try container.decode(\(property.type).self, forKey: \(key)) },
                        ifPresent: {
                            try container.decodeIfPresent(StrataCore.TableCoding.wrapped(\(property.type).self), forKey: \(key))
                        })
                    """
                }
            return "self.\(property.name) = try \(value)"
        }
        members.append(
            """
            /// Decodes \(typeName) exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
            /// a row.
            ///
            \(why)
            \(access)init(from decoder: any Decoder) throws {
            \(indented([container] + decodes))
            }
            """)

        let encodes = properties.map { property -> String in
            let key = ".\(property.name)"
            let value = "self.\(property.name)"
            switch property.optionality {
            case .optional:
                return "try container.encodeIfPresent(\(value), forKey: \(key))"
            case .nonOptional:
                return "try container.encode(\(value), forKey: \(key))"
            case .unknown:
                return """
                    try StrataCore.TableCoding.encode(
                        \(value), { try container.encode(\(value), forKey: \(key)) },
                        ifPresent: { try container.encodeIfPresent(\(value), forKey: \(key)) })
                    """
            }
        }
        members.append(
            """
            /// Encodes \(typeName) exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
            /// parameters.
            ///
            \(why)
            \(access)func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
            \(indented(encodes))
            }
            """)
        return members
    }

    /// `lines` indented by one level, each line of a multi-line entry too.
    private func indented(_ lines: [String]) -> String {
        lines.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }.map { "    " + $0 }
            .joined(separator: "\n")
    }
}
