internal import PostgresNIO
internal import StrataCore

/// An error PostgreSQL or the connection to it reported: what failed, PostgreSQL's SQLSTATE and message, and the SQL.
///
/// Match on ``code`` for the kind of failure and on ``sqlState`` for PostgreSQL's own code:
///
/// ```swift
/// do {
///     try await pool.write { db in try await db.insert(&user) }
/// } catch let error as PostgresError where error.sqlState == "23505" {
///     // unique_violation: the email is taken
/// }
/// ```
///
/// The description is one line, shaped as Strata's ``DatabaseError`` on SQLite:
/// `PostgreSQL error 23505: duplicate key value violates unique constraint "u_k_key" - while executing `INSERT ...``.
/// Bound values are never part of it: they may be private data.
///
/// Failures that are not PostgreSQL's (a value that does not fit its Swift type, an update of a missing row) are
/// Strata's own ``DatabaseError``s and decoding errors, as on SQLite.
///
/// See https://www.postgresql.org/docs/current/errcodes-appendix.html
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; match the ones you handle.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// PostgreSQL rejected a statement; ``PostgresError/sqlState`` says why.
        public static let server = Code("server")
        /// The server could not be reached: nothing listens at the address, or the network failed.
        public static let connectionFailed = Code("connection failed")
        /// The server refused the user: a wrong password, an unknown role, or no `pg_hba.conf` entry.
        public static let authenticationFailed = Code("authentication failed")
        /// The database the URL names does not exist.
        public static let databaseMissing = Code("database missing")
        /// The connection URL cannot be used.
        public static let invalidURL = Code("invalid URL")
        /// The connection closed, or the pool stopped, while a statement was running or waiting.
        public static let connectionClosed = Code("connection closed")
    }

    /// The kind of failure.
    public let code: Code
    /// PostgreSQL's five-character SQLSTATE, when the server reported the failure (`23505`, `42P01`...).
    public let sqlState: String?
    /// What failed, in one sentence, without the SQL: PostgreSQL's own message when it reported the failure.
    public let message: String
    /// PostgreSQL's detail line, when it sent one (the conflicting key of a unique violation, say).
    public let detail: String?
    /// The SQL that was running, when there was one.
    public let sql: String?

    /// An error of kind `code`.
    init(code: Code, sqlState: String? = nil, message: String, detail: String? = nil, sql: String? = nil) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.sql = sql
    }

    /// `PostgreSQL error 42P01: relation "nope" does not exist - while executing `SELECT * FROM nope``
    public var description: String {
        var text = sqlState.map { "PostgreSQL error \($0): \(message)" } ?? message
        if let detail { text += " (\(detail))" }
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}

extension PostgresError {
    /// The error to throw for `error`, which postgres-nio or the network threw while running `sql` against the
    /// server at `endpoint`. An error that is already Strata's is returned as it is.
    static func translating(_ error: any Error, sql: String?, endpoint: PostgresEndpoint) -> any Error {
        if error is PostgresError || error is DatabaseError || error is DecodingError || error is CancellationError {
            return error
        }
        guard let psqlError = error as? PSQLError else {
            return PostgresError(
                code: .connectionFailed, message: "could not connect to \(endpoint): \(describe(error))", sql: sql)
        }
        if let info = psqlError.serverInfo, let state = info[.sqlState] {
            let message = info[.message] ?? "no message"
            switch state {
            case "28000", "28P01":
                return PostgresError(
                    code: .authenticationFailed, sqlState: state,
                    message: "authentication failed for \(endpoint): \(message)")
            case "3D000":
                return PostgresError(
                    code: .databaseMissing, sqlState: state, message: "\(message) on \(endpoint.hostAndPort)")
            default:
                return PostgresError(
                    code: .server, sqlState: state, message: message, detail: info[.detail], sql: sql)
            }
        }
        switch psqlError.code {
        case .connectionError:
            let reason = psqlError.underlying.map(describe) ?? "connection error"
            return PostgresError(code: .connectionFailed, message: "could not connect to \(endpoint): \(reason)")
        case .authMechanismRequiresPassword:
            return PostgresError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the server asks for a password and the URL has none")
        case .serverClosedConnection, .clientClosedConnection, .poolClosed, .queryCancelled, .uncleanShutdown:
            return PostgresError(
                code: .connectionClosed, message: "the connection to \(endpoint) closed (\(psqlError.code))", sql: sql)
        default:
            return PostgresError(
                code: .connectionFailed, message: "PostgreSQL client error (\(psqlError.code)) with \(endpoint)",
                sql: sql)
        }
    }

    /// A short description of a network or pool error, without postgres-nio's dump of its internals.
    private static func describe(_ error: any Error) -> String {
        if let ioError = error as? IOError {
            // `connect(descriptor:addr:size:): Connection refused (errno: 111)` -> `Connection refused (errno: 111)`
            let text = "\(ioError)"
            if let colon = text.range(of: "): ") { return String(text[colon.upperBound...]) }
            return text
        }
        let text = "\(error)"
        if let connectionRefused = text.range(of: "Connection refused") {
            return String(text[connectionRefused])
        }
        return text.split(separator: "\n").first.map(String.init) ?? text
    }
}
