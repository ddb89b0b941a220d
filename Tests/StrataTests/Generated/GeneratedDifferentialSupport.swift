import Foundation
import StrataRecord
import Testing

@testable import Strata

/// The two paths of one type: its generated code (the default) and its `Codable` conformance.
enum Path {
    /// A decoder that reads every type through `init(from:)`, even a ``GeneratedRecord``.
    static var codableDecoder: RowDecoder {
        var decoder = RowDecoder()
        decoder.usesGeneratedCode = false
        return decoder
    }

    /// An encoder that binds every type through `encode(to:)`, even a ``GeneratedRecord``.
    static var codableEncoder: StatementEncoder {
        var encoder = StatementEncoder()
        encoder.usesGeneratedCode = false
        return encoder
    }

    /// `decoder` with its settings, reading through `init(from:)` when `codable`.
    static func decoder(_ decoder: RowDecoder, codable: Bool) -> RowDecoder {
        var copy = decoder
        copy.usesGeneratedCode = !codable
        return copy
    }

    /// `encoder` with its settings, binding through `encode(to:)` when `codable`.
    static func encoder(_ encoder: StatementEncoder, codable: Bool) -> StatementEncoder {
        var copy = encoder
        copy.usesGeneratedCode = !codable
        return copy
    }
}

// MARK: Generic entry points
//
// Called with a concrete `GeneratedRecord`, `fetchAll(_:query:decoder:)` resolves to the overload that always runs
// the generated reader. Called from these generic functions, it resolves to the `Decodable` one, which honors the
// decoder's `usesGeneratedCode`.

func fetchAllDecodable<T: Decodable>(
    _ db: Database, _ type: T.Type, query: String, parameters: (any Encodable)? = nil, decoder: RowDecoder
) throws -> [T] {
    try db.fetchAll(T.self, query: query, parameters: parameters, decoder: decoder)
}

func fetchCursorDecodable<T: Decodable>(
    _ db: Database, _ type: T.Type, query: String, decoder: RowDecoder
) throws -> [T] {
    let cursor = try db.fetchCursor(T.self, query: query, decoder: decoder)
    var values: [T] = []
    while let value = try cursor.next() { values.append(value) }
    return values
}

/// Every value of `cursor`.
func drain<T>(_ cursor: FetchCursor<T>) throws -> [T] {
    var values: [T] = []
    try cursor.forEach { values.append($0) }
    return values
}

// MARK: Comparing outcomes

/// What an error says, field by field: the case, the type or key it names, the coding path, the description and
/// the underlying error.
struct ErrorShape: Equatable, CustomStringConvertible {
    var kind: String
    var subject: String
    var codingPath: [String]
    var debugDescription: String
    var underlying: String?

    init(_ error: any Error) {
        switch error {
        case let error as DecodingError:
            switch error {
            case .typeMismatch(let type, let context):
                self.init("DecodingError.typeMismatch", "\(type)", context)
            case .valueNotFound(let type, let context):
                self.init("DecodingError.valueNotFound", "\(type)", context)
            case .keyNotFound(let key, let context):
                self.init("DecodingError.keyNotFound", key.stringValue, context)
            case .dataCorrupted(let context):
                self.init("DecodingError.dataCorrupted", "", context)
            @unknown default:
                self.init(other: error)
            }
        case let error as EncodingError:
            switch error {
            case .invalidValue(let value, let context):
                self.init(
                    kind: "EncodingError.invalidValue", subject: "\(type(of: value))",
                    codingPath: context.codingPath.map(\.stringValue), debugDescription: context.debugDescription,
                    underlying: context.underlyingError.map { String(describing: $0) })
            @unknown default:
                self.init(other: error)
            }
        default:
            self.init(other: error)
        }
    }

    private init(kind: String, subject: String, codingPath: [String], debugDescription: String, underlying: String?) {
        self.kind = kind
        self.subject = subject
        self.codingPath = codingPath
        self.debugDescription = debugDescription
        self.underlying = underlying
    }

    private init(_ kind: String, _ subject: String, _ context: DecodingError.Context) {
        self.init(
            kind: kind, subject: subject, codingPath: context.codingPath.map(\.stringValue),
            debugDescription: context.debugDescription,
            underlying: context.underlyingError.map { String(describing: $0) })
    }

    private init(other error: any Error) {
        self.init(
            kind: "\(type(of: error))", subject: "", codingPath: [], debugDescription: String(describing: error),
            underlying: nil)
    }

