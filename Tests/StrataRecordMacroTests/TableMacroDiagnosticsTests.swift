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
}
