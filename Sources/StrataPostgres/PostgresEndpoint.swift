import Foundation
internal import PostgresNIO
internal import StrataCore

/// Where a pool connects, read from a `postgres://user:password@host:port/database?sslmode=...` URL as libpq reads it.
///
/// - The host is a name, an IPv4 address, an IPv6 address in brackets (`[::1]`), or the folder of a Unix socket: a
///   percent-encoded path (`%2Fvar%2Frun%2Fpostgresql`) or `?host=/var/run/postgresql` with an empty host part.
///   The socket is the folder's `.s.PGSQL.PORT`.
/// - The query may set `sslmode` (`disable`, `allow`, `prefer` the default, `require`, `verify-ca`, `verify-full`),
///   `sslrootcert` (a PEM file of the certificates that may sign the server's, or `system`), `host`, `port`, and
///   `options` and `application_name`, which each connection sends the server when it starts, as libpq does, and
///   `connect_timeout`, the seconds a connection waits for the server to answer (by default `PGCONNECT_TIMEOUT`'s
///   from the environment, as libpq reads it, or else 10; 0 or less waits as long as the system does; the least is 2,
///   as in libpq).
/// - User name, password, host, database and query are percent-decoded: a password with `@`, `/` or `%` is written
///   `%40`, `%2F`, `%25`. As in libpq, the user part ends at the first `@` before any `/`, so a raw `#` or `?` in a
///   password is read as part of it.
///
/// The password is never part of the description, nor of any error: an error about a URL shows it with the
/// password replaced by `***`, even when the URL does not parse.
struct PostgresEndpoint: Sendable, CustomStringConvertible {
    /// How the connection uses TLS, from the URL's `sslmode`, as libpq reads it.
    enum TLSMode: String, Sendable, CaseIterable {
        /// Never.
        case disable
        /// When the server offers it; Strata asks for it first, as with `prefer` (libpq asks last).
        case allow
        /// When the server offers it.
        case prefer
        /// Always: a server without TLS is refused.
        case require
        /// Always, with the server's certificate chain checked against `sslrootcert`.
        case verifyCA = "verify-ca"
        /// Always, with the chain checked and the server's certificate issued for the host of the URL.
        case verifyFull = "verify-full"
    }

    /// What the connection checks of the server's certificate.
    enum Verification: Sendable {
        /// Nothing: the connection is encrypted, but any certificate is accepted.
        case none
        /// That a root of `roots` signed the certificate chain; not the host name it was issued for.
        case chain(TrustRoots)
        /// That a root of `roots` signed the chain, and that the certificate names the host of the URL (its name,
        /// or its IP address; swift-nio-ssl also accepts the address a name resolved to).
        case chainAndHost(TrustRoots)
    }

    /// The certificates that may sign the server's certificate chain.
    enum TrustRoots: Sendable {
        /// The operating system's trusted certificates (`sslrootcert=system`).
        case system
        /// The certificates of the `sslrootcert` file.
        case certificates([NIOSSLCertificate])
    }

    /// How the server is reached.
    enum Address: Sendable, Equatable {
        /// A host name or IP address, and a port.
        case tcp(host: String, port: Int)
        /// The Unix socket of the server listening on `port`, in `directory`.
        case unixSocket(directory: String, port: Int)
    }

    /// How the server is reached.
    let address: Address
    /// The role to connect as.
    let username: String
    /// The password, when the URL has one.
    let password: String?
    /// The database; nil for the server's default (the role's name).
    let database: String?
    /// Whether the connection uses TLS; never on a Unix socket, as in libpq.
    let tls: TLSMode
    /// What the connection checks of the server's certificate when it uses TLS.
    let verification: Verification
    /// Settings sent when each connection starts: the URL's `options` and `application_name`.
    let startupParameters: [(String, String)]
    /// How long a connection waits for the server to answer: the URL's `connect_timeout`.
    let connectTimeout: Duration

    /// The wait for the server's answer without `connect_timeout` nor `PGCONNECT_TIMEOUT`.
    static let defaultConnectTimeout = Duration.seconds(10)

    /// The wait for the server's answer that `connect_timeout` (or `PGCONNECT_TIMEOUT`) gives, nil when it is not a
    /// whole number: as in libpq, 0 or less waits as long as the system's own TCP timeout, and 1 means 2.
    static func connectTimeout(seconds text: String) -> Duration? {
        guard let seconds = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        return seconds <= 0 ? .seconds(24 * 3600) : .seconds(max(seconds, 2))
    }

