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
/// Values are never part of it, for they may be private data: not the bound values, not PostgreSQL's ``detail``
/// line (which quotes row values), and not the value a data exception's ``message`` quotes (SQLSTATE class 22, such
/// as `invalid input syntax for type integer: "…"`). The properties keep PostgreSQL's text as it came.
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
    ///
    /// The message of a data exception (SQLSTATE class 22) may quote the value that failed, which may be private
    /// data: `invalid input syntax for type integer: "12a"`, `value "99999999999" is out of range for type integer`.
    /// The ``description`` shows it with the quoted text replaced by `"…"`.
    public let message: String
    /// PostgreSQL's detail line, when it sent one: the conflicting key of a unique violation
    /// (`Key (email)=(ada@example.com) already exists.`), the row a constraint refused (`Failing row contains
    /// (...)`). It quotes row values, which may be private data: it is never part of the ``description``; log it
    /// only where such data may go.
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
    ///
    /// Without ``detail``, and with the values a data exception's message quotes hidden.
    public var description: String {
        var text = summary
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// `PostgreSQL error 22P02: invalid input syntax for type integer: "…"`: the SQLSTATE and the message, with the
    /// values a data exception's message quotes hidden; without the detail and the SQL.
    var summary: String {
        sqlState.map { "PostgreSQL error \($0): \(Self.hidingValues(in: message, sqlState: $0))" } ?? message
    }

    /// `message` with the values it may quote hidden: in a data exception's (SQLSTATE class 22), the text from the
    /// first to the last double quote becomes `"…"` (a value may itself hold quotes), and bytes written `0x..`
    /// become `0x…`. Other classes quote names (of tables, columns, constraints, types), which stay.
    static func hidingValues(in message: String, sqlState: String) -> String {
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

extension PostgresError {
    /// The error to throw for `error`, which postgres-nio or the network threw while running `sql` against the
    /// server at `endpoint`. An error that is already Strata's is returned as it is.
    static func translating(_ error: any Error, sql: String?, endpoint: PostgresEndpoint) -> any Error {
        if error is PostgresError || error is DatabaseError || error is DecodingError || error is CancellationError {
            return error
        }
        guard let psqlError = error as? PSQLError else {
            return PostgresError(
                code: .connectionFailed,
                message: "could not connect to \(endpoint): \(describe(error, endpoint: endpoint))",
                sql: sql)
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
            let reason = psqlError.underlying.map { describe($0, endpoint: endpoint) } ?? "connection error"
            return PostgresError(code: .connectionFailed, message: "could not connect to \(endpoint): \(reason)")
        case .sslUnsupported:
            return PostgresError(
                code: .connectionFailed,
                message: "could not connect to \(endpoint): the server does not use TLS, which "
                    + "sslmode=\(endpoint.tls.rawValue) requires")
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

    /// A short description of a network, TLS or pool error, without postgres-nio's or BoringSSL's dump of their
    /// internals.
    private static func describe(_ error: any Error, endpoint: PostgresEndpoint) -> String {
        if let tlsError = error as? NIOSSLExtraError, tlsError == .failedToValidateHostname {
            return "the server's TLS certificate is not issued for this host "
                + "(sslmode=\(endpoint.tls.rawValue) checks the host name)"
        }
        if let tlsError = error as? NIOSSLError, case .handshakeFailed(let reason) = tlsError {
            // `sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at
            // /path/handshake.cc:320])`: each error's reason is the word after `OPENSSL_internal:`.
            let text = "\(reason)"
            var reasons: [String] = []
            var rest = text[...]
            while let routines = rest.range(of: "OPENSSL_internal:") {
                let word = rest[routines.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                reasons.append(String(word))
                rest = rest[routines.upperBound...]
            }
            if reasons.contains("CERTIFICATE_VERIFY_FAILED") {
                return "the server's TLS certificate is not signed by a trusted certificate "
                    + "(sslmode=\(endpoint.tls.rawValue) checks the chain, against sslrootcert or the system's)"
            }
            return "the TLS handshake failed" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))")
        }
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
