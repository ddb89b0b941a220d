import Foundation
internal import PostgresNIO

/// Where a pool connects, read from a `postgres://user:password@host:port/database?sslmode=...` URL.
///
/// The query may set `sslmode` (`disable`, `prefer` the default, `require`), and `options` and
/// `application_name`, which each connection sends the server when it starts, as libpq does.
///
/// The password is never part of the description, which errors show.
struct PostgresEndpoint: Sendable, CustomStringConvertible {
    /// How the connection uses TLS, from the URL's `sslmode`, as libpq reads it.
    enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    /// The server's host name or address.
    let host: String
    /// The server's port: 5432 unless the URL names another.
    let port: Int
    /// The role to connect as.
    let username: String
    /// The password, when the URL has one.
    let password: String?
    /// The database; nil for the server's default (the role's name).
    let database: String?
    /// Whether the connection uses TLS.
    let tls: TLSMode
    /// Settings sent when each connection starts: the URL's `options` and `application_name`.
    let startupParameters: [(String, String)]

    /// Reads `url`.
    ///
    /// - Throws: ``PostgresError/Code/invalidURL`` for a URL that is not `postgres://` or `postgresql://`, has no
    ///   host or user, a port out of range, or an `sslmode` other than `disable`, `prefer`, `require`.
    init(url: String) throws {
        func invalid(_ reason: String) -> PostgresError {
            PostgresError(code: .invalidURL, message: "invalid PostgreSQL URL \"\(Self.redacted(url))\": \(reason)")
        }
        guard let components = URLComponents(string: url) else { throw invalid("not a URL") }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
        guard let username = components.user, !username.isEmpty else {
            throw invalid("no user name (postgres://USER@host/database)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var tls = TLSMode.prefer
        var startupParameters: [(String, String)] = []
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw invalid("sslmode must be disable, prefer or require")
                }
                tls = mode
            case "options", "application_name":
                // Sent to the server at startup, as libpq does: `options=-c search_path=app` sets a setting on
                // every connection; `application_name` names them in pg_stat_activity.
                startupParameters.append((item.name, item.value ?? ""))
            default:
                throw invalid("unknown parameter \"\(item.name)\"; sslmode, options and application_name are read")
            }
        }
        self.host = host
        self.port = port
        self.username = username
        self.password = components.password
        self.database = path.isEmpty ? nil : path
        self.tls = tls
        self.startupParameters = startupParameters
    }

    /// What every connection sets when it starts, after the URL's `options` (so that these win over them, and over
    /// the role's and the database's settings): `TimeZone` UTC, in which PostgreSQL converts the `timestamptz` a
    /// `Date` is sent as into a `timestamp` column, so that a `timestamp` holds the UTC time that reading it gives
    /// back, whatever the server's zone.
    static let sessionSettings = [("TimeZone", "UTC")]

    /// `host:port`.
    var hostAndPort: String { "\(host):\(port)" }

    /// `postgres://user@host:port/database`, without the password.
    var description: String {
        "postgres://\(username)@\(hostAndPort)" + (database.map { "/\($0)" } ?? "")
    }

    /// The configuration of postgres-nio's client for this endpoint, with at most `connections` connections.
    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        let clientTLS: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        configuration.options.maximumConnections = connections
        configuration.options.additionalStartupParameters = Self.sessionSettings + startupParameters
        return configuration
    }

    /// The configuration of one connection, for the pool's check of a new endpoint.
    ///
    /// - Throws: when the TLS context cannot be made.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let connectionTLS: PostgresConnection.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: connectionTLS)
        configuration.options.additionalStartupParameters = Self.sessionSettings + startupParameters
        return configuration
    }

    /// `url` with any password replaced by `***`, for error messages.
    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