    var description: String {
        "\(kind)(\(subject)) at \(codingPath): \(debugDescription)"
            + (underlying.map { " [underlying: \($0)]" } ?? "")
    }

    /// The fields in which `other` differs, for a readable failure.
    func differences(from other: ErrorShape) -> [String] {
        var result: [String] = []
        if kind != other.kind { result.append("case: \(kind) != \(other.kind)") }
        if subject != other.subject { result.append("type or key: \(subject) != \(other.subject)") }
        if codingPath != other.codingPath { result.append("coding path: \(codingPath) != \(other.codingPath)") }
        if debugDescription != other.debugDescription {
            result.append("debugDescription: \"\(debugDescription)\" != \"\(other.debugDescription)\"")
        }
        if underlying != other.underlying {
            result.append(
                "underlying error: \(underlying ?? "none") != \(other.underlying ?? "none")")
        }
        return result
    }
}

/// Checks that two errors are the same: same case, same type or key, same coding path strings, same description
/// and underlying error. `generated` is the generated code's, `codable` the `Codable` conformance's.
func expectSameError(
    _ generated: any Error, _ codable: any Error, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let left = ErrorShape(generated)
    let right = ErrorShape(codable)
    let differences = left.differences(from: right)
    let message =
        "\(label): the errors differ (generated vs Codable): \(differences.joined(separator: "; "))\n"
        + "  generated: \(left)\n  Codable:   \(right)"
    #expect(differences.isEmpty, "\(message)", sourceLocation: sourceLocation)
}

/// Checks that both paths gave equal values, or both threw the same error.
func expectSameOutcome<T>(
    _ generated: Result<T, any Error>, _ codable: Result<T, any Error>, _ label: String,
    same: (T, T) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
) {
    switch (generated, codable) {
    case (.success(let left), .success(let right)):
        #expect(
            same(left, right),
            "\(label): the values differ\n  generated: \(describe(left))\n  Codable:   \(describe(right))",
            sourceLocation: sourceLocation)
    case (.failure(let left), .failure(let right)):
        expectSameError(left, right, label, sourceLocation: sourceLocation)
    case (.success(let left), .failure(let right)):
        Issue.record(
            "\(label): the generated code gave \(describe(left)), Codable threw \(ErrorShape(right))",
            sourceLocation: sourceLocation)
    case (.failure(let left), .success(let right)):
        Issue.record(
            "\(label): the generated code threw \(ErrorShape(left)), Codable gave \(describe(right))",
            sourceLocation: sourceLocation)
    }
}

func expectSameOutcome<T: Equatable>(
    _ generated: Result<T, any Error>, _ codable: Result<T, any Error>, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    expectSameOutcome(generated, codable, label, same: identical, sourceLocation: sourceLocation)
}

/// Equal, and equal down to what `==` does not see: the sign of a zero.
func identical<T: Equatable>(_ left: T, _ right: T) -> Bool {
    left == right && floatingPointBits(left) == floatingPointBits(right)
}

/// The bits of every floating-point value inside `value` (a date by its seconds), sorted: what `==` does not
/// compare (-0.0 == 0.0), in an order that does not depend on a dictionary's.
func floatingPointBits(_ value: Any) -> [String] {
    var bits: [String] = []
    func visit(_ value: Any, _ path: String) {
        switch value {
        case let double as Double: bits.append("\(path)=\(double.bitPattern)")
        case let float as Float: bits.append("\(path)=\(float.bitPattern)")
        case let date as Date: bits.append("\(path)=\(date.timeIntervalSinceReferenceDate.bitPattern)")
        case is String, is Data, is [UInt8], is URL, is UUID, is Decimal, is DatabaseValue: return
        default:
            for child in Mirror(reflecting: value).children {
                visit(child.value, path + "." + (child.label ?? "_"))
            }
        }
    }
    visit(value, "")
    return bits.sorted()
}

/// A value's description, cut to a readable length.
func describe(_ value: Any) -> String {
    let text = String(reflecting: value)
    return text.count > 600 ? String(text.prefix(600)) + "…" : text
}

