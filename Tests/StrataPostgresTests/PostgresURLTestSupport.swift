import Foundation
import StrataPostgres
import Testing

/// The servers and files the URL, TLS and migration-file tests need beyond `STRATA_POSTGRES_URL`, which `.ci/run` sets
/// up (see its connection URL block): a second cluster with TLS, its certificate authority, an unrelated certificate,
/// its IPv6 address, the first cluster's Unix socket folder, and PostgreSQL's binaries (pg_dump).
///
/// Each is a recorded failure when missing, so that a CI run never passes without them; locally the suites that need
/// them run when `STRATA_POSTGRES_URL` is set, as the other PostgreSQL suites do.
enum PostgresURLTestServer {
    private static func require(_ name: String, _ what: String) throws -> String {
        try #require(
            ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 },
            "\(name) is not set: \(what) (see the connection URL block of .ci/run)")
    }

    /// The TLS cluster, `postgres://strata@127.0.0.1:PORT/postgres`: its certificate names IP 127.0.0.1 and no host
    /// name, signed by ``certificateAuthority()``; it refuses connections without TLS.
    static func tlsURL() throws -> String {
        try require("STRATA_POSTGRES_TLS_URL", "the sslmode tests need a server with TLS")
    }

    /// The PEM file of the certificate authority that signed the TLS cluster's certificate.
    static func certificateAuthority() throws -> String {
        try require("STRATA_POSTGRES_TLS_CA", "the sslmode tests need the TLS cluster's certificate authority")
    }

    /// A self-signed certificate that signed nothing the TLS cluster has.
    static func otherCertificateAuthority() throws -> String {
        try require("STRATA_POSTGRES_TLS_OTHER_CA", "the sslmode tests need an unrelated certificate")
    }

    /// The TLS cluster at its IPv6 address, `postgres://strata@[::1]:PORT/postgres`.
    static func ipv6URL() throws -> String {
        try require("STRATA_POSTGRES_IPV6_URL", "the IPv6 host test needs a server listening on ::1")
    }

    /// The folder of the Unix socket of the `STRATA_POSTGRES_URL` server.
    static func socketDirectory() throws -> String {
        try require("STRATA_POSTGRES_SOCKET_DIR", "the Unix socket tests need the server's socket folder")
    }

    /// `pg_dump` of the server's PostgreSQL version.
    static func pgDump() throws -> URL {
        let folder = try require("STRATA_POSTGRES_BIN", "the pg_dump test needs PostgreSQL's binaries")
        return URL(fileURLWithPath: folder).appendingPathComponent("pg_dump")
    }

    /// The user, host, port and database of `STRATA_POSTGRES_URL`.
    static func serverParts() throws -> (user: String, host: String, port: Int, database: String) {
        let components = try #require(URLComponents(string: try PostgresTestServer.requireURL()))
        return (
            try #require(components.user), try #require(components.host), components.port ?? 5432,
            String(components.path.dropFirst())
        )
    }

    /// Runs `body` with a one-connection pool of `url`, closed afterwards.
    static func withPool<Result: Sendable>(
        url: String, connections: Int = 1, _ body: @Sendable (PostgresPool) async throws -> Result
    ) async throws -> Result {
        let pool = try PostgresPool(url: url, connections: connections)
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(pool))
        } catch {
            result = .failure(error)
        }
        await pool.close()
        return try result.get()
    }

    /// The error of the first read on a running one-connection pool of `url`, recorded as an issue when it does not
    /// throw a `PostgresError`.
    static func firstReadError(url: String) async throws -> PostgresError? {
        try await withPool(url: url) { pool in
            await #expect(throws: PostgresError.self) {
                try await pool.read { db in _ = try await db.fetchOne(Int.self, query: "SELECT 1") }
            }
        }
    }
}
