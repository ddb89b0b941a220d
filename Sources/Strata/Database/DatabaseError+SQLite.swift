internal import CSQLite

extension DatabaseError {
    /// The error SQLite reports for `resultCode` on `connection`.
    static func sqlite(_ resultCode: Int32, connection: OpaquePointer?, sql: String? = nil) -> DatabaseError {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's extended code belongs to the same failure only when its primary part matches.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        let message: String
        if let connection, let cMessage = sqlite3_errmsg(connection) {
            message = String(cString: cMessage)
        } else if let cMessage = sqlite3_errstr(resultCode) {
            message = String(cString: cMessage)
        } else {
            message = "unknown error"
        }
        return DatabaseError(code: .sqlite, resultCode: ResultCode(rawValue: code), message: message, sql: sql)
    }
}

extension ResultCode {
    /// Each named primary code with the value `sqlite3.h` gives it: StrataCore spells the numbers out, since it never
    /// sees the header, and `ErrorTests` checks that they match.
    package static let headerValues: [(code: ResultCode, header: Int32)] = [
        (.error, SQLITE_ERROR),
        (.`internal`, SQLITE_INTERNAL),
        (.permission, SQLITE_PERM),
        (.abort, SQLITE_ABORT),
        (.busy, SQLITE_BUSY),
        (.locked, SQLITE_LOCKED),
        (.noMemory, SQLITE_NOMEM),
        (.readOnly, SQLITE_READONLY),
        (.interrupt, SQLITE_INTERRUPT),
        (.ioError, SQLITE_IOERR),
        (.corrupt, SQLITE_CORRUPT),
        (.full, SQLITE_FULL),
        (.cantOpen, SQLITE_CANTOPEN),
        (.`protocol`, SQLITE_PROTOCOL),
        (.schema, SQLITE_SCHEMA),
        (.tooBig, SQLITE_TOOBIG),
        (.constraint, SQLITE_CONSTRAINT),
        (.mismatch, SQLITE_MISMATCH),
        (.misuse, SQLITE_MISUSE),
        (.range, SQLITE_RANGE),
        (.notADatabase, SQLITE_NOTADB),
    ]
}
