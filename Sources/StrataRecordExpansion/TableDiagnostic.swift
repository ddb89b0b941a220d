import SwiftDiagnostics

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
    case codingKeysNotAnEnum(typeName: String, kind: String)
    case codingKeysCaseWithoutProperty(typeName: String, name: String)
    case notDecodable(typeName: String, property: String)
    case patternBinding(pattern: String)
    case tooManyConfigurations(typeName: String, count: Int)
    case letNotDecoded(property: String)

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
        case .codingKeysNotAnEnum(let typeName, let kind):
            "\(typeName).CodingKeys is \(kind), whose keys @Table cannot read; declare 'enum CodingKeys: String, "
                + "CodingKey' with one case per coded property inside \(typeName), or conform \(typeName) to Model "
                + "without @Table"
        case .codingKeysCaseWithoutProperty(let typeName, let name):
            "CodingKeys has case '\(name)', which names no stored property of \(typeName); remove the case, or "
                + "rename it to the property it stands for"
        case .notDecodable(let typeName, let property):
            "'\(property)' has no case in CodingKeys and no initial value, so decoding \(typeName) could not set "
                + "it; give it an initial value, or add its case to CodingKeys"
        case .patternBinding(let pattern):
            "@Table reads stored properties declared one name at a time; declare each name of '\(pattern)' as a "
                + "property of its own"
        case .tooManyConfigurations(let typeName, let count):
            "the #if blocks around \(typeName)'s stored properties and coding keys make \(count) combinations, more "
                + "than @Table generates code for (\(TableLimits.maximumConfigurations)); put the properties of "
                + "each configuration in one #if ... #else block"
        case .letNotDecoded(let property):
            "immutable property '\(property)' will not be decoded because it is declared with an initial value "
                + "which cannot be overwritten; set the initial value in an initializer, declare CodingKeys with a "
                + "'\(property)' case inside the struct to silence this warning, or make the property mutable"
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
            case .codingKeysNotAnEnum: "codingKeysNotAnEnum"
            case .codingKeysCaseWithoutProperty: "codingKeysCaseWithoutProperty"
            case .notDecodable: "notDecodable"
            case .patternBinding: "patternBinding"
            case .tooManyConfigurations: "tooManyConfigurations"
            case .letNotDecoded: "letNotDecoded"
            }
        return MessageID(domain: "StrataRecord", id: name)
    }

    var severity: DiagnosticSeverity {
        switch self {
        case .letNotDecoded: .warning
        default: .error
        }
    }
}

enum TableLimits {
    /// The most combinations of `#if` clauses `@Table` generates code for: one copy of the generated members each.
    static let maximumConfigurations = 32
}
