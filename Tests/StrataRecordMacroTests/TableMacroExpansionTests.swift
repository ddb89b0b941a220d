import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Table expansion")
struct TableMacroExpansionTests {
    @Test("a struct with a table name gets Model, GeneratedRecord and typed columns")
    func basic() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var createdAt: Date
                var content: String
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var createdAt: Date
                    var content: String
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "createdAt", "content"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(Date.self, 1)
                        let value2 = try row.decode(String.self, 2)
                        self.id = value0
                        self.createdAt = value1
                        self.content = value2
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.createdAt, 1)
                        try parameters.encode(self.content, 2)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, createdAt, content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.createdAt = try container.decode(Date.self, forKey: .createdAt)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.createdAt, forKey: .createdAt)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let createdAt = StrataCore.TypedColumn<Note, Date>(key: "createdAt")
                        let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("the members of a public struct's conformance are public")
    func publicStruct() {
        assertTableExpansion(
            """
            @Table("note")
            public struct Note: Codable {
                public var id: Int64?
                public var content: String
            }
            """,
            expandedSource: """
                public struct Note: Codable {
                    public var id: Int64?
                    public var content: String
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    public static var tableName: String {
                        "note"
                    }

                    public static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    public init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    public func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    public init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    public func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    public struct Columns: Sendable {
                        public let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        public let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        public init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    public static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("custom CodingKeys rename keys and leave out properties")
    func customCodingKeys() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var createdAt: Date
                var isSelected: Bool = false

                enum CodingKeys: String, CodingKey {
                    case id
                    case createdAt = "created_at"
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var createdAt: Date
                    var isSelected: Bool = false

                    enum CodingKeys: String, CodingKey {
                        case id
                        case createdAt = "created_at"
                    }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        [CodingKeys.id.stringValue, CodingKeys.createdAt.stringValue]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(Date.self, 1)
                        self.id = value0
                        self.createdAt = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.createdAt, 1)
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.createdAt = try container.decode(Date.self, forKey: .createdAt)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.createdAt, forKey: .createdAt)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: CodingKeys.id.stringValue)
                        let createdAt = StrataCore.TypedColumn<Note, Date>(key: CodingKeys.createdAt.stringValue)
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("a let with an initial value is encoded but not decoded, with the warning synthesized Codable gives")
    func letWithInitialValue() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                let kind: String = "note"
                let content: String
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    let kind: String = "note"
                    let content: String
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "kind", "content"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value2 = try row.decode(String.self, 2)
                        self.id = value0
                        self.content = value2
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.kind, 1)
                        try parameters.encode(self.content, 2)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, kind, content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.kind, forKey: .kind)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let kind = StrataCore.TypedColumn<Note, String>(key: "kind")
                        let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "immutable property 'kind' will not be decoded because it is declared with an initial "
                        + "value which cannot be overwritten; set the initial value in an initializer, declare "
                        + "CodingKeys with a 'kind' case inside the struct to silence this warning, or make the "
                        + "property mutable",
                    line: 4,
                    column: 9,
                    severity: .warning
                )
            ]
        )
    }

    @Test("optionals keep their type, and an implicitly unwrapped optional is spelled as an optional")
    func optionals() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var title: String?
                var body: String!
                var tags: Optional<[String]>
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var title: String?
                    var body: String!
                    var tags: Optional<[String]>
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["title", "body", "tags"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(String?.self, 0)
                        let value1 = try row.decode(String?.self, 1)
                        let value2 = try row.decode(Optional<[String]>.self, 2)
                        self.title = value0
                        self.body = value1
                        self.tags = value2
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.title, 0)
                        try parameters.encode(self.body, 1)
                        try parameters.encode(self.tags, 2)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case title, body, tags
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.title = try container.decodeIfPresent(String.self, forKey: .title)
                        self.body = try container.decodeIfPresent(String.self, forKey: .body)
                        self.tags = try container.decodeIfPresent([String].self, forKey: .tags)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.title, forKey: .title)
                        try container.encodeIfPresent(self.body, forKey: .body)
                        try container.encodeIfPresent(self.tags, forKey: .tags)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let title = StrataCore.TypedColumn<Note, String?>(key: "title")
                        let body = StrataCore.TypedColumn<Note, String?>(key: "body")
                        let tags = StrataCore.TypedColumn<Note, Optional<[String]>>(key: "tags")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.title`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("static and computed properties are skipped, observed properties are stored")
    func staticComputedAndObserved() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                static let defaultContent = ""
                static var count: Int { 0 }
                var content: String {
                    willSet { print(newValue) }
                    didSet { print(oldValue) }
                }
                var length: Int { content.count }
                var uppercased: String {
                    get { content.uppercased() }
                    set { content = newValue.lowercased() }
                }
                var isEmpty: Bool {
                    get { content.isEmpty }
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    static let defaultContent = ""
                    static var count: Int { 0 }
                    var content: String {
                        willSet { print(newValue) }
                        didSet { print(oldValue) }
                    }
                    var length: Int { content.count }
                    var uppercased: String {
                        get { content.uppercased() }
                        set { content = newValue.lowercased() }
                    }
                    var isEmpty: Bool {
                        get { content.isEmpty }
                    }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["content"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(String.self, 0)
                        self.content = value0
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.content, 0)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.content`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("var a, b: Int declares two Int properties")
    func multipleBindings() {
        assertTableExpansion(
            """
            @Table("point")
            struct Point: Codable {
                var x, y: Int
            }
            """,
            expandedSource: """
                struct Point: Codable {
                    var x, y: Int
                }

                extension Point: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "point"
                    }

                    static var recordKeys: [String] {
                        ["x", "y"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int.self, 0)
                        let value1 = try row.decode(Int.self, 1)
                        self.x = value0
                        self.y = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.x, 0)
                        try parameters.encode(self.y, 1)
                    }

                    /// The coding keys of Point's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Point, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case x, y
                    }

                    /// Decodes Point exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Point, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.x = try container.decode(Int.self, forKey: .x)
                        self.y = try container.decode(Int.self, forKey: .y)
                    }

                    /// Encodes Point exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Point, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encode(self.x, forKey: .x)
                        try container.encode(self.y, forKey: .y)
                    }

                    /// The typed columns of Point, one per coded property that is not private.
                    struct Columns: Sendable {
                        let x = StrataCore.TypedColumn<Point, Int>(key: "x")
                        let y = StrataCore.TypedColumn<Point, Int>(key: "y")
                        init() {
                        }
                    }

                    /// The typed columns of Point, such as `Point.columns.x`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("a generic struct's columns name its generic arguments")
    func genericStruct() {
        assertTableExpansion(
            """
            @Table("box")
            struct Box<T: Codable>: Codable {
                var id: Int64?
                var value: T
            }
            """,
            expandedSource: """
                struct Box<T: Codable>: Codable {
                    var id: Int64?
                    var value: T
                }

                extension Box: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "box"
                    }

                    static var recordKeys: [String] {
                        ["id", "value"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(T.self, 1)
                        self.id = value0
                        self.value = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.value, 1)
                    }

                    /// The coding keys of Box's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Box, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, value
                    }

                    /// Decodes Box exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Box, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.value = try container.decode(T.self, forKey: .value)
                    }

                    /// Encodes Box exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Box, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.value, forKey: .value)
                    }

                    /// The typed columns of Box, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Box<T>, Int64?>(key: "id")
                        let value = StrataCore.TypedColumn<Box<T>, T>(key: "value")
                        init() {
                        }
                    }

                    /// The typed columns of Box, such as `Box.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("a struct that declares Model only gets GeneratedRecord")
    func alreadyModel() {
        // The compiler passes only the conformances the struct lacks.
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable, Model {
                var id: Int64?
                var content: String
            }
            """,
            expandedSource: """
                struct Note: Codable, Model {
                    var id: Int64?
                    var content: String
                }

                extension Note: StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """,
            conformances: ["GeneratedRecord"]
        )
    }

    @Test("without argument, a declared tableName is kept and none is generated")
    func declaredTableName() {
        assertTableExpansion(
            """
            @Table
            struct Note: Codable {
                static let tableName = "x"
                var id: Int64?
                var content: String
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    static let tableName = "x"
                    var id: Int64?
                    var content: String
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, content
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.content = try container.decode(String.self, forKey: .content)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.content, forKey: .content)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let content = StrataCore.TypedColumn<Note, String>(key: "content")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test(
        "a nested struct's columns name it by its full name; lazy properties are not coded; private ones get no column")
    func nestedLazyAndPrivate() {
        assertTableExpansion(
            """
            enum Outer {
                @Table("doc")
                struct Doc: Codable {
                    private enum State: String, Codable {
                        case a
                    }
                    var id: Int64?
                    lazy var cached: Int = 3
                    private var state: State = .a
                }
            }
            """,
            expandedSource: """
                enum Outer {
                    struct Doc: Codable {
                        private enum State: String, Codable {
                            case a
                        }
                        var id: Int64?
                        lazy var cached: Int = 3
                        private var state: State = .a
                    }
                }

                extension Outer.Doc: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "doc"
                    }

                    static var recordKeys: [String] {
                        ["id", "state"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(State.self, 1)
                        self.id = value0
                        self.state = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.state, 1)
                    }

                    /// The coding keys of Doc's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Doc, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, state
                    }

                    /// Decodes Doc exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Doc, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.state = try StrataCore.TableCoding.decode(
                            State.self, {
                                try container.decode(State.self, forKey: .state)
                            },
                            ifPresent: {
                                try container.decodeIfPresent(StrataCore.TableCoding.wrapped(State.self), forKey: .state)
                            })
                    }

                    /// Encodes Doc exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Doc, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try StrataCore.TableCoding.encode(
                            self.state, {
                                try container.encode(self.state, forKey: .state)
                            },
                            ifPresent: {
                                try container.encodeIfPresent(self.state, forKey: .state)
                            })
                    }

                    /// The typed columns of Doc, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Outer.Doc, Int64?>(key: "id")
                        init() {
                        }
                    }

                    /// The typed columns of Doc, such as `Doc.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("a type that may be an Optional through a typealias lets the compiler choose decode or decodeIfPresent")
    func undecidedOptionals() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note<T: Codable>: Codable {
                var mood: Mood
                var maybe: MaybeID
                var value: T
                var list: [T]
                var flag: Bool?
            }
            """,
            expandedSource: """
                struct Note<T: Codable>: Codable {
                    var mood: Mood
                    var maybe: MaybeID
                    var value: T
                    var list: [T]
                    var flag: Bool?
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["mood", "maybe", "value", "list", "flag"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Mood.self, 0)
                        let value1 = try row.decode(MaybeID.self, 1)
                        let value2 = try row.decode(T.self, 2)
                        let value3 = try row.decode([T].self, 3)
                        let value4 = try row.decode(Bool?.self, 4)
                        self.mood = value0
                        self.maybe = value1
                        self.value = value2
                        self.list = value3
                        self.flag = value4
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.mood, 0)
                        try parameters.encode(self.maybe, 1)
                        try parameters.encode(self.value, 2)
                        try parameters.encode(self.list, 3)
                        try parameters.encode(self.flag, 4)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case mood, maybe, value, list, flag
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.mood = try StrataCore.TableCoding.decode(
                            Mood.self, {
                                try container.decode(Mood.self, forKey: .mood)
                            },
                            ifPresent: {
                                try container.decodeIfPresent(StrataCore.TableCoding.wrapped(Mood.self), forKey: .mood)
                            })
                        self.maybe = try StrataCore.TableCoding.decode(
                            MaybeID.self, {
                                try container.decode(MaybeID.self, forKey: .maybe)
                            },
                            ifPresent: {
                                try container.decodeIfPresent(StrataCore.TableCoding.wrapped(MaybeID.self), forKey: .maybe)
                            })
                        self.value = try container.decode(T.self, forKey: .value)
                        self.list = try container.decode([T].self, forKey: .list)
                        self.flag = try container.decodeIfPresent(Bool.self, forKey: .flag)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try StrataCore.TableCoding.encode(
                            self.mood, {
                                try container.encode(self.mood, forKey: .mood)
                            },
                            ifPresent: {
                                try container.encodeIfPresent(self.mood, forKey: .mood)
                            })
                        try StrataCore.TableCoding.encode(
                            self.maybe, {
                                try container.encode(self.maybe, forKey: .maybe)
                            },
                            ifPresent: {
                                try container.encodeIfPresent(self.maybe, forKey: .maybe)
                            })
                        try container.encode(self.value, forKey: .value)
                        try container.encode(self.list, forKey: .list)
                        try container.encodeIfPresent(self.flag, forKey: .flag)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let mood = StrataCore.TypedColumn<Note<T>, Mood>(key: "mood")
                        let maybe = StrataCore.TypedColumn<Note<T>, MaybeID>(key: "maybe")
                        let value = StrataCore.TypedColumn<Note<T>, T>(key: "value")
                        let list = StrataCore.TypedColumn<Note<T>, [T]>(key: "list")
                        let flag = StrataCore.TypedColumn<Note<T>, Bool?>(key: "flag")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.mood`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("the columns are coded in the order of the cases of CodingKeys, as Codable codes them")
    func codingKeysOrder() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var title: String
                var body: String?
                enum CodingKeys: String, CodingKey {
                    case body, id
                    case title = "title_text"
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var title: String
                    var body: String?
                    enum CodingKeys: String, CodingKey {
                        case body, id
                        case title = "title_text"
                    }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        [CodingKeys.body.stringValue, CodingKeys.id.stringValue, CodingKeys.title.stringValue]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(String?.self, 0)
                        let value1 = try row.decode(Int64?.self, 1)
                        let value2 = try row.decode(String.self, 2)
                        self.body = value0
                        self.id = value1
                        self.title = value2
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.body, 0)
                        try parameters.encode(self.id, 1)
                        try parameters.encode(self.title, 2)
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.body = try container.decodeIfPresent(String.self, forKey: .body)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.title = try container.decode(String.self, forKey: .title)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.body, forKey: .body)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.title, forKey: .title)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let body = StrataCore.TypedColumn<Note, String?>(key: CodingKeys.body.stringValue)
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: CodingKeys.id.stringValue)
                        let title = StrataCore.TypedColumn<Note, String>(key: CodingKeys.title.stringValue)
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.body`.
                    static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }

    @Test("stored properties inside #if get their code under the same conditions")
    func conditionalProperties() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                #if DEBUG
                var trace: String
                #elseif os(Linux)
                var host: String
                #endif
                func describe() -> String { "" }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    #if DEBUG
                    var trace: String
                    #elseif os(Linux)
                    var host: String
                    #endif
                    func describe() -> String { "" }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    #if DEBUG
                    static var recordKeys: [String] {
                        ["id", "trace"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.trace = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.trace, 1)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, trace
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.trace = try container.decode(String.self, forKey: .trace)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.trace, forKey: .trace)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let trace = StrataCore.TypedColumn<Note, String>(key: "trace")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #elseif os(Linux)
                    static var recordKeys: [String] {
                        ["id", "host"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.host = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.host, 1)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, host
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.host = try container.decode(String.self, forKey: .host)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.host, forKey: .host)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let host = StrataCore.TypedColumn<Note, String>(key: "host")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #else
                    static var recordKeys: [String] {
                        ["id"]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        self.id = value0
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #endif
                }
                """
        )
    }

    @Test(
        "cases of CodingKeys inside #if, and a combination that cannot be coded, which is an #error under its conditions"
    )
    func conditionalCodingKeys() {
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                var trace: String = ""
                enum CodingKeys: CodingKey {
                    case id
                    #if DEBUG
                    case trace
                    #endif
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    var trace: String = ""
                    enum CodingKeys: CodingKey {
                        case id
                        #if DEBUG
                        case trace
                        #endif
                    }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    #if DEBUG
                    static var recordKeys: [String] {
                        [CodingKeys.id.stringValue, CodingKeys.trace.stringValue]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.trace = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.trace, 1)
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.trace = try container.decode(String.self, forKey: .trace)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.trace, forKey: .trace)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: CodingKeys.id.stringValue)
                        let trace = StrataCore.TypedColumn<Note, String>(key: CodingKeys.trace.stringValue)
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #else
                    static var recordKeys: [String] {
                        [CodingKeys.id.stringValue]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        self.id = value0
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: CodingKeys.id.stringValue)
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #endif
                }
                """
        )
        assertTableExpansion(
            """
            @Table("note")
            struct Note: Codable {
                var id: Int64?
                #if DEBUG
                var trace: String
                #endif
                enum CodingKeys: CodingKey {
                    case id, trace
                }
            }
            """,
            expandedSource: """
                struct Note: Codable {
                    var id: Int64?
                    #if DEBUG
                    var trace: String
                    #endif
                    enum CodingKeys: CodingKey {
                        case id, trace
                    }
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    #if DEBUG
                    static var recordKeys: [String] {
                        [CodingKeys.id.stringValue, CodingKeys.trace.stringValue]
                    }

                    init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.trace = value1
                    }

                    func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.trace, 1)
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.trace = try container.decode(String.self, forKey: .trace)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try container.encode(self.trace, forKey: .trace)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = StrataCore.TypedColumn<Note, Int64?>(key: CodingKeys.id.stringValue)
                        let trace = StrataCore.TypedColumn<Note, String>(key: CodingKeys.trace.stringValue)
                        init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    static var columns: Columns {
                        Columns()
                    }
                    #else
                    #error("CodingKeys has case 'trace', which names no stored property of Note; remove the case, or rename it to the property it stands for")
                    #endif
                }
                """
        )
    }

    @Test("a property of a public struct that is not public gets a column no more visible than itself")
    func internalPropertyOfPublicStruct() {
        assertTableExpansion(
            """
            @Table("note")
            public struct Note: Codable {
                public var id: Int64?
                var draft: Draft
                package var flag: Bool
            }
            """,
            expandedSource: """
                public struct Note: Codable {
                    public var id: Int64?
                    var draft: Draft
                    package var flag: Bool
                }

                extension Note: StrataCore.Model, StrataCore.GeneratedRecord {
                    public static var tableName: String {
                        "note"
                    }

                    public static var recordKeys: [String] {
                        ["id", "draft", "flag"]
                    }

                    public init(row: some StrataCore.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(Draft.self, 1)
                        let value2 = try row.decode(Bool.self, 2)
                        self.id = value0
                        self.draft = value1
                        self.flag = value2
                    }

                    public func encode(to parameters: some StrataCore.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.draft, 1)
                        try parameters.encode(self.flag, 2)
                    }

                    /// The coding keys of Note's stored properties, as Swift synthesizes them, which @Table's reader
                    /// and writer follow.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    private enum CodingKeys: CodingKey {
                        case id, draft, flag
                    }

                    /// Decodes Note exactly as Swift's synthesized `init(from:)` does, and as @Table's reader reads
                    /// a row.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    public init(from decoder: any Decoder) throws {
                        let container = try decoder.container(keyedBy: CodingKeys.self)
                        self.id = try container.decodeIfPresent(Int64.self, forKey: .id)
                        self.draft = try StrataCore.TableCoding.decode(
                            Draft.self, {
                                try container.decode(Draft.self, forKey: .draft)
                            },
                            ifPresent: {
                                try container.decodeIfPresent(StrataCore.TableCoding.wrapped(Draft.self), forKey: .draft)
                            })
                        self.flag = try container.decode(Bool.self, forKey: .flag)
                    }

                    /// Encodes Note exactly as Swift's synthesized `encode(to:)` does, and as @Table's writer binds
                    /// parameters.
                    ///
                    /// @Table declares this: a CodingKeys, init(from:) or encode(to:) in an extension would be bypassed.
                    /// Declare CodingKeys inside Note, or use a Model without @Table for custom coding.
                    public func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encodeIfPresent(self.id, forKey: .id)
                        try StrataCore.TableCoding.encode(
                            self.draft, {
                                try container.encode(self.draft, forKey: .draft)
                            },
                            ifPresent: {
                                try container.encodeIfPresent(self.draft, forKey: .draft)
                            })
                        try container.encode(self.flag, forKey: .flag)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    public struct Columns: Sendable {
                        public let id = StrataCore.TypedColumn<Note, Int64?>(key: "id")
                        let draft = StrataCore.TypedColumn<Note, Draft>(key: "draft")
                        package let flag = StrataCore.TypedColumn<Note, Bool>(key: "flag")
                        public init() {
                        }
                    }

                    /// The typed columns of Note, such as `Note.columns.id`.
                    public static var columns: Columns {
                        Columns()
                    }
                }
                """
        )
    }
}