    /// Reads `url`.
    ///
    /// - Throws: ``DatabaseError/Code/invalidURL`` for a URL that is not `postgres://` or `postgresql://`, has no
    ///   host or user, a port out of range, a malformed percent escape, several hosts, an unknown parameter, an
    ///   `sslmode` libpq does not have, `sslrootcert=system` with a mode weaker than `verify-full`, `verify-ca`
    ///   without `sslrootcert`, or an `sslrootcert` file that holds no certificate.
    init(url: String) throws {
        let parser = PostgresURLParser(url: url)
        let parts = try parser.parse()
        func invalid(_ reason: String) -> DatabaseError { parser.invalid(reason) }

        var tls = TLSMode.prefer
        var tlsGiven = false
        var rootCertificate: String?
        var queryHost: String?
        var queryPort: String?
        var startupParameters: [(String, String)] = []
        var connectTimeout = Self.defaultConnectTimeout
        if let text = ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"], !text.isEmpty {
            guard let timeout = Self.connectTimeout(seconds: text) else {
                throw invalid("PGCONNECT_TIMEOUT in the environment must be a whole number of seconds, not \"\(text)\"")
            }
            connectTimeout = timeout
        }
        var seen: Set<String> = []
        for (name, value) in parts.parameters {
            guard seen.insert(name).inserted else { throw invalid("the parameter \"\(name)\" is given twice") }
            switch name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw invalid(
                        "sslmode must be " + TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                            + ", not \"\(value)\"")
                }
                tls = mode
                tlsGiven = true
            case "sslrootcert":
                rootCertificate = value
            case "host":
                queryHost = value
            case "port":
                queryPort = value
            case "connect_timeout":
                guard let timeout = Self.connectTimeout(seconds: value) else {
                    throw invalid("connect_timeout must be a whole number of seconds, not \"\(value)\"")
                }
                connectTimeout = timeout
            case "options", "application_name":
                // Sent to the server at startup, as libpq does: `options=-c search_path=app` sets a setting on
                // every connection; `application_name` names them in pg_stat_activity.
                startupParameters.append((name, value))
            default:
                throw invalid(
                    "unknown parameter \"\(name)\"; sslmode, sslrootcert, host, port, connect_timeout, options and "
                        + "application_name are read")
            }
        }

        let host: String
        switch (parts.host, queryHost) {
        case (let authority?, nil): host = authority
        case (nil, let query?): host = query
        case (nil, nil): throw invalid("no host (postgres://user@HOST/database, or ?host=/folder/of/the/socket)")
        case (_?, _?): throw invalid("the host is given twice, in the URL and in ?host=")
        }
        guard !host.isEmpty else { throw invalid("the host is empty") }
        let port: Int
        switch (parts.port, queryPort) {
        case (let authority?, nil): port = try parser.port(authority)
        case (nil, let query?): port = try parser.port(query)
        case (nil, nil): port = 5432
        case (_?, _?): throw invalid("the port is given twice, in the URL and in ?port=")
        }
        guard let username = parts.username, !username.isEmpty else {
            throw invalid("no user name (postgres://USER@host/database)")
        }

        // sslrootcert=system asks for the system's roots, which sign certificates for anyone's host names: libpq
        // (16) makes it verify-full by default and refuses a weaker mode, and so does Strata.
        if rootCertificate == "system" {
            if !tlsGiven {
                tls = .verifyFull
            } else if tls != .verifyFull {
                throw invalid(
                    "sslmode=\(tls.rawValue) cannot be used with sslrootcert=system: the system's certificates sign "
                        + "certificates for any host, so only verify-full checks anything (as in libpq)")
            }
        }
        var roots: TrustRoots?
        if let path = rootCertificate, path != "system", tls != .disable {
            roots = .certificates(try Self.readCertificates(path, invalid: invalid))
        }
        switch tls {
        case .disable: verification = .none
        case .allow, .prefer, .require:
            // libpq too checks the chain in these modes when it has a root certificate (require is then verify-ca).
            verification = roots.map { .chain($0) } ?? .none
        case .verifyCA:
            guard let roots else {
                throw invalid(
                    "sslmode=verify-ca needs sslrootcert=FILE, the certificate of the authority that signed the "
                        + "server's (with the system's certificates, use verify-full)")
            }
            verification = .chain(roots)
        case .verifyFull:
            verification = .chainAndHost(roots ?? .system)
        }

        if host.hasPrefix("/") {
            address = .unixSocket(directory: host, port: port)
        } else {
            address = .tcp(host: host, port: port)
        }
        self.username = username
        self.password = parts.password
        self.database = parts.database.flatMap { $0.isEmpty ? nil : $0 }
        self.tls = tls
        self.startupParameters = startupParameters
        self.connectTimeout = connectTimeout
    }

    /// What every connection sets when it starts, after the URL's `options` (so that these win over them, and over
    /// the role's and the database's settings): `TimeZone` UTC, in which PostgreSQL converts the `timestamptz` a
    /// `Date` is sent as into a `timestamp` column, so that a `timestamp` holds the UTC time that reading it gives
    /// back, whatever the server's zone.
    static let sessionSettings = [("TimeZone", "UTC")]

    /// The certificates of the PEM file at `path`.
    private static func readCertificates(
        _ path: String, invalid: (String) -> DatabaseError
    ) throws -> [NIOSSLCertificate] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw invalid("the sslrootcert file \(path) cannot be read")
        }
        let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(data))
        guard let certificates, !certificates.isEmpty else {
            throw invalid("the sslrootcert file \(path) holds no PEM certificate")
        }
        return certificates
    }

    /// `host:port`, `[::1]:port`, or the path of the Unix socket.
    var hostAndPort: String {
        switch address {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket: socketPath ?? ""
        }
    }

    /// The path of the Unix socket, nil for a TCP address: `DIRECTORY/.s.PGSQL.PORT`, as libpq names it.
    var socketPath: String? {
        guard case .unixSocket(let directory, let port) = address else { return nil }
        return (directory.hasSuffix("/") ? directory : directory + "/") + ".s.PGSQL.\(port)"
    }

    /// `postgres://user@host:port/database`, or `postgres://user@/database?host=/folder&port=5432` for a Unix socket;
    /// never with the password.
    var description: String {
        let path = database.map { "/\($0)" } ?? ""
        switch address {
        case .tcp: return "postgres://\(username)@\(hostAndPort)" + path
        case .unixSocket(let directory, let port):
            return "postgres://\(username)@" + (path.isEmpty ? "/" : path) + "?host=\(directory)&port=\(port)"
        }
    }

    /// The TLS configuration of a connection that uses TLS: what it checks of the server's certificate.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        func trust(_ roots: TrustRoots) -> NIOSSLTrustRoots {
            switch roots {
            case .system: .default
            case .certificates(let certificates): .certificates(certificates)
            }
        }
        switch verification {
        case .none:
            configuration.certificateVerification = .none
        case .chain(let roots):
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = trust(roots)
        case .chainAndHost(let roots):
            configuration.certificateVerification = .fullVerification
            configuration.trustRoots = trust(roots)
        }
        return configuration
    }

    /// The configuration of postgres-nio's client for this endpoint, with at most `connections` connections.
    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch address {
        case .tcp(let host, let port):
            let clientTLS: PostgresClient.Configuration.TLS =
                switch tls {
                case .disable: .disable
                case .allow, .prefer: .prefer(tlsConfiguration)
                case .require, .verifyCA, .verifyFull: .require(tlsConfiguration)
                }
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        case .unixSocket:
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketPath ?? "", username: username, password: password, database: database)
        }
        configuration.options.maximumConnections = connections
        configuration.options.connectTimeout = connectTimeout
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        configuration.options.additionalStartupParameters = Self.sessionSettings + startupParameters
        return configuration
    }

    /// The configuration of one connection, for the pool's check of a new endpoint.
    ///
    /// - Throws: when the TLS context cannot be made.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch address {
        case .tcp(let host, let port):
            let connectionTLS: PostgresConnection.Configuration.TLS =
                switch tls {
                case .disable: .disable
                case .allow, .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                case .require, .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration))
                }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database,
                tls: connectionTLS)
        case .unixSocket:
            configuration = PostgresConnection.Configuration(
                unixSocketPath: socketPath ?? "", username: username, password: password, database: database)
        }
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        configuration.options.additionalStartupParameters = Self.sessionSettings + startupParameters
        return configuration
    }
}

