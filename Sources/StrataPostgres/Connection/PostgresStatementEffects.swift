/// What a statement written by the caller may do beyond its result, read from its first words and the functions
/// it names: the pool resets a connection's session only after statements that may have changed it, refuses
/// transaction control inside a `write`, and cancels only statements that change no data.
///
/// ```swift
/// PostgresStatementEffects(sql: "SET TimeZone = 'Asia/Tokyo'").changesSession         // true
/// PostgresStatementEffects(sql: "SELECT * FROM note WHERE id = $1").changesSession     // false
/// PostgresStatementEffects(sql: "SELECT set_config('a.b', 'c', false)").changesSession // true
/// ```
///
/// It errs on the safe side: a statement it does not know changes the session. A function of the caller's own
/// that sets a session setting inside its body is not seen (PostgreSQL restores settings a function declares with
/// `SET` when it returns).
struct PostgresStatementEffects: Equatable, Sendable {
    /// Whether the statement may leave state on the connection for the next request: a setting (`SET`,
    /// `set_config(..., false)`), the role (`SET ROLE`, `SET SESSION AUTHORIZATION`), a temporary table, a
    /// session advisory lock, `LISTEN`, a prepared statement or a held cursor, or code that may do any of these
    /// (`DO`, `CALL`).
    var changesSession = false
    /// Whether the statement begins or ends a transaction (`BEGIN`, `START TRANSACTION`, `COMMIT`, `END`,
    /// `ROLLBACK`, `ABORT`, `PREPARE TRANSACTION`), which a `write` owns.
    var controlsTransaction = false
    /// Whether the statement only reads (`SELECT`, `VALUES`, `TABLE`, `SHOW`, `WITH` without a data-modifying
    /// part): cancelling it on the server changes no data.
    var onlyReads = false
    /// Whether the statement writes rows and may return them (`INSERT`, `UPDATE`, `DELETE`, `MERGE`, `WITH` with a
    /// data-modifying part): the rows it returns are read so that a row that does not decode leaves nothing written.
    var writesRows = false

    /// The effects of `sql`.
    init(sql: String) {
        var words = Words(sql)
        let first = words.next()
        switch first {
        case "SELECT":
            // `SELECT ... INTO table` creates a table.
            onlyReads = !Self.names("INTO", in: sql)
        case "VALUES", "TABLE", "SHOW":
            onlyReads = true
        case "WITH":
            onlyReads = !["INSERT", "UPDATE", "DELETE", "MERGE"].contains { Self.names($0, in: sql) }
            writesRows = !onlyReads
        case "INSERT", "UPDATE", "DELETE", "MERGE":
            writesRows = true
        case "SET":
            // SET LOCAL, SET TRANSACTION and SET CONSTRAINTS last until the transaction ends.
            changesSession = !["LOCAL", "TRANSACTION", "CONSTRAINTS"].contains(words.next())
        case "CREATE":
            // CREATE TEMP TABLE, CREATE LOCAL TEMPORARY TABLE...
            var next = words.next()
            if next == "LOCAL" || next == "GLOBAL" { next = words.next() }
            changesSession = next == "TEMP" || next == "TEMPORARY"
        case "BEGIN", "START", "COMMIT", "END", "ABORT":
            controlsTransaction = true
        case "ROLLBACK":
            // ROLLBACK TO SAVEPOINT stays inside the transaction.
            controlsTransaction = words.next() != "TO"
        case "PREPARE":
            let next = words.next()
            controlsTransaction = next == "TRANSACTION"
            changesSession = next != "TRANSACTION"
        case "COPY", "TRUNCATE", "ALTER", "DROP", "GRANT", "REVOKE", "COMMENT",
            "LOCK", "REFRESH", "VACUUM", "ANALYZE", "ANALYSE", "CLUSTER", "REINDEX", "EXPLAIN", "NOTIFY", "CHECKPOINT",
            "SAVEPOINT", "RELEASE", "SECURITY", "IMPORT", "FETCH", "MOVE", "CLOSE":
            break
        default:
            // RESET, DISCARD, LISTEN, UNLISTEN, DEALLOCATE, DECLARE, LOAD, DO, CALL, and what is not known here
            // (nothing readable: an empty statement, or one this reader does not follow).
            changesSession = true
        }
        if !changesSession && Self.callsSessionFunction(sql) {
            changesSession = true
        }
    }

