import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Table diagnostics")
struct TableMacroDiagnosticsTests {
    @Test(
        "@Table rejects a type that is not a struct",
        arguments: [("enum", "an enum"), ("class", "a class"), ("actor", "an actor")]
    )
    func notAStruct(keyword: String, kind: String) {
        assertTableExpansion(
            """
            @Table("note")
            \(keyword) Note {
                var id: Int64?
            }
            """,
            expandedSource: """
                \(keyword) Note {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Table applies to a struct, and this is \(kind); declare the record as a struct, or "
                        + "conform the type to Model without @Table",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test(
        "@Table rejects a stored property whose type cannot be a column",
        arguments: [
            ("() -> Void", "a function"),
            ("(Int, Int)", "a tuple"),
            ("any Codable", "an existential"),
            ("Any", "an existential"),
            ("Int.Type", "a metatype"),
            ("some Codable", "an opaque type"),
            ("Codable & Sendable", "an existential"),
        ]
    )
    func unstorableType(type: String, problem: String) {
        assertTableExpansion(
            """
            @Table("record")
            struct Record: Codable {
                var id: Int64?
                var value: \(type)
            }
            """,
            expandedSource: """
                struct Record: Codable {
                    var id: Int64?
                    var value: \(type)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'value' has type '\(type)', \(problem), which is neither storable nor Codable; give it "
                        + "a Codable type (nested values are stored as JSON), or make it a computed property",
                    line: 4,
                    column: 16
                )
            ]
        )
    }

    @Test("@Table needs the type of each stored property")
    func missingType() {
        assertTableExpansion(
            """
            @Table("counter")
            struct Counter: Codable {
                var id: Int64?
                var x = 0
            }
            """,
            expandedSource: """
                struct Counter: Codable {
                    var id: Int64?
                    var x = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Table needs the type of 'x' written out, as in 'var x: Int = 0'",
                    line: 4,
                    column: 9
                )
            ]
        )
    }

    @Test(
        "@Table rejects a property wrapper or an attribute on a stored property",
        arguments: ["@Clamped", "@available(*, deprecated)"]
    )
    func propertyWrapper(attribute: String) {
        assertTableExpansion(
            """
            @Table("counter")
            struct Counter: Codable {
                var id: Int64?
                \(attribute) var count: Int
            }
            """,
            expandedSource: """
                struct Counter: Codable {
                    var id: Int64?
                    \(attribute) var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'count' has an attribute or property wrapper, which @Table does not read or write; "
                        + "remove it, or conform the type to Model without @Table",
                    line: 4,
                    column: 5
                )
            ]
        )
    }

    @Test("@Table needs stored properties")
    func onlyComputedProperties() {
        assertTableExpansion(
            """
            @Table("constant")
            struct Constant: Codable {
                static let shared = Constant()
                var value: Int { 42 }
            }
            """,
            expandedSource: """
                struct Constant: Codable {
                    static let shared = Constant()
                    var value: Int { 42 }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Constant has no stored properties, so @Table has no columns to read or write; add "
                        + "stored properties, one per column",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("@Table rejects a custom init(from:)")
    func customDecoding() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                init(from decoder: any Decoder) throws {
                    id = nil
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    init(from decoder: any Decoder) throws {
                        id = nil
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note declares its own init(from:), which @Table's generated code would not follow; "
                        + "remove init(from:), or conform Note to Model without @Table",
                    line: 4,
                    column: 5
                )
            ]
        )
    }

    @Test("@Table rejects a custom encode(to:)")
    func customEncoding() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                func encode(to encoder: any Encoder) throws {}
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    func encode(to encoder: any Encoder) throws {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note declares its own encode(to:), which @Table's generated code would not follow; "
                        + "remove encode(to:), or conform Note to Model without @Table",
                    line: 4,
                    column: 5
                )
            ]
        )
    }

    @Test("@Table needs a table name when the struct declares none")
    func missingTableName() {
        assertTableExpansion(
            """
            @Table
            struct Note: Codable {
                var id: Int64?
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Table needs the name of Note's table: write @Table(\"name\"), or declare static let "
                        + "tableName",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("@Table needs a string literal as table name", arguments: ["name", "\"note_\\(version)\""])
    func tableNameNotLiteral(argument: String) {
        assertTableExpansion(
            """
            @Table(\(argument))
            struct Note: Codable {
                var id: Int64?
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the table name of @Table must be a string literal, such as @Table(\"note\")",
                    line: 1,
                    column: 8
                )
            ]
        )
    }

    @Test("@Table rejects an empty table name")
    func emptyTableName() {
        assertTableExpansion(
            """
            @Table("")
            struct Note: Codable {
                var id: Int64?
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "the table name of @Table cannot be empty", line: 1, column: 8)
            ]
        )
    }

    @Test("@Table rejects a table name given both by the attribute and by the struct")
    func tableNameTwice() {
        assertTableExpansion(
            """
            @Table("a")
            struct Note: Codable {
                static let tableName = "b"
                var id: Int64?
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    static let tableName = "b"
                    var id: Int64?
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note declares tableName and @Table names the table too; keep one of them",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("@Table rejects a primary key that is not a coding key")
    func unknownPrimaryKey() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                static let primaryKey = "uuid"
                var id: Int64?
                var content: String
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    static let primaryKey = "uuid"
                    var id: Int64?
                    var content: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note.primaryKey is \"uuid\", which is not one of its coding keys (id, content); name "
                        + "the key of the primary key property",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("@Table rejects CodingKeys that leave out every stored property")
    func noCodedProperties() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64? = nil
                var content: String = ""

                enum CodingKeys: CodingKey {}
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64? = nil
                    var content: String = ""

                    enum CodingKeys: CodingKey {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "none of Note's stored properties has a case in CodingKeys, so @Table has no columns to "
                        + "read or write; add the columns' cases to CodingKeys",
                    line: 1,
                    column: 1
                )
            ]
        )
    }

    @Test("@Table reports every problem of a struct at once")
    func severalProblems() {
        assertTableExpansion(
            """
            @Table
            struct Note: Codable {
                var id = 0
                var callback: () -> Void
                func encode(to encoder: any Encoder) throws {}
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id = 0
                    var callback: () -> Void
                    func encode(to encoder: any Encoder) throws {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Table needs the name of Note's table: write @Table(\"name\"), or declare static let "
                        + "tableName",
                    line: 1,
                    column: 1
                ),
                DiagnosticSpec(
                    message: "Note declares its own encode(to:), which @Table's generated code would not follow; "
                        + "remove encode(to:), or conform Note to Model without @Table",
                    line: 5,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "@Table needs the type of 'id' written out, as in 'var id: Int = 0'",
                    line: 3,
                    column: 9
                ),
                DiagnosticSpec(
                    message: "'callback' has type '() -> Void', a function, which is neither storable nor Codable; "
                        + "give it a Codable type (nested values are stored as JSON), or make it a computed property",
                    line: 4,
                    column: 19
                ),
            ]
        )
    }

    @Test(
        "@Table rejects a CodingKeys it cannot read",
        arguments: [
            ("typealias CodingKeys = NoteKeys", "a typealias"),
            ("struct CodingKeys: CodingKey {}", "a struct"),
        ]
    )
    func unreadableCodingKeys(declaration: String, kind: String) {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                \(declaration)
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    \(declaration)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note.CodingKeys is \(kind), whose keys @Table cannot read; declare 'enum CodingKeys: "
                        + "String, CodingKey' with one case per coded property inside Note, or conform Note to Model "
                        + "without @Table",
                    line: 4,
                    column: 5
                )
            ]
        )
    }

    @Test("@Table rejects a case of CodingKeys that names no stored property")
    func codingKeysCaseWithoutProperty() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var length: Int { 0 }
                enum CodingKeys: String, CodingKey {
                    case id, length
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var length: Int { 0 }
                    enum CodingKeys: String, CodingKey {
                        case id, length
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "CodingKeys has case 'length', which names no stored property of Note; remove the case, "
                        + "or rename it to the property it stands for",
                    line: 6,
                    column: 18
                )
            ]
        )
    }

    @Test("@Table rejects a property left out of CodingKeys that decoding could not set")
    func notDecodable() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var content: String
                let tag: String?
                var draft: String?
                var cached: Int = 0
                enum CodingKeys: CodingKey {
                    case id
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var content: String
                    let tag: String?
                    var draft: String?
                    var cached: Int = 0
                    enum CodingKeys: CodingKey {
                        case id
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'content' has no case in CodingKeys and no initial value, so decoding Note could not "
                        + "set it; give it an initial value, or add its case to CodingKeys",
                    line: 4,
                    column: 9
                ),
                DiagnosticSpec(
                    message: "'tag' has no case in CodingKeys and no initial value, so decoding Note could not set "
                        + "it; give it an initial value, or add its case to CodingKeys",
                    line: 5,
                    column: 9
                ),
            ]
        )
    }

    @Test("@Table rejects a stored property declared through a tuple pattern")
    func tuplePattern() {
        assertTableExpansion(
            """
            @Table("point")
            struct Point: Codable {
                var id: Int64?
                var (x, y) = (0, 0)
            }
            """,
            expandedSource: """
                struct Point: Codable {
                    var id: Int64?
                    var (x, y) = (0, 0)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Table reads stored properties declared one name at a time; declare each name of "
                        + "'(x, y)' as a property of its own",
                    line: 4,
                    column: 9
                )
            ]
        )
    }

    @Test("@Table rejects custom coding and property wrappers inside #if too")
    func insideConditionalCompilation() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                #if DEBUG
                init(from decoder: any Decoder) throws {
                    id = nil
                }
                #endif
                #if canImport(Foundation)
                @Clamped
                #endif
                var count: Int
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    #if DEBUG
                    init(from decoder: any Decoder) throws {
                        id = nil
                    }
                    #endif
                    #if canImport(Foundation)
                    @Clamped
                    #endif
                    var count: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "Note declares its own init(from:), which @Table's generated code would not follow; "
                        + "remove init(from:), or conform Note to Model without @Table",
                    line: 5,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "'count' has an attribute or property wrapper, which @Table does not read or write; "
                        + "remove it, or conform the type to Model without @Table",
                    line: 9,
                    column: 5
                ),
            ]
        )
    }

    @Test("@Table refuses more combinations of #if clauses than it generates code for")
    func tooManyConfigurations() {
        let blocks = (0..<6).map { "    #if FLAG\($0)\n    var value\($0): Int\n    #endif" }.joined(separator: "\n")
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
            \(blocks)
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                \(blocks)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the #if blocks around Note's stored properties and coding keys make 64 combinations, "
                        + "more than @Table generates code for (32); put the properties of each configuration in one "
                        + "#if ... #else block",
                    line: 1,
                    column: 1
                )
            ]
        )
    }
}