/// The properties of two values that differ, for a readable failure.
func propertyDifferences(_ left: Any, _ right: Any) -> [String] {
    zip(Mirror(reflecting: left).children, Mirror(reflecting: right).children).compactMap { pair in
        let a = String(reflecting: pair.0.value)
        let b = String(reflecting: pair.1.value)
        let same =
            if let left = pair.0.value as? AnyHashable, let right = pair.1.value as? AnyHashable {
                left == right
            } else {
                a == b
            }
        guard !same || floatingPointBits(pair.0.value) != floatingPointBits(pair.1.value) else { return nil }
        return "\(pair.0.label ?? "?"): \(a.prefix(120)) != \(b.prefix(120))"
    }
}

// MARK: What a table stores

/// One stored value exactly: a REAL by its bits (so -0.0 is not 0.0), TEXT and BLOB by their bytes.
enum StoredCell: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(UInt64)
    case text(String)
    case blob(Data)

    init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value.bitPattern)
        case .text(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }

    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "INTEGER \(value)"
        case .real(let bits): "REAL \(Double(bitPattern: bits))"
        case .text(let text): "TEXT \(text.debugDescription.prefix(120))"
        case .blob(let data): "BLOB \(data.prefix(40).map { String(format: "%02x", $0) }.joined()) (\(data.count))"
        }
    }
}

/// Every row of `table`, ordered by rowid, as exact stored values by column name.
func storedRows(_ db: Database, _ table: String) throws -> [[String: StoredCell]] {
    let statement = try db.prepare(query: "SELECT * FROM \(table) ORDER BY rowid")
    var rows: [[String: StoredCell]] = []
    while let row = try statement.next() {
        var cells: [String: StoredCell] = [:]
        for (index, name) in row.columnNames.enumerated() {
            let value: DatabaseValue = try row[index]
            cells[name] = StoredCell(value)
        }
        rows.append(cells)
    }
    return rows
}

/// Checks that two tables (maybe in two databases) store exactly the same values, column by column.
func expectSameStoredRows(
    _ generated: [[String: StoredCell]], _ codable: [[String: StoredCell]], _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(
        generated.count == codable.count, "\(label): \(generated.count) rows != \(codable.count)",
        sourceLocation: sourceLocation)
    var reported = 0
    for (offset, (left, right)) in zip(generated, codable).enumerated() where left != right {
        let columns = Set(left.keys).union(right.keys).sorted()
        let differences = columns.compactMap { column -> String? in
            left[column] == right[column]
                ? nil
                : "\(column): \(left[column].map(\.description) ?? "missing") != "
                    + "\(right[column].map(\.description) ?? "missing")"
        }
        let message =
            "\(label): row \(offset + 1) is stored differently (generated vs Codable): "
            + differences.joined(separator: "; ")
        Issue.record("\(message)", sourceLocation: sourceLocation)
        reported += 1
        if reported == 5 { break }
    }
}

/// A `Result` of `body`, with the error type erased.
func outcome<T>(_ body: () throws -> T) -> Result<T, any Error> {
    Result { try body() }
}

/// Checks that `generated` and `codable` are identical (equal, and equal down to the sign of a zero),
/// reporting the first differing element and its differing properties instead of both whole values.
func expectIdentical<T: Equatable>(
    _ generated: T, _ codable: T, _ label: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard !identical(generated, codable) else { return }
    let summary = differenceSummary(generated, codable)
    Issue.record(
        "\(label.isEmpty ? "values" : label) differ (left vs right): \(summary)", sourceLocation: sourceLocation)
}

/// Where two values differ: the first differing element of a collection or optional, then its properties.
func differenceSummary(_ left: Any, _ right: Any) -> String {
    let leftMirror = Mirror(reflecting: left)
    let rightMirror = Mirror(reflecting: right)
    if leftMirror.displayStyle == .collection || leftMirror.displayStyle == .optional
        || leftMirror.displayStyle == .tuple
    {
        let leftChildren = Array(leftMirror.children)
        let rightChildren = Array(rightMirror.children)
        guard leftChildren.count == rightChildren.count else {
            return "\(leftChildren.count) elements != \(rightChildren.count): "
                + "\(describe(left).prefix(300)) != \(describe(right).prefix(300))"
        }
        for (offset, (a, b)) in zip(leftChildren, rightChildren).enumerated() {
            let inner = differenceSummary(a.value, b.value)
            if !inner.isEmpty { return "[\(a.label ?? String(offset))] " + inner }
        }
        return ""
    }
    let differences = propertyDifferences(left, right)
    if differences.isEmpty {
        let a = describe(left)
        let b = describe(right)
        return a == b ? "" : "\(a.prefix(300)) != \(b.prefix(300))"
    }
    return differences.joined(separator: "; ")
}
