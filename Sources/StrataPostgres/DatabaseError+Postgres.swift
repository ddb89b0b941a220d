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
        /// The pool was closed: ``PostgresPool/close()`` was called, or its ``PostgresPool/run()`` ended, before
        /// the request.
        public static let connectionClosed = Code("connection closed")
        /// The connection broke before the statement's answer came: the server ended it (a restart,
        /// `pg_terminate_backend`, `idle_in_transaction_session_timeout`) or the network failed. **Nothing of the
        /// `write` it ran in committed**; the pool opens a new connection for the next request.
        public static let connectionLost = Code("connection lost")
        /// The connection broke while `COMMIT` was running: it was sent and no answer came, so **the transaction may
        /// or may not have committed**. Check what is in the database before retrying the write.
        public static let commitOutcomeUnknown = Code("commit outcome unknown")
        /// A statement was refused without reaching the server because an earlier statement of the same
        /// transaction block failed (PostgreSQL aborts a transaction at its first error). The block rolls back and
        /// throws that first failure when it ends; run a statement that may fail in a nested
        /// ``PostgresSession/transaction(_:)`` to go on after it.
        public static let transactionAborted = Code("transaction aborted")
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
    /// What a failed statement was doing when the error came, which decides its code.
    enum Phase {
        /// Opening a connection: any failure is ``Code/connectionFailed`` (or a refusal of the role or database).
        case connecting
        /// Running a statement other than `COMMIT`.
        case statement
        /// Running `COMMIT`: a connection that breaks now leaves the outcome unknown.
        case commit
    }

    /// The error to throw for `error`, which postgres-nio or the network threw while running `sql` against the
    /// server at `endpoint` during `phase`. An error that is already Strata's is returned as it is.
    ///
    /// Messages are one line in plain words: postgres-nio's and NIO's type and case names never show.
    static func translating(
        _ error: any Error, sql: String?, endpoint: PostgresEndpoint, phase: Phase = .statement
    ) -> any Error {
        if error is PostgresError || error is DatabaseError || error is DecodingError || error is CancellationError {
            return error
        }
        if error is PostgresConnectionClosedBeforeSending {
            // Nothing was sent: even a COMMIT that never left is certainly not committed.
            return PostgresError(
                code: phase == .connecting ? .connectionFailed : .connectionLost,
                message: "the connection to \(endpoint) was closed by the server before the statement was sent",
                sql: sql)
        }
        guard let psqlError = error as? PSQLError else {
            return broken(
                reason: describe(error, endpoint: endpoint), sqlState: nil, sql: sql, endpoint: endpoint, phase: phase)
        }
        if psqlError.serverInfo == nil, let fatal = psqlError.underlying as? PSQLError, fatal.serverInfo != nil {
            // The connection closed after the server's FATAL error, which says why.
            return translating(fatal, sql: sql, endpoint: endpoint, phase: phase)
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
            case _ where phase == .connecting:
                // Too many connections (53300), a server starting up or shutting down (57P03)...
                return PostgresError(
                    code: .connectionFailed, sqlState: state, message: "could not connect to \(endpoint): \(message)")
            case _ where endsConnection(sqlState: state):
                // The server ends the connection after this error: a FATAL, not a statement's failure.
                return broken(reason: message, sqlState: state, sql: sql, endpoint: endpoint, phase: phase)
            default:
                return PostgresError(
                    code: .server, sqlState: state, message: message, detail: info[.detail], sql: sql)
            }
        }
        switch psqlError.code {
        case .authMechanismRequiresPassword:
            return PostgresError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the server asks for a password and the URL has none")
        case .unsupportedAuthMechanism:
            return PostgresError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the server asks for an authentication method "
                    + "postgres-nio does not support")
        case .saslError:
            return PostgresError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the SCRAM exchange with the server failed")
        case .sslUnsupported:
            return PostgresError(
                code: .connectionFailed,
                message: "could not connect to \(endpoint): the server does not use TLS, which "
                    + "sslmode=\(endpoint.tls.rawValue) requires")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return PostgresError(
                code: .connectionFailed, message: "could not connect to \(endpoint): TLS could not be set up")
        case .poolClosed:
            return PostgresPool.closedError(endpoint: endpoint, sql: sql)
        case .queryCancelled:
            return CancellationError()
        case .tooManyParameters:
            return DatabaseError(
                code: .invalidArgument, message: "a PostgreSQL statement takes at most 65,535 parameters", sql: sql)
        case .connectionError:
            let reason = psqlError.underlying.map { describe($0, endpoint: endpoint) } ?? "the network failed"
            return broken(reason: reason, sqlState: nil, sql: sql, endpoint: endpoint, phase: phase)
        case .serverClosedConnection, .uncleanShutdown:
            return broken(
                reason: "the server closed the connection", sqlState: nil, sql: sql, endpoint: endpoint, phase: phase)
        case .clientClosedConnection:
            return broken(
                reason: "the connection was closed (a cancelled statement did not stop)", sqlState: nil, sql: sql,
                endpoint: endpoint, phase: phase)
        case .messageDecodingFailure, .unexpectedBackendMessage, .invalidCommandTag:
            return broken(
                reason: "the server sent a message the client could not read", sqlState: nil, sql: sql,
                endpoint: endpoint, phase: phase)
        default:
            return broken(
                reason: "the PostgreSQL client failed", sqlState: nil, sql: sql, endpoint: endpoint, phase: phase)
        }
    }

    /// The error of a connection that could not be opened, broke, or broke during `COMMIT`.
    private static func broken(
        reason: String, sqlState: String?, sql: String?, endpoint: PostgresEndpoint, phase: Phase
    ) -> PostgresError {
        switch phase {
        case .connecting:
            return PostgresError(
                code: .connectionFailed, sqlState: sqlState, message: "could not connect to \(endpoint): \(reason)")
        case .statement:
            return PostgresError(
                code: .connectionLost, sqlState: sqlState,
                message: "the connection to \(endpoint) was lost: \(reason)", sql: sql)
        case .commit where sqlState == "25P03":
            // idle_in_transaction_session_timeout ended the session before COMMIT ran: it rolled back.
            return PostgresError(
                code: .connectionLost, sqlState: sqlState,
                message: "the connection to \(endpoint) was lost before COMMIT ran: \(reason)", sql: sql)
        case .commit:
            return PostgresError(
                code: .commitOutcomeUnknown, sqlState: sqlState,
                message: "the connection to \(endpoint) was lost while COMMIT ran (\(reason)): the transaction may "
                    + "or may not have committed; check before retrying",
                sql: sql)
        }
    }

    /// Whether the server ends the connection with an error of `sqlState`: an administrator's or a crash's
    /// shutdown, a dropped database, a session or idle-in-transaction timeout, or a connection exception.
    static func endsConnection(sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState == "25P03"
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
        if let channelError = error as? ChannelError {
            switch channelError {
            case .connectTimeout(let timeout):
                return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed:
                return "the connection closed"
            default:
                return "the network failed"
            }
        }
        // NIO's connection error (NIOPosix, not imported here): a DNS failure, or one failure per address tried.
        let children = Mirror(reflecting: error).children
        if children.contains(where: { ["dnsAError", "dnsAAAAError"].contains($0.label) && $0.value is any Error }) {
            return "the host name could not be resolved"
        }
        if let attempts = children.first(where: { $0.label == "connectionErrors" })?.value as? [Any],
            let attempt = attempts.first,
            let underlying = Mirror(reflecting: attempt).children.first(where: { $0.label == "error" })?.value
                as? any Error
        {
            return describe(underlying, endpoint: endpoint)
        }
        let text = "\(error)".split(separator: "\n").first.map(String.init) ?? ""
        // A dump of a type (`SomeError(field: ...)`, `SomeError.case`) says nothing a reader can act on.
        let name = text.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
        if name.isEmpty || text.dropFirst(name.count).first.map({ $0 == "(" || $0 == "." }) == true {
            return "the network failed"
        }
        return text
    }
}

/// A statement was not sent because its connection had already closed (postgres-nio 1.33.2 would wait forever
/// for the answer of a query written to a closed channel).
struct PostgresConnectionClosedBeforeSending: Error {}