/// Reads the parts of a libpq connection URI by hand: `postgres[ql]://[user[:password]@][host][:port][/database]
/// [?name=value&...]`, percent-decoding each part.
///
/// Foundation's URL parser refuses (or splits elsewhere) URLs that libpq reads, such as a password with a raw `#`,
/// and reads `[::1]` or a percent-encoded socket folder its own way; this one follows libpq.
struct PostgresURLParser {
    /// The parts of a URL, each percent-decoded; a part the URL lacks is nil.
    struct Parts {
        var username: String?
        var password: String?
        var host: String?
        var port: String?
        var database: String?
        var parameters: [(name: String, value: String)] = []
    }

    /// The URL as given.
    let url: String

    /// The error for `url`, shown with its password hidden, and why it cannot be used.
    func invalid(_ reason: String) -> DatabaseError {
        DatabaseError(
            code: .invalidURL,
            message: "invalid PostgreSQL URL \"\(ConnectionURLRedaction.redacting(url))\": \(reason)")
    }

    /// Splits and decodes `url`.
    func parse() throws -> Parts {
        var rest = Substring(url)
        var parts = Parts()
        let scheme = rest.prefix { $0 != ":" }.lowercased()
        guard scheme == "postgres" || scheme == "postgresql", rest.dropFirst(scheme.count).hasPrefix("://") else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        rest = rest.dropFirst(scheme.count + 3)

        // As libpq: the user part ends at the first `@` before any `/`.
        if let at = rest.prefix(while: { $0 != "/" }).firstIndex(of: "@") {
            let user = rest[..<at]
            if let colon = user.firstIndex(of: ":") {
                parts.username = try decode(user[..<colon], "the user name")
                parts.password = try decode(user[user.index(after: colon)...], "the password")
            } else {
                parts.username = try decode(user, "the user name")
            }
            rest = rest[rest.index(after: at)...]
        }

        let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var hostPart = rest[..<hostEnd]
        rest = rest[hostEnd...]
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else {
                throw invalid("the IPv6 address in [ ] is not closed")
            }
            parts.host = try decode(hostPart[hostPart.index(after: hostPart.startIndex)..<close], "the host")
            hostPart = hostPart[hostPart.index(after: close)...]
            if !hostPart.isEmpty {
                guard hostPart.hasPrefix(":") else { throw invalid("unexpected text after the IPv6 address") }
                parts.port = String(hostPart.dropFirst())
            }
        } else {
            if hostPart.contains(",") {
                throw invalid("several hosts are not supported: give one")
            }
            if let colon = hostPart.firstIndex(of: ":") {
                parts.port = String(hostPart[hostPart.index(after: colon)...])
                hostPart = hostPart[..<colon]
            }
            if !hostPart.isEmpty {
                parts.host = try decode(hostPart, "the host")
            }
        }