    /// The built-in functions that change the session: settings, session advisory locks, the random seed, dblink's
    /// named connections.
    private static let sessionFunctions = [
        "SET_CONFIG", "PG_ADVISORY_LOCK", "PG_ADVISORY_LOCK_SHARED", "PG_TRY_ADVISORY_LOCK",
        "PG_TRY_ADVISORY_LOCK_SHARED", "SETSEED", "DBLINK_CONNECT", "DBLINK_CONNECT_U",
    ]

    /// Whether `sql` calls one of ``sessionFunctions``.
    private static func callsSessionFunction(_ sql: String) -> Bool {
        sessionFunctions.contains { contains($0, in: sql, followedBy: 0x28) }
    }

    /// Whether `sql` has `word` (upper case ASCII) as a whole word, in any case.
    private static func names(_ word: String, in sql: String) -> Bool {
        contains(word, in: sql, followedBy: nil)
    }

    /// Whether `sql` has `needle` (upper case ASCII) as a whole word, in any case, followed by the byte `next`
    /// (past white space) when there is one to look for.
    private static func contains(_ needle: String, in sql: String, followedBy next: UInt8?) -> Bool {
        let needle = Array(needle.utf8)
        let text = Array(sql.utf8)
        guard text.count >= needle.count else { return false }
        func isWordByte(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5F || byte >= 0x80
        }
        var start = 0
        while start + needle.count <= text.count {
            var matches = true
            for offset in 0..<needle.count {
                var byte = text[start + offset]
                if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                if byte != needle[offset] {
                    matches = false
                    break
                }
            }
            let end = start + needle.count
            if matches, start == 0 || !isWordByte(text[start - 1]), end == text.count || !isWordByte(text[end]) {
                guard let next else { return true }
                var index = end
                while index < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[index]) { index += 1 }
                if index < text.count && text[index] == next { return true }
            }
            start += 1
        }
        return false
    }

    /// The leading words of a statement in upper case, past white space, comments and opening parentheses.
    private struct Words {
        private let bytes: [UInt8]
        private var index = 0

        init(_ sql: String) {
            bytes = Array(sql.utf8)
        }

        /// The next word, or nil at the end or at anything that is not a word.
        mutating func next() -> String? {
            skipSpace()
            var word: [UInt8] = []
            while index < bytes.count {
                var byte = bytes[index]
                if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                guard (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F else { break }
                word.append(byte)
                index += 1
            }
            return word.isEmpty ? nil : String(decoding: word, as: UTF8.self)
        }

        /// Moves past white space, `--` and `/* */` comments (nested, as PostgreSQL reads them) and `(`.
        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x28:
                    index += 1
                case 0x2D where index + 1 < bytes.count && bytes[index + 1] == 0x2D:
                    while index < bytes.count && bytes[index] != 0x0A { index += 1 }
                case 0x2F where index + 1 < bytes.count && bytes[index + 1] == 0x2A:
                    var depth = 0
                    while index + 1 < bytes.count {
                        if bytes[index] == 0x2F && bytes[index + 1] == 0x2A {
                            depth += 1
                            index += 2
                        } else if bytes[index] == 0x2A && bytes[index + 1] == 0x2F {
                            depth -= 1
                            index += 2
                            if depth == 0 { break }
                        } else {
                            index += 1
                        }
                    }
                    if depth > 0 { index = bytes.count }
                default:
                    return
                }
            }
        }
    }
}
