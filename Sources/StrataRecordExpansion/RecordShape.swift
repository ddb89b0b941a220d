import SwiftDiagnostics
import SwiftSyntax

/// What `@Table` reads from a struct: its table name, and the coded properties of each combination of its `#if`
/// clauses, as Swift synthesizes `Codable` from them.
struct RecordDeclaration {
    var typeName: String
    /// The table name expression (a string literal), nil when the struct declares `tableName` itself.
    var tableName: String?
    /// `<T, U>` for a generic struct, empty otherwise.
    var genericArguments = ""
    /// The coded properties of each combination of `#if` clauses, under the same clauses.
    var configuration: ShapeConfiguration
    /// Warnings, which do not stop the expansion.
    var warnings: [Diagnostic] = []

    init(_ structDecl: StructDeclSyntax, attribute: AttributeSyntax) throws {
        var diagnostics = Diagnostics()
        let typeName = structDecl.name.text
        self.typeName = typeName
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
                    diagnostics.append(attribute, .tableNameTwice(typeName: typeName))
                }
                if literal.representedLiteralValue?.isEmpty == true {
                    diagnostics.append(argument, .emptyTableName)
                }
            } else {
                diagnostics.append(argument, .tableNameNotLiteral)
            }
        } else if declaredStatics["tableName"] == nil {
            diagnostics.append(attribute, .missingTableName(typeName: typeName))
        }

        if let parameters = structDecl.genericParameterClause?.parameters {
            genericArguments = "<" + parameters.map(\.name.text).joined(separator: ", ") + ">"
        }

        // Hand-written coding in the body, in any #if clause, would disagree with the generated code (one in an
        // extension is a redeclaration of the generated one).
        Self.findCustomCoding(in: members, typeName: typeName, into: &diagnostics)

        let combinations = RecordConfiguration(members: members)
        if combinations.count > TableLimits.maximumConfigurations {
            diagnostics.append(
                attribute, .tooManyConfigurations(typeName: typeName, count: combinations.count))
            throw DiagnosticsError(diagnostics: diagnostics.all)
        }
        let primaryKey = declaredStatics["primaryKey"] ?? nil
        let genericParameters = Set(structDecl.genericParameterClause?.parameters.map(\.name.text) ?? [])
        var configuration = ShapeConfiguration(combinations) { members, codingKeys in
            RecordShape(
                members: members, codingKeys: codingKeys, typeName: typeName, attribute: attribute,
                primaryKey: primaryKey, genericParameters: genericParameters)
        }
        // What every combination finds is reported where it is; what only some find (a property in one #if clause
        // without its case in another, which may never compile together) is an #error under their conditions.
        let shapes = configuration.shapes
        var errorCounts: [String: Int] = [:]
        var warningCounts: [String: Int] = [:]
        for shape in shapes {
            for identity in shape.diagnostics.identities { errorCounts[identity, default: 0] += 1 }
            for identity in shape.warnings.identities { warningCounts[identity, default: 0] += 1 }
        }
        var warnings = Diagnostics()
        configuration = configuration.map { shape in
            var shape = shape
            for (identity, diagnostic) in shape.diagnostics.entries {
                if errorCounts[identity] == shapes.count {
                    diagnostics.append(diagnostic)
                } else {
                    shape.conditionalErrors.append(diagnostic.message)
                }
            }
            for (identity, diagnostic) in shape.warnings.entries {
                if warningCounts[identity] == shapes.count {
                    warnings.append(diagnostic)
                } else {
                    shape.conditionalWarnings.append(diagnostic.message)
                }
            }
            return shape
        }
        self.configuration = configuration
        self.warnings = warnings.all
        if !diagnostics.all.isEmpty { throw DiagnosticsError(diagnostics: diagnostics.all) }
    }

    /// Diagnoses an `init(from:)` or `encode(to:)` among `members`, looking into every `#if` clause.
    private static func findCustomCoding(
        in members: [DeclSyntax], typeName: String, into diagnostics: inout Diagnostics
    ) {
        for member in members {
            if let initializer = member.as(InitializerDeclSyntax.self), isDecoderInit(initializer) {
                diagnostics.append(initializer, .customCoding(typeName: typeName, "init(from:)"))
            }
            if let function = member.as(FunctionDeclSyntax.self), isEncodeFunction(function) {
                diagnostics.append(function, .customCoding(typeName: typeName, "encode(to:)"))
            }
            if let block = member.as(IfConfigDeclSyntax.self) {
                for clause in block.clauses {
                    guard case .decls(let items) = clause.elements else { continue }
                    findCustomCoding(in: items.map(\.decl), typeName: typeName, into: &diagnostics)
                }
            }
        }
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

    /// The static properties the struct declares, in any `#if` clause, with their string literal value when they
    /// have one.
    private static func staticNames(in members: [DeclSyntax]) -> [String: String?] {
        var names: [String: String?] = [:]
        for member in members {
            if let block = member.as(IfConfigDeclSyntax.self) {
                for clause in block.clauses {
                    guard case .decls(let items) = clause.elements else { continue }
                    names.merge(staticNames(in: items.map(\.decl))) { first, _ in first }
                }
            }
            guard let variable = member.as(VariableDeclSyntax.self), variable.isStatic else { continue }
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
}

/// ``RecordConfiguration`` with the shape of each combination read.
indirect enum ShapeConfiguration {
    case shape(RecordShape)
    case clauses([(condition: String?, configuration: ShapeConfiguration)])

    init(
        _ configuration: RecordConfiguration,
        _ read: ([DeclSyntax], [DeclSyntax]?) -> RecordShape
    ) {
        switch configuration {
        case .members(let members, let codingKeys):
            self = .shape(read(members, codingKeys))
        case .clauses(let clauses):
            self = .clauses(clauses.map { ($0.condition, ShapeConfiguration($0.configuration, read)) })
        }
    }

    /// The shape of every combination.
    var shapes: [RecordShape] {
        switch self {
        case .shape(let shape): [shape]
        case .clauses(let clauses): clauses.flatMap(\.configuration.shapes)
        }
    }

    func map(_ transform: (RecordShape) -> RecordShape) -> ShapeConfiguration {
        switch self {
        case .shape(let shape): .shape(transform(shape))
        case .clauses(let clauses): .clauses(clauses.map { ($0.condition, $0.configuration.map(transform)) })
        }
    }
}

/// The coded properties of one combination of `#if` clauses, in the order synthesized `Codable` codes them: the
/// order of the cases of `CodingKeys`, or of the declarations when the struct declares no `CodingKeys`.
struct RecordShape {
    struct Property {
        /// The property's name, as written (backticks kept).
        var name: String
        /// The coding key: the property's name, or its `CodingKeys` case's raw value.
        var key: String
        /// The declared type, with `T!` written `T?`.
        var type: String
        /// Whether the type is spelled optional, spelled as a type that is never optional, or may be either.
        var optionality: Optionality
        /// False for a `let` with an initial value, which synthesized `Codable` encodes but never decodes.
        var isDecoded: Bool
        /// False for a private or fileprivate property, whose type may be private too: it has no typed column.
        var hasColumn: Bool
        /// Whether the property is declared `public` (or `open`), `package`, or neither: its typed column is no
        /// more visible than the property, whose type may be internal.
        var isPublic = false
        var isPackage = false
    }

    var properties: [Property] = []
    /// Whether the struct declares `CodingKeys` in this combination (else `@Table` declares the synthesized ones).
    var declaresCodingKeys = false
    /// What is wrong with this combination.
    var diagnostics = Diagnostics()
    var warnings = Diagnostics()
    /// The messages of errors and warnings only some combinations have, for an `#error` or `#warning` under their
    /// conditions.
    var conditionalErrors: [String] = []
    var conditionalWarnings: [String] = []

    init(
        members: [DeclSyntax], codingKeys codingKeyMembers: [DeclSyntax]?, typeName: String, attribute: AttributeSyntax,
        primaryKey: String?, genericParameters: Set<String>
    ) {
        // The cases of CodingKeys, in order, by name: the raw value, nil when the raw value is not a string.
        var codingKeys: [(name: String, node: EnumCaseElementSyntax, raw: String)]?
        var keysAreLiteral = true
        for member in members {
            guard member.declaredName == "CodingKeys" else { continue }
            declaresCodingKeys = true
            guard let codingKeyMembers else {
                let kind =
                    if member.is(TypeAliasDeclSyntax.self) {
                        "a typealias"
                    } else if member.is(StructDeclSyntax.self) {
                        "a struct"
                    } else if member.is(ActorDeclSyntax.self) {
                        "an actor"
                    } else {
                        "a class"
                    }
                diagnostics.append(member, .codingKeysNotAnEnum(typeName: typeName, kind: kind))
                return
            }
            var cases: [(String, EnumCaseElementSyntax, String)] = []
            for keyMember in codingKeyMembers {
                guard let caseDecl = keyMember.as(EnumCaseDeclSyntax.self) else {
                    // A member such as `stringValue` may change the keys: the generated code asks the enum for them.
                    keysAreLiteral = false
                    continue
                }
                for element in caseDecl.elements {
                    let name = element.name.text.trimmingBackticks
                    let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.representedLiteralValue
                    cases.append((name, element, raw ?? name))
                }
            }
            codingKeys = cases
        }

        // The stored properties, in declaration order.
        var stored: [(property: Property, node: Syntax, hasInitialValue: Bool, isLet: Bool)] = []
        var storedCount = 0
        for member in members {
            guard let variable = member.as(VariableDeclSyntax.self), !variable.isStatic, !variable.has(.lazy) else {
                continue
            }
            let isPrivate = variable.has(.private) || variable.has(.fileprivate)
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let bindings = Array(variable.bindings)
            for (offset, binding) in bindings.enumerated() where binding.isStored {
                storedCount += 1
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    diagnostics.append(binding.pattern, .patternBinding(pattern: binding.pattern.trimmedDescription))
                    continue
                }
                let name = identifier.identifier.text
                let plainName = name.trimmingBackticks
                // Any attribute, including one inside `#if`: a property wrapper changes what is coded.
                if !variable.attributes.isEmpty {
                    diagnostics.append(variable, .propertyWrapper(property: plainName))
                    continue
                }
                // `var a, b: Int`: the type written on a later binding.
                let annotation =
                    binding.typeAnnotation
                    ?? (binding.initializer == nil
                        ? bindings[(offset + 1)...].first { $0.typeAnnotation != nil }?.typeAnnotation : nil)
                guard let type = annotation?.type else {
                    diagnostics.append(binding, .missingType(property: plainName))
                    continue
                }
                if let problem = Self.unstorable(type) {
                    diagnostics.append(
                        type,
                        .unstorableType(property: plainName, type: type.trimmedDescription, problem: problem))
                    continue
                }
                let property = Property(
                    name: name, key: plainName, type: Self.optionalSpelling(type),
                    optionality: Optionality(type, genericParameters: genericParameters),
                    isDecoded: !(isLet && binding.initializer != nil),
                    hasColumn: !isPrivate, isPublic: variable.has(.public) || variable.has(.open),
                    isPackage: variable.has(.package))
                stored.append((property, Syntax(binding), binding.initializer != nil, isLet))
            }
        }

        if let codingKeys {
            // Coded in the order of the cases; a property without a case is not coded, and must have a value.
            for codingKey in codingKeys {
                guard
                    var property = stored.first(where: { $0.property.name.trimmingBackticks == codingKey.name })?
                        .property
                else {
                    diagnostics.append(
                        codingKey.node, .codingKeysCaseWithoutProperty(typeName: typeName, name: codingKey.name))
                    continue
                }
                property.key = codingKey.raw
                properties.append(property)
            }
            for entry in stored where !codingKeys.contains(where: { $0.name == entry.property.key }) {
                let mayBeNil = !entry.isLet && entry.property.optionality != .nonOptional
                if !entry.hasInitialValue && !mayBeNil {
                    diagnostics.append(entry.node, .notDecodable(typeName: typeName, property: entry.property.key))
                }
            }
        } else {
            properties = stored.map(\.property)
            for entry in stored where entry.isLet && entry.hasInitialValue {
                warnings.append(entry.node, .letNotDecoded(property: entry.property.key))
            }
        }

        if storedCount == 0 {
            diagnostics.append(attribute, .noStoredProperties(typeName: typeName))
        } else if properties.isEmpty && stored.count == storedCount && (codingKeys?.isEmpty ?? true) {
            diagnostics.append(attribute, .noCodedProperties(typeName: typeName))
        }
        if let primaryKey, keysAreLiteral, !properties.isEmpty, !properties.contains(where: { $0.key == primaryKey }) {
            let keys = properties.map(\.key).joined(separator: ", ")
            diagnostics.append(
                attribute, .unknownPrimaryKey(typeName: typeName, key: primaryKey, keys: keys))
        }
    }

    /// Why a written type cannot be a column, nil when it can (or when only the compiler can tell).
    private static func unstorable(_ type: TypeSyntax) -> String? {
        if type.is(FunctionTypeSyntax.self) { return "a function" }
        if let tuple = type.as(TupleTypeSyntax.self) {
            return tuple.elements.count == 1 ? tuple.elements.first.flatMap { unstorable($0.type) } : "a tuple"
        }
        if type.is(MetatypeTypeSyntax.self) { return "a metatype" }
        if type.is(CompositionTypeSyntax.self) { return "an existential" }
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

/// Whether a written type is an `Optional`, which synthesized `Codable` decodes with `decodeIfPresent` and encodes
/// with `encodeIfPresent`.
enum Optionality: Equatable {
    /// `T?`, `T!`, `Optional<T>`: `wrapped` is `T`.
    case optional(wrapped: String)
    /// A type that is never an `Optional`: an array or dictionary, a standard library or Foundation value type, a
    /// generic parameter.
    case nonOptional
    /// Any other type, which may be a typealias of an `Optional`: the generated code lets the compiler choose.
    case unknown

    /// The names of types that are never optional, unless a program shadows them with a typealias of an optional.
    private static let nonOptionalNames: Set<String> = [
        "Bool", "String", "Character", "Double", "Float", "Float16", "Int", "Int8", "Int16", "Int32", "Int64",
        "Int128", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "UInt128", "Date", "Data", "UUID", "URL", "Decimal",
        "Array", "ContiguousArray", "Dictionary", "Set",
    ]

    /// The optionality of `type`. A generic parameter of the struct is never an `Optional` where the conformance
    /// is declared, though it may be bound to one, so synthesized Codable decodes it with `decode`.
    init(_ type: TypeSyntax, genericParameters: Set<String>) {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil,
            genericParameters.contains(identifier.name.text)
        {
            self = .nonOptional
        } else if let optional = type.as(OptionalTypeSyntax.self) {
            self = .optional(wrapped: optional.wrappedType.trimmedDescription)
        } else if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            self = .optional(wrapped: optional.wrappedType.trimmedDescription)
        } else if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
            let element = tuple.elements.first, element.firstName == nil
        {
            self = Optionality(element.type, genericParameters: genericParameters)
        } else if type.is(ArrayTypeSyntax.self) || type.is(DictionaryTypeSyntax.self) {
            self = .nonOptional
        } else if let identifier = type.as(IdentifierTypeSyntax.self) {
            self = Self.named(identifier.name.text, identifier.genericArgumentClause)
        } else if let member = type.as(MemberTypeSyntax.self),
            ["Swift", "Foundation"].contains(member.baseType.as(IdentifierTypeSyntax.self)?.name.text)
        {
            self = Self.named(member.name.text, member.genericArgumentClause)
        } else {
            self = .unknown
        }
    }

    private static func named(_ name: String, _ arguments: GenericArgumentClauseSyntax?) -> Optionality {
        if name == "Optional", let arguments, arguments.arguments.count == 1, let argument = arguments.arguments.first {
            return .optional(wrapped: argument.argument.trimmedDescription)
        }
        return nonOptionalNames.contains(name) ? .nonOptional : .unknown
    }
}

/// Diagnostics, each once though several combinations of `#if` clauses find it.
struct Diagnostics {
    private(set) var entries: [(identity: String, diagnostic: Diagnostic)] = []

    var all: [Diagnostic] { entries.map(\.diagnostic) }
    var identities: [String] { entries.map(\.identity) }

    mutating func append(_ node: some SyntaxProtocol, _ message: TableDiagnostic) {
        append(Diagnostic(node: node, message: message))
    }

    mutating func append(_ diagnostic: Diagnostic) {
        let identity = "\(diagnostic.node.id)|\(diagnostic.message)"
        guard !entries.contains(where: { $0.identity == identity }) else { return }
        entries.append((identity, diagnostic))
    }
}