        if rest.hasPrefix("/") {
            let databaseEnd = rest.firstIndex(of: "?") ?? rest.endIndex
            parts.database = try decode(rest[rest.index(after: rest.startIndex)..<databaseEnd], "the database name")
            rest = rest[databaseEnd...]
        }
        if rest.hasPrefix("?") {
            for item in rest.dropFirst().split(separator: "&") {
                guard let equals = item.firstIndex(of: "=") else {
                    throw invalid("the parameter \"\(item.prefix(40))\" has no value (name=value)")
                }
                let name = try decode(item[..<equals], "a parameter name")
                let value = try decode(item[item.index(after: equals)...], "a parameter value")
                parts.parameters.append((name, value))
            }
        }
        return parts
    }

    /// The port number of `text`.
    func port(_ text: String) throws -> Int {
        guard (1...5).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text),
            (1...65535).contains(port)
        else {
            throw invalid("the port \"\(text.prefix(20))\" is not a number from 1 to 65535")
        }
        return port
    }

    /// `text` with its `%XX` escapes decoded, as UTF-8.
    private func decode(_ text: Substring, _ part: String) throws -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "%" {
                guard let end = text.index(index, offsetBy: 3, limitedBy: text.endIndex),
                    text[text.index(after: index)..<end].allSatisfy(\.isHexDigit),
                    let byte = UInt8(text[text.index(after: index)..<end], radix: 16), byte != 0
                else {
                    throw invalid("\(part) has a malformed percent escape (% and two hexadecimal digits, not %00)")
                }
                bytes.append(byte)
                index = end
            } else {
                bytes.append(contentsOf: text[index].utf8)
                index = text.index(after: index)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw invalid("\(part) is not UTF-8 once percent-decoded")
        }
        return decoded
    }
}
