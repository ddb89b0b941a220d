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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "createdAt", "content"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(Date.self, 1)
                        let value2 = try row.decode(String.self, 2)
                        self.id = value0
                        self.createdAt = value1
                        self.content = value2
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.createdAt, 1)
                        try parameters.encode(self.content, 2)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        let createdAt = Strata.TypedColumn<Note, Date>(key: "createdAt")
                        let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    public static var tableName: String {
                        "note"
                    }

                    public static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    public init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    public func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    public struct Columns: Sendable {
                        public let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        public let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "created_at"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(Date.self, 1)
                        self.id = value0
                        self.createdAt = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.createdAt, 1)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        let createdAt = Strata.TypedColumn<Note, Date>(key: "created_at")
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

    @Test("a let with an initial value is encoded but not decoded")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "kind", "content"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value2 = try row.decode(String.self, 2)
                        self.id = value0
                        self.content = value2
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.kind, 1)
                        try parameters.encode(self.content, 2)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        let kind = Strata.TypedColumn<Note, String>(key: "kind")
                        let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["title", "body", "tags"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(String?.self, 0)
                        let value1 = try row.decode(String?.self, 1)
                        let value2 = try row.decode(Optional<[String]>.self, 2)
                        self.title = value0
                        self.body = value1
                        self.tags = value2
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.title, 0)
                        try parameters.encode(self.body, 1)
                        try parameters.encode(self.tags, 2)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let title = Strata.TypedColumn<Note, String?>(key: "title")
                        let body = Strata.TypedColumn<Note, String?>(key: "body")
                        let tags = Strata.TypedColumn<Note, Optional<[String]>>(key: "tags")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["content"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(String.self, 0)
                        self.content = value0
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.content, 0)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Point: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "point"
                    }

                    static var recordKeys: [String] {
                        ["x", "y"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int.self, 0)
                        let value1 = try row.decode(Int.self, 1)
                        self.x = value0
                        self.y = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.x, 0)
                        try parameters.encode(self.y, 1)
                    }

                    /// The typed columns of Point, one per coded property that is not private.
                    struct Columns: Sendable {
                        let x = Strata.TypedColumn<Point, Int>(key: "x")
                        let y = Strata.TypedColumn<Point, Int>(key: "y")
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

                extension Box: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "box"
                    }

                    static var recordKeys: [String] {
                        ["id", "value"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(T.self, 1)
                        self.id = value0
                        self.value = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.value, 1)
                    }

                    /// The typed columns of Box, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Box<T>, Int64?>(key: "id")
                        let value = Strata.TypedColumn<Box<T>, T>(key: "value")
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

                extension Note: Strata.GeneratedRecord {
                    static var tableName: String {
                        "note"
                    }

                    static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Note: Strata.Model, Strata.GeneratedRecord {
                    static var recordKeys: [String] {
                        ["id", "content"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(String.self, 1)
                        self.id = value0
                        self.content = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.content, 1)
                    }

                    /// The typed columns of Note, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Note, Int64?>(key: "id")
                        let content = Strata.TypedColumn<Note, String>(key: "content")
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

                extension Outer.Doc: Strata.Model, Strata.GeneratedRecord {
                    static var tableName: String {
                        "doc"
                    }

                    static var recordKeys: [String] {
                        ["id", "state"]
                    }

                    init(row: Strata.RecordRow) throws {
                        let value0 = try row.decode(Int64?.self, 0)
                        let value1 = try row.decode(State.self, 1)
                        self.id = value0
                        self.state = value1
                    }

                    func encode(to parameters: Strata.RecordParameters) throws {
                        try parameters.encode(self.id, 0)
                        try parameters.encode(self.state, 1)
                    }

                    /// The typed columns of Doc, one per coded property that is not private.
                    struct Columns: Sendable {
                        let id = Strata.TypedColumn<Outer.Doc, Int64?>(key: "id")
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
}
