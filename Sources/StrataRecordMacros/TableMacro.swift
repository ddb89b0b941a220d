import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Table("name")`: the `Model` and `GeneratedRecord` conformances of a struct, read from its stored properties
/// the way Swift synthesizes `Codable` from them.
struct TableMacro: ExtensionMacro {
    static func expansion(
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
        let record = try RecordShape(structDecl, attribute: node)
        let access = accessModifier(of: structDecl)
        let typeName = structDecl.name.text
        // The protocols the struct does not conform to yet, named with their module.
        let missing = protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" }
        let conformances = ["Model", "GeneratedRecord"].filter(missing.contains).map { "Strata." + $0 }
        let inheritance = conformances.isEmpty ? "" : ": " + conformances.joined(separator: ", ")

        var members: [String] = []
        if let tableName = record.tableName {
            members.append("\(access)static var tableName: String { \(tableName) }")
        }
        let keys = record.properties.map { stringLiteral($0.key) }.joined(separator: ", ")
        members.append("\(access)static var recordKeys: [String] { [\(keys)] }")

        // Every column is read into a local first and the properties are set after the last read: an assignment
        // between two reads that may throw makes the compiler build the value aside and copy it out.
        let decoded = record.properties.enumerated().filter { $0.element.isDecoded }
        let reads = decoded.map { position, property in
            "let value\(position) = try row.decode(\(property.type).self, \(position))"
        }
        let assignments = decoded.map { position, property in "self.\(property.name) = value\(position)" }
        members.append(
            """
            \(access)init(row: Strata.RecordRow) throws {
            \((reads + assignments).map { "    " + $0 }.joined(separator: "\n"))
            }
            """)
        let writes = record.properties.enumerated().map { position, property in
            "try parameters.encode(self.\(property.name), \(position))"
        }
        members.append(
            """
            \(access)func encode(to parameters: Strata.RecordParameters) throws {
            \(writes.map { "    " + $0 }.joined(separator: "\n"))
            }
            """)
        // The type's full name: a nested struct's bare name is not in scope in the extension.
        let recordType = type.trimmedDescription + record.genericArguments
        let columns = record.properties.filter(\.hasColumn).map { property in
            "    \(access)let \(property.name) = Strata.TypedColumn<\(recordType), \(property.type)>"
                + "(key: \(stringLiteral(property.key)))"
        }
        members.append(
            """
            /// The typed columns of \(typeName), one per coded property that is not private.
            \(access)struct Columns: Sendable {
            \(columns.joined(separator: "\n"))
                \(access)init() {}
            }
            """)
        members.append(
            """
            /// The typed columns of \(typeName), such as `\(typeName).columns.\(record.properties.first?.name ?? "id")`.
            \(access)static var columns: Columns { Columns() }
            """)

        let source: DeclSyntax = """
            extension \(type.trimmed)\(raw: inheritance) {
            \(raw: members.joined(separator: "\n\n"))
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

/// What `@Table` reads from a struct: its table name and its coded properties, in declaration order.
struct RecordShape {
    struct Property {
        /// The property's name, as written (backticks kept).
        var name: String
        /// The coding key: the property's name, or its `CodingKeys` case's raw value.
        var key: String
        /// The declared type, with `T!` written `T?`.
        var type: String
        /// False for a `let` with an initial value, which synthesized `Codable` encodes but never decodes.
        var isDecoded: Bool
        /// False for a private or fileprivate property, whose type may be private too: it has no typed column.
        var hasColumn: Bool
    }

    /// The table name expression (a string literal), nil when the struct declares `tableName` itself.
    var tableName: String?
    var properties: [Property] = []
    /// `<T, U>` for a generic struct, empty otherwise.
    var genericArguments = ""

    init(_ structDecl: StructDeclSyntax, attribute: AttributeSyntax) throws {
        var diagnostics: [Diagnostic] = []
        let typeName = structDecl.name.text
        let members = structDecl.memberBlock.members.map(\.decl)

        // The table name: the attribute's string literal, or a `tableName` the struct declares.
        let declaredStatics = Self.staticNames(in: members)
        let argument = attribute.arguments?.as(LabeledExprListSyntax.self)?.first?.expression
        if let argument {
            if let literal = argument.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
                literal.segments.first?.is(StringSegmentSyntax.self) == true
            {
                tableName = literal.trimmedDescription
                if declaredStatics["tableName"] != nil {
                    diagnostics.append(
                        Diagnostic(node: attribute, message: TableDiagnostic.tableNameTwice(typeName: typeName)))
                }
                if literal.representedLiteralValue?.isEmpty == true {
                    diagnostics.append(Diagnostic(node: argument, message: TableDiagnostic.emptyTableName))
                }
            } else {
                diagnostics.append(Diagnostic(node: argument, message: TableDiagnostic.tableNameNotLiteral))
            }
        } else if declaredStatics["tableName"] == nil {
            diagnostics.append(
                Diagnostic(node: attribute, message: TableDiagnostic.missingTableName(typeName: typeName)))
        }

        if let parameters = structDecl.genericParameterClause?.parameters {
            genericArguments = "<" + parameters.map(\.name.text).joined(separator: ", ") + ">"
        }

        // Hand-written coding would disagree with the generated code.
        for member in members {
            if let initializer = member.as(InitializerDeclSyntax.self), Self.isDecoderInit(initializer) {
                diagnostics.append(
                    Diagnostic(
                        node: initializer, message: TableDiagnostic.customCoding(typeName: typeName, "init(from:)")))
            }
            if let function = member.as(FunctionDeclSyntax.self), Self.isEncodeFunction(function) {
                diagnostics.append(
                    Diagnostic(node: function, message: TableDiagnostic.customCoding(typeName: typeName, "encode(to:)"))
                )
            }
        }

        let codingKeys = Self.codingKeys(in: members)
        var storedCount = 0
        for member in members {
            guard let variable = member.as(VariableDeclSyntax.self), !Self.isStatic(variable),
                !Self.has(.lazy, variable)
            else { continue }
            let isPrivate = Self.has(.private, variable) || Self.has(.fileprivate, variable)
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let bindings = Array(variable.bindings)
            for (offset, binding) in bindings.enumerated() {
                guard Self.isStored(binding) else { continue }
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                storedCount += 1
                let name = identifier.identifier.text
                let plainName = name.trimmingBackticks
                if variable.attributes.contains(where: { $0.is(AttributeSyntax.self) }) {
                    diagnostics.append(
                        Diagnostic(node: variable, message: TableDiagnostic.propertyWrapper(property: plainName)))
                    continue
                }
                // `var a, b: Int`: the type written on a later binding.
                let annotation =
                    binding.typeAnnotation
                    ?? (binding.initializer == nil
                        ? bindings[(offset + 1)...].first { $0.typeAnnotation != nil }?.typeAnnotation : nil)
                guard let type = annotation?.type else {
                    diagnostics.append(
                        Diagnostic(node: binding, message: TableDiagnostic.missingType(property: plainName)))
                    continue
                }
                if let problem = Self.unstorable(type) {
                    diagnostics.append(
                        Diagnostic(
                            node: type,
                            message: TableDiagnostic.unstorableType(
                                property: plainName, type: type.trimmedDescription, problem: problem)))
                    continue
                }
                let key: String
                if let codingKeys {
                    guard let custom = codingKeys[plainName] else { continue }
                    key = custom
                } else {
                    key = plainName
                }
                properties.append(
                    Property(
                        name: name, key: key, type: Self.optionalSpelling(type),
                        isDecoded: !(isLet && binding.initializer != nil), hasColumn: !isPrivate))
            }
        }
        if storedCount == 0 {
            diagnostics.append(
                Diagnostic(node: attribute, message: TableDiagnostic.noStoredProperties(typeName: typeName)))
        } else if properties.isEmpty && diagnostics.isEmpty {
            diagnostics.append(
                Diagnostic(node: attribute, message: TableDiagnostic.noCodedProperties(typeName: typeName)))
        }
        if let primaryKey = declaredStatics["primaryKey"], let literal = primaryKey,
            !properties.contains(where: { $0.key == literal })
        {
            let keys = properties.map(\.key).joined(separator: ", ")
            diagnostics.append(
                Diagnostic(
                    node: attribute,
                    message: TableDiagnostic.unknownPrimaryKey(typeName: typeName, key: literal, keys: keys)))
        }
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics: diagnostics) }
    }

    // MARK: Reading the declaration

    /// The static properties the struct declares, with their string literal value when they have one.
    private static func staticNames(in members: [DeclSyntax]) -> [String: String?] {
        var names: [String: String?] = [:]
        for member in members {
            guard let variable = member.as(VariableDeclSyntax.self), isStatic(variable) else { continue }
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                let literal =
                    binding.initializer?.value.as(StringLiteralExprSyntax.self)?.representedLiteralValue
                    ?? binding.accessorBlock.flatMap(singleReturnedLiteral)
                names[name.trimmingBackticks] = .some(literal)
            }
        }
        return names
    }

    /// The string literal a `{ "x" }` getter returns.
    private static func singleReturnedLiteral(_ accessors: AccessorBlockSyntax) -> String? {
        guard case .getter(let items) = accessors.accessors, items.count == 1, let item = items.first else {
            return nil
        }
        if let literal = item.item.as(StringLiteralExprSyntax.self) { return literal.representedLiteralValue }
        if let statement = item.item.as(ReturnStmtSyntax.self) {
            return statement.expression?.as(StringLiteralExprSyntax.self)?.representedLiteralValue
        }
        return nil
    }

    /// Whether `variable` has the modifier `keyword` (`lazy` ones are not coded, as in synthesized `Codable`).
    private static func has(_ keyword: Keyword, _ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { $0.name.tokenKind == .keyword(keyword) }
    }

    private static func isStatic(_ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// Whether a binding stores a value: no accessors, or only observers.
    private static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let accessors = binding.accessorBlock else { return true }
        switch accessors.accessors {
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy {
                [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
            }
        }
    }

    /// The keys of a nested `CodingKeys` enum by case name, nil when the struct has none.
    private static func codingKeys(in members: [DeclSyntax]) -> [String: String]? {
        for member in members {
            guard let enumDecl = member.as(EnumDeclSyntax.self), enumDecl.name.text == "CodingKeys" else { continue }
            var keys: [String: String] = [:]
            for caseMember in enumDecl.memberBlock.members {
                guard let caseDecl = caseMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let name = element.name.text.trimmingBackticks
                    let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.representedLiteralValue
                    keys[name] = raw ?? name
                }
            }
            return keys
        }
        return nil
    }

    private static func isDecoderInit(_ initializer: InitializerDeclSyntax) -> Bool {
        let parameters = initializer.signature.parameterClause.parameters
        return parameters.count == 1 && parameters.first?.firstName.text == "from"
    }

    private static func isEncodeFunction(_ function: FunctionDeclSyntax) -> Bool {
        let parameters = function.signature.parameterClause.parameters
        guard function.name.text == "encode", parameters.count == 1, let parameter = parameters.first,
            parameter.firstName.text == "to"
        else { return false }
        let type = parameter.type.trimmedDescription
        return type.hasSuffix("Encoder")
    }

    /// Why a written type cannot be a column, nil when it can (or when only the compiler can tell).
    private static func unstorable(_ type: TypeSyntax) -> String? {
        if type.is(FunctionTypeSyntax.self) { return "a function" }
        if let tuple = type.as(TupleTypeSyntax.self) {
            return tuple.elements.count == 1 ? tuple.elements.first.flatMap { unstorable($0.type) } : "a tuple"
        }
        if type.is(MetatypeTypeSyntax.self) { return "a metatype" }
        if let some = type.as(SomeOrAnyTypeSyntax.self) {
            return some.someOrAnySpecifier.tokenKind == .keyword(.some) ? "an opaque type" : "an existential"
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unstorable(attributed.baseType) }
        if let optional = type.as(OptionalTypeSyntax.self) { return unstorable(optional.wrappedType) }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unstorable(optional.wrappedType)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), ["Any", "AnyObject"].contains(identifier.name.text) {
            return "an existential"
        }
        return nil
    }

    /// The type as written, with an implicitly unwrapped optional spelled as the optional it is.
    private static func optionalSpelling(_ type: TypeSyntax) -> String {
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return unwrapped.wrappedType.trimmedDescription + "?"
        }
        return type.trimmedDescription
    }
}

extension String {
    fileprivate var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}

/// The compile errors of `@Table`, each saying what to do.
enum TableDiagnostic: DiagnosticMessage {
    case notAStruct(kind: String)
    case missingTableName(typeName: String)
    case tableNameNotLiteral
    case emptyTableName
    case tableNameTwice(typeName: String)
    case customCoding(typeName: String, String)
    case propertyWrapper(property: String)
    case missingType(property: String)
    case unstorableType(property: String, type: String, problem: String)
    case noStoredProperties(typeName: String)
    case noCodedProperties(typeName: String)
    case unknownPrimaryKey(typeName: String, key: String, keys: String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            "@Table applies to a struct, and this is \(kind); declare the record as a struct, or conform the type to "
                + "Model without @Table"
        case .missingTableName(let typeName):
            "@Table needs the name of \(typeName)'s table: write @Table(\"name\"), or declare static let tableName"
        case .tableNameNotLiteral:
            "the table name of @Table must be a string literal, such as @Table(\"note\")"
        case .emptyTableName:
            "the table name of @Table cannot be empty"
        case .tableNameTwice(let typeName):
            "\(typeName) declares tableName and @Table names the table too; keep one of them"
        case .customCoding(let typeName, let member):
            "\(typeName) declares its own \(member), which @Table's generated code would not follow; remove "
                + "\(member), or conform \(typeName) to Model without @Table"
        case .propertyWrapper(let property):
            "'\(property)' has an attribute or property wrapper, which @Table does not read or write; remove it, or "
                + "conform the type to Model without @Table"
        case .missingType(let property):
            "@Table needs the type of '\(property)' written out, as in 'var \(property): Int = 0'"
        case .unstorableType(let property, let type, let problem):
            "'\(property)' has type '\(type)', \(problem), which is neither storable nor Codable; give it a Codable "
                + "type (nested values are stored as JSON), or make it a computed property"
        case .noStoredProperties(let typeName):
            "\(typeName) has no stored properties, so @Table has no columns to read or write; add stored "
                + "properties, one per column"
        case .noCodedProperties(let typeName):
            "none of \(typeName)'s stored properties has a case in CodingKeys, so @Table has no columns to read or "
                + "write; add the columns' cases to CodingKeys"
        case .unknownPrimaryKey(let typeName, let key, let keys):
            "\(typeName).primaryKey is \"\(key)\", which is not one of its coding keys (\(keys)); name the key of "
                + "the primary key property"
        }
    }

    var diagnosticID: MessageID {
        let name: String =
            switch self {
            case .notAStruct: "notAStruct"
            case .missingTableName: "missingTableName"
            case .tableNameNotLiteral: "tableNameNotLiteral"
            case .emptyTableName: "emptyTableName"
            case .tableNameTwice: "tableNameTwice"
            case .customCoding: "customCoding"
            case .propertyWrapper: "propertyWrapper"
            case .missingType: "missingType"
            case .unstorableType: "unstorableType"
            case .noStoredProperties: "noStoredProperties"
            case .noCodedProperties: "noCodedProperties"
            case .unknownPrimaryKey: "unknownPrimaryKey"
            }
        return MessageID(domain: "StrataRecord", id: name)
    }

    var severity: DiagnosticSeverity { .error }
}

@main
struct StrataRecordMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [TableMacro.self]
}
