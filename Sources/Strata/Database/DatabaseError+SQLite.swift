internal import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DatabaseError {
    /// The error SQLite reports for `resultCode` on `connection`.
    ///
    /// For an I/O error, the message ends with the operating system's error, as `sqlite3_system_errno` gives it:
    /// `disk I/O error: errno 5 (Input/output error)`.
    ///
    /// - Parameter filesOf: The connection whose files to ask for the operating system's error when `connection` is
    ///   nil (a failed backup step leaves its message on neither connection).
    static func sqlite(
        _ resultCode: Int32, connection: OpaquePointer?, sql: String? = nil, filesOf: OpaquePointer? = nil
    ) -> DatabaseError {
        // Read first: the failing call left it, and nothing below may change it before it is used.
        let threadErrno = errno
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? resultCode
        // The connection's extended code belongs to the same failure only when its primary part matches.
        let code = (extended & 0xFF) == (resultCode & 0xFF) ? extended : resultCode
        var message: String
        if let connection, let cMessage = sqlite3_errmsg(connection) {
            message = String(cString: cMessage)
        } else if let cMessage = sqlite3_errstr(resultCode) {
            message = String(cString: cMessage)
        } else {
            message = "unknown error"
        }
        if let files = connection ?? filesOf,
            let systemError = systemError(of: code, message: message, on: files, threadErrno: threadErrno)
        {
            message += systemError
        }
        let resultCode = ResultCode(rawValue: code)
        return DatabaseError(code: Code(resultCode: resultCode), resultCode: resultCode, message: message, sql: sql)
    }

    /// What the operating system reported behind `code`, to append to SQLite's message; nil when it reported nothing
    /// that bears on it.
    ///
    /// - `SQLITE_IOERR`, `SQLITE_CANTOPEN`: `: errno 5 (Input/output error)`, from `sqlite3_system_errno`, which
    ///   SQLite records when a statement fails with these codes, or else (a `COMMIT` whose sync failed records
    ///   nothing there) the last error the operating system reported on the database's file or its journal or WAL,
    ///   or else (a rollback journal deleted since) the calling thread's `errno` when it is an I/O error.
    /// - `SQLITE_CORRUPT`, `SQLITE_NOTADB`, and a "no such ..." `SQLITE_ERROR`: SQLite's unix VFS reports a read that
    ///   fails with EIO as corruption, and a schema it could not read lacks the table. When the last error the
    ///   operating system reported on the database's file, or on its journal or WAL, is an I/O error, the message says
    ///   so: the disk may be failing while the file is sound. (That errno stays on the file until the next failure, so
    ///   on a connection that met an I/O error before, it may belong to that one: hence "last".)
    ///
    /// See https://www.sqlite.org/c3ref/system_errno.html and https://www.sqlite.org/rescode.html#ioerr_corruptfs
    private static func systemError(
        of code: Int32, message: String, on connection: OpaquePointer, threadErrno: Int32
    ) -> String? {
        switch code & 0xFF {
        case SQLITE_IOERR, SQLITE_CANTOPEN:
            let candidates = [
                sqlite3_system_errno(connection), strata_last_file_errno(connection, "main", 0),
                strata_last_file_errno(connection, "main", 1), ioErrnos.contains(threadErrno) ? threadErrno : 0,
            ]
            return candidates.first { $0 != 0 }.map { ": " + describeSystemError($0) }
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            break
        case SQLITE_ERROR where message.hasPrefix("no such "):
            break
        default:
            return nil
        }
        let number = [strata_last_file_errno(connection, "main", 0), strata_last_file_errno(connection, "main", 1)]
            .first { ioErrnos.contains($0) }
        guard let number else { return nil }
        return " (the last error the operating system reported on the database's files is "
            + "\(describeSystemError(number)): the disk may be failing rather than the file damaged)"
    }

    /// The errnos of a device that fails to read or write, as opposed to a lock or a missing file.
    private static let ioErrnos: Set<Int32> = [EIO, ENXIO, ERANGE, ENODEV, ENOSPC, EDQUOT, EROFS]
}

/// `errno 28 (No space left on device)`
func describeSystemError(_ number: Int32) -> String {
    "errno \(number) (\(String(cString: strerror(number))))"
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

    /// Each extended code `sqlite3.h` defines, by name, with its value: `ErrorTests` checks that ``ResultCode/name``
    /// gives every one its name, so that no message shows a bare number such as `SQLITE_IOERR (extended 4874)`.
    package static var extendedHeaderValues: [(name: String, header: Int32)] {
        var values: [(name: String, header: Int32)] = []
        var index: Int32 = 0
        while true {
            let entry = strata_extended_result_code(index)
            guard let name = entry.name else { return values }
            values.append((String(cString: name), entry.code))
            index += 1
        }
    }
}
