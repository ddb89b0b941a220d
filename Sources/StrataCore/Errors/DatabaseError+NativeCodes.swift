extension DatabaseError.Code {
    /// The code of a failure SQLite reported with `resultCode`: a semantic code where one means the same on every
    /// backend, ``sqlite`` otherwise.
    ///
    /// `SQLITE_CONSTRAINT_ROWID` (a rowid that is not unique) is a ``uniqueViolation`` as `SQLITE_CONSTRAINT_UNIQUE`
    /// and `SQLITE_CONSTRAINT_PRIMARYKEY` are. `SQLITE_BUSY_SNAPSHOT` is a ``serializationFailure``, not ``busy``: a transaction that read an older snapshot
    /// of a WAL database cannot write, however long it waits; only running the whole transaction again can succeed,
    /// as after PostgreSQL's `40001`.
    ///
    /// See https://www.sqlite.org/rescode.html
    package init(resultCode: ResultCode) {
        switch resultCode {
        case .constraintUnique, .constraintPrimaryKey, Self.constraintRowID: self = .uniqueViolation
        case .constraintForeignKey: self = .foreignKeyViolation
        case .constraintNotNull: self = .notNullViolation
        case .constraintCheck: self = .checkViolation
        case .busySnapshot: self = .serializationFailure
        default:
            switch resultCode.primary {
            case .busy, .locked: self = .busy
            case .readOnly: self = .readOnly
            default: self = .sqlite
            }
        }
    }

    /// `SQLITE_CONSTRAINT_ROWID`.
    private static let constraintRowID = ResultCode(rawValue: 19 | (10 << 8))

    /// The code of a failure PostgreSQL reported with `sqlState`: a semantic code where one means the same on every
    /// backend, ``server`` otherwise.
    ///
    /// See https://www.postgresql.org/docs/current/errcodes-appendix.html
    package init(sqlState: String) {
        switch sqlState {
        case "23505": self = .uniqueViolation  // unique_violation
        case "23503": self = .foreignKeyViolation  // foreign_key_violation
        case "23502": self = .notNullViolation  // not_null_violation
        case "23514": self = .checkViolation  // check_violation
        case "55P03": self = .busy  // lock_not_available
        case "40001", "40P01": self = .serializationFailure  // serialization_failure, deadlock_detected
        case "25006": self = .readOnly  // read_only_sql_transaction
        case "28000", "28P01": self = .authenticationFailed  // invalid_authorization_specification, invalid_password
        case "3D000": self = .databaseMissing  // invalid_catalog_name
        default: self = .server
        }
    }
}

extension DatabaseError {
    /// Whether the database itself refused the statement, and its code is the one its result code or SQLSTATE
    /// maps to: a constraint, a lock, a syntax error, a missing table. Not a connection that broke, a commit whose
    /// outcome is unknown, nor one of Strata's own checks (which may carry the database's code they explain).
    package var isRefusalByDatabase: Bool {
        if let resultCode { return code == Code(resultCode: resultCode) }
        if let sqlState { return code == Code(sqlState: sqlState) }
        return false
    }

    /// `message` with the values it may quote hidden: in a PostgreSQL data exception's (SQLSTATE class 22), the text
    /// from the first to the last double quote becomes `"…"` (a value may itself hold quotes), and bytes written
    /// `0x..` become `0x…`. Other classes quote names (of tables, columns, constraints, types), which stay.
    package static func hidingValues(in message: String, sqlState: String) -> String {
        guard sqlState.hasPrefix("22") else { return message }
        var text = message
        if let first = text.firstIndex(of: "\""), let last = text.lastIndex(of: "\""), first < last {
            text.replaceSubrange(first...last, with: "\"…\"")
        }
        var hidden = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("0x") {
                hidden += "0x…"
                index = text.index(index, offsetBy: 2)
                while index < text.endIndex, text[index].isHexDigit { index = text.index(after: index) }
            } else {
                hidden.append(text[index])
                index = text.index(after: index)
            }
        }
        return hidden
    }
}
