/// A SQLite result code, primary or extended.
///
/// Compare with the static members; an extended code such as ``constraintUnique`` has
/// ``primary`` ``constraint``:
///
/// ```swift
/// catch let error as DatabaseError where error.resultCode?.primary == .constraint { ... }
/// ```
///
/// The codes are SQLite's own numbers, as `sqlite3.h` defines them; `ErrorTests` checks them against it.
///
/// See https://www.sqlite.org/rescode.html
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low eight bits of an extended code.
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// The symbolic name, such as `SQLITE_CONSTRAINT_UNIQUE` or `SQLITE_IOERR_SHMSIZE`: every code `sqlite3.h` names
    /// has its name. A code SQLite adds later reads as its primary name and number (`SQLITE_IOERR (extended 9994)`).
    public var name: String {
        Self.names[rawValue] ?? Self.names[rawValue & 0xFF].map { "\($0) (extended \(rawValue))" }
            ?? "SQLITE_UNKNOWN_\(rawValue)"
    }

    public var description: String { name }

    public static let error = ResultCode(rawValue: 1)  // SQLITE_ERROR
    public static let `internal` = ResultCode(rawValue: 2)  // SQLITE_INTERNAL
    public static let permission = ResultCode(rawValue: 3)  // SQLITE_PERM
    public static let abort = ResultCode(rawValue: 4)  // SQLITE_ABORT
    public static let busy = ResultCode(rawValue: 5)  // SQLITE_BUSY
    public static let locked = ResultCode(rawValue: 6)  // SQLITE_LOCKED
    public static let noMemory = ResultCode(rawValue: 7)  // SQLITE_NOMEM
    public static let readOnly = ResultCode(rawValue: 8)  // SQLITE_READONLY
    public static let interrupt = ResultCode(rawValue: 9)  // SQLITE_INTERRUPT
    public static let ioError = ResultCode(rawValue: 10)  // SQLITE_IOERR
    public static let corrupt = ResultCode(rawValue: 11)  // SQLITE_CORRUPT
    public static let full = ResultCode(rawValue: 13)  // SQLITE_FULL
    public static let cantOpen = ResultCode(rawValue: 14)  // SQLITE_CANTOPEN
    public static let `protocol` = ResultCode(rawValue: 15)  // SQLITE_PROTOCOL
    public static let schema = ResultCode(rawValue: 17)  // SQLITE_SCHEMA
    public static let tooBig = ResultCode(rawValue: 18)  // SQLITE_TOOBIG
    public static let constraint = ResultCode(rawValue: 19)  // SQLITE_CONSTRAINT
    public static let mismatch = ResultCode(rawValue: 20)  // SQLITE_MISMATCH
    public static let misuse = ResultCode(rawValue: 21)  // SQLITE_MISUSE
    public static let range = ResultCode(rawValue: 25)  // SQLITE_RANGE
    public static let notADatabase = ResultCode(rawValue: 26)  // SQLITE_NOTADB

    public static let constraintCheck = ResultCode(rawValue: 19 | (1 << 8))
    public static let constraintForeignKey = ResultCode(rawValue: 19 | (3 << 8))
    public static let constraintNotNull = ResultCode(rawValue: 19 | (5 << 8))
    public static let constraintPrimaryKey = ResultCode(rawValue: 19 | (6 << 8))
    public static let constraintUnique = ResultCode(rawValue: 19 | (8 << 8))
    public static let busySnapshot = ResultCode(rawValue: 5 | (2 << 8))

    /// The primary codes, and every extended code of https://www.sqlite.org/rescode.html (`ErrorTests` checks the
    /// extended ones against `sqlite3.h`).
    private static let names: [Int32: String] = [
        0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
        5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT",
        10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL",
        14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA",
        18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE",
        22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
        27: "SQLITE_NOTICE", 28: "SQLITE_WARNING", 100: "SQLITE_ROW", 101: "SQLITE_DONE",
        // Extended codes: the primary code in the low byte, the detail above it.
        256: "SQLITE_OK_LOAD_PERMANENTLY", 512: "SQLITE_OK_SYMLINK", 257: "SQLITE_ERROR_MISSING_COLLSEQ",
        513: "SQLITE_ERROR_RETRY", 769: "SQLITE_ERROR_SNAPSHOT", 516: "SQLITE_ABORT_ROLLBACK",
        261: "SQLITE_BUSY_RECOVERY", 517: "SQLITE_BUSY_SNAPSHOT", 773: "SQLITE_BUSY_TIMEOUT",
        262: "SQLITE_LOCKED_SHAREDCACHE", 518: "SQLITE_LOCKED_VTAB", 264: "SQLITE_READONLY_RECOVERY",
        520: "SQLITE_READONLY_CANTLOCK", 776: "SQLITE_READONLY_ROLLBACK", 1032: "SQLITE_READONLY_DBMOVED",
        1288: "SQLITE_READONLY_CANTINIT", 1544: "SQLITE_READONLY_DIRECTORY", 266: "SQLITE_IOERR_READ",
        522: "SQLITE_IOERR_SHORT_READ", 778: "SQLITE_IOERR_WRITE", 1034: "SQLITE_IOERR_FSYNC",
        1290: "SQLITE_IOERR_DIR_FSYNC", 1546: "SQLITE_IOERR_TRUNCATE", 1802: "SQLITE_IOERR_FSTAT",
        2058: "SQLITE_IOERR_UNLOCK", 2314: "SQLITE_IOERR_RDLOCK", 2570: "SQLITE_IOERR_DELETE",
        2826: "SQLITE_IOERR_BLOCKED", 3082: "SQLITE_IOERR_NOMEM", 3338: "SQLITE_IOERR_ACCESS",
        3594: "SQLITE_IOERR_CHECKRESERVEDLOCK", 3850: "SQLITE_IOERR_LOCK", 4106: "SQLITE_IOERR_CLOSE",
        4362: "SQLITE_IOERR_DIR_CLOSE", 4618: "SQLITE_IOERR_SHMOPEN", 4874: "SQLITE_IOERR_SHMSIZE",
        5130: "SQLITE_IOERR_SHMLOCK", 5386: "SQLITE_IOERR_SHMMAP", 5642: "SQLITE_IOERR_SEEK",
        5898: "SQLITE_IOERR_DELETE_NOENT", 6154: "SQLITE_IOERR_MMAP", 6410: "SQLITE_IOERR_GETTEMPPATH",
        6666: "SQLITE_IOERR_CONVPATH", 6922: "SQLITE_IOERR_VNODE", 7178: "SQLITE_IOERR_AUTH",
        7434: "SQLITE_IOERR_BEGIN_ATOMIC", 7690: "SQLITE_IOERR_COMMIT_ATOMIC", 7946: "SQLITE_IOERR_ROLLBACK_ATOMIC",
        8202: "SQLITE_IOERR_DATA", 8458: "SQLITE_IOERR_CORRUPTFS", 8714: "SQLITE_IOERR_IN_PAGE",
        267: "SQLITE_CORRUPT_VTAB", 523: "SQLITE_CORRUPT_SEQUENCE", 779: "SQLITE_CORRUPT_INDEX",
        270: "SQLITE_CANTOPEN_NOTEMPDIR", 526: "SQLITE_CANTOPEN_ISDIR", 782: "SQLITE_CANTOPEN_FULLPATH",
        1038: "SQLITE_CANTOPEN_CONVPATH", 1294: "SQLITE_CANTOPEN_DIRTYWAL", 1550: "SQLITE_CANTOPEN_SYMLINK",
        275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK", 787: "SQLITE_CONSTRAINT_FOREIGNKEY",
        1043: "SQLITE_CONSTRAINT_FUNCTION", 1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
        1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE", 2323: "SQLITE_CONSTRAINT_VTAB",
        2579: "SQLITE_CONSTRAINT_ROWID", 2835: "SQLITE_CONSTRAINT_PINNED", 3091: "SQLITE_CONSTRAINT_DATATYPE",
        279: "SQLITE_AUTH_USER", 283: "SQLITE_NOTICE_RECOVER_WAL", 539: "SQLITE_NOTICE_RECOVER_ROLLBACK",
        795: "SQLITE_NOTICE_RBU", 284: "SQLITE_WARNING_AUTOINDEX",
    ]
}
