import ArgumentParser
import Foundation
import Strata

/// How `strata query` prints rows.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, csv

    func render(_ result: QueryResult) -> String {
        switch self {
        case .table: Self.table(result)
        case .json: Self.json(result)
        case .csv: Self.csv(result)
        }
    }

    // MARK: Table

    /// Columns padded to their widest value, numbers aligned right, and a row count.
    static func table(_ result: QueryResult) -> String {
        guard !result.columns.isEmpty else {
            if result.returnsRows { return "(0 rows)" }
            return result.changes == 1 ? "(1 row changed)" : "(\(result.changes) rows changed)"
        }
        let cells = result.rows.map { $0.map(tableCell) }
        var widths = result.columns.map { escapedForTable($0).count }
        for row in cells {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.text.count)
            }
        }
        func line(_ row: [(text: String, rightAligned: Bool)]) -> String {
            row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.text.count))
                return cell.rightAligned ? padding + cell.text : cell.text + padding
            }
            .joined(separator: " | ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(result.columns.map { (escapedForTable($0), false) })]
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
        lines += cells.map(line)
        lines.append(result.rows.count == 1 ? "(1 row)" : "(\(result.rows.count) rows)")
        return lines.joined(separator: "\n")
    }

    private static func tableCell(_ value: DatabaseValue) -> (text: String, rightAligned: Bool) {
        switch value {
        case .null: ("NULL", false)
        case .integer(let integer): (String(integer), true)
        case .real(let real): (String(real), true)
        case .text(let text): (escapedForTable(text), false)
        case .blob(let blob): ("x'" + blob.map { String(format: "%02x", $0) }.joined() + "'", false)
        }
    }

    /// Line breaks and tabs shown as `\n`, `\r` and `\t`, so that each row stays on one line.
    private static func escapedForTable(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    // MARK: JSON

    /// A JSON array with one object per row, keys in column order.
    static func json(_ result: QueryResult) -> String {
        guard !result.rows.isEmpty else { return "[]" }
        let objects = result.rows.map { row in
            "  {"
                + zip(result.columns, row).map { column, value in jsonString(column) + ": " + jsonValue(value) }
                .joined(separator: ", ") + "}"
        }
        return "[\n" + objects.joined(separator: ",\n") + "\n]"
    }

    private static func jsonValue(_ value: DatabaseValue) -> String {
        switch value {
        case .null:
            return "null"
        case .integer(let integer):
            return String(integer)
        case .real(let real):
            // JSON has no infinity; like jq, print the largest finite number of the same sign.
            guard real.isFinite else {
                return real.isNaN
                    ? "null" : String(real < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude)
            }
            return String(real)
        case .text(let text):
            return jsonString(text)
        case .blob(let blob):
            return jsonString(blob.base64EncodedString())
        }
    }

    private static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                escaped += String(format: "\\u%04x", scalar.value)
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    // MARK: CSV

    /// A header row and one line per row, quoted as RFC 4180 says; lines end with LF.
    static func csv(_ result: QueryResult) -> String {
        guard !result.columns.isEmpty else { return "" }
        var lines = [result.columns.map(csvField).joined(separator: ",")]
        for row in result.rows {
            lines.append(row.map(csvValue).joined(separator: ","))
        }
        return lines.joined(separator: "\n")
    }

    private static func csvValue(_ value: DatabaseValue) -> String {
        switch value {
        case .null: ""
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .text(let text): csvField(text)
        case .blob(let blob): blob.base64EncodedString()
        }
    }

    private static func csvField(_ text: String) -> String {
        guard
            text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) || text.hasPrefix(" ")
                || text.hasSuffix(" ")
        else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
