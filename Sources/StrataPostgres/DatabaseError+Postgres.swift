internal import PostgresNIO
public import StrataCore

/// The error StrataPostgres throws: ``DatabaseError``, as on every backend.
///
/// Kept so that code written before the backends shared one error compiles and means what it did:
/// `catch let error as PostgresError where error.sqlState == "23505"` and `PostgresError.Code.connectionLost` read
/// as ``DatabaseError`` and its codes. Write ``DatabaseError`` in new code, and match a semantic code where there is
/// one (`error.code == .uniqueViolation`): it means the same on SQLite.
///
/// `DatabaseError` also holds what was PostgreSQL's own before: ``DatabaseError/sqlState``,
/// ``DatabaseError/detail`` (which quotes row values, and is never part of the description), and the codes
/// ``DatabaseError/Code/server``, ``DatabaseError/Code/connectionFailed``, ``DatabaseError/Code/authenticationFailed``,
/// ``DatabaseError/Code/databaseMissing``, ``DatabaseError/Code/invalidURL`` and ``DatabaseError/Code/connectionLost``.
public typealias PostgresError = DatabaseError

extension DatabaseError {
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
        if error is DatabaseError || error is DecodingError || error is CancellationError {
            return error
        }
        if error is PostgresConnectionClosedBeforeSending {
            // Nothing was sent: even a COMMIT that never left is certainly not committed.
            return DatabaseError(
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
                return DatabaseError(
                    code: .authenticationFailed, sqlState: state,
                    message: "authentication failed for \(endpoint): \(message)")
            case "3D000":
                return DatabaseError(
                    code: .databaseMissing, sqlState: state, message: "\(message) on \(endpoint.hostAndPort)")
            case _ where phase == .connecting:
                // Too many connections (53300), a server starting up or shutting down (57P03)...
                return DatabaseError(
                    code: .connectionFailed, sqlState: state, message: "could not connect to \(endpoint): \(message)")
            case _ where endsConnection(sqlState: state):
                // The server ends the connection after this error: a FATAL, not a statement's failure.
                return broken(reason: message, sqlState: state, sql: sql, endpoint: endpoint, phase: phase)
            default:
                return DatabaseError(
                    code: Code(sqlState: state), sqlState: state, message: message, detail: info[.detail], sql: sql)
            }
        }
        switch psqlError.code {
        case .authMechanismRequiresPassword:
            return DatabaseError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the server asks for a password and the URL has none")
        case .unsupportedAuthMechanism:
            return DatabaseError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the server asks for an authentication method "
                    + "postgres-nio does not support")
        case .saslError:
            return DatabaseError(
                code: .authenticationFailed,
                message: "authentication failed for \(endpoint): the SCRAM exchange with the server failed")
        case .sslUnsupported:
            return DatabaseError(
                code: .connectionFailed,
                message: "could not connect to \(endpoint): the server does not use TLS, which "
                    + "sslmode=\(endpoint.tls.rawValue) requires")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return DatabaseError(
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
    ) -> DatabaseError {
        switch phase {
        case .connecting:
            return DatabaseError(
                code: .connectionFailed, sqlState: sqlState, message: "could not connect to \(endpoint): \(reason)")
        case .statement:
            return DatabaseError(
                code: .connectionLost, sqlState: sqlState,
                message: "the connection to \(endpoint) was lost: \(reason)", sql: sql)
        case .commit where sqlState == "25P03":
            // idle_in_transaction_session_timeout ended the session before COMMIT ran: it rolled back.
            return DatabaseError(
                code: .connectionLost, sqlState: sqlState,
                message: "the connection to \(endpoint) was lost before COMMIT ran: \(reason)", sql: sql)
        case .commit:
            return DatabaseError(
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
