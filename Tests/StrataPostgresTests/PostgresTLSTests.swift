import Foundation
import StrataPostgres
import Testing

/// Whether the connection of a read uses TLS, as the server sees it.
private func usesTLS(_ url: String) async throws -> Bool? {
    try await PostgresURLTestServer.withPool(url: url) { pool in
        try await pool.read { db in
            try await db.fetchOne(Bool.self, query: "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        }
    }
}

/// `url` with the query parameters `parameters` added.
private func with(_ url: String, _ parameters: [(String, String)]) throws -> String {
    var url = url
    for (name, value) in parameters {
        url = try PostgresTestServer.adding(name, value, to: url)
    }
    return url
}

/// The TLS cluster's URL with `host` (`localhost`, `[::1]`) instead of 127.0.0.1.
private func tlsURL(host: String) throws -> String {
    try PostgresURLTestServer.tlsURL().replacingOccurrences(of: "@127.0.0.1:", with: "@\(host):")
}

@Suite("PostgreSQL TLS modes (sslmode and sslrootcert, as libpq reads them)", .postgresServer)
struct PostgresTLSTests {
    @Test("prefer, the default, and allow use TLS with a certificate no system root signed, checking nothing")
    func preferUsesTLSWithoutChecking() async throws {
        let url = try PostgresURLTestServer.tlsURL()
        #expect(try await usesTLS(url) == true)
        #expect(try await usesTLS(with(url, [("sslmode", "prefer")])) == true)
        #expect(try await usesTLS(with(url, [("sslmode", "allow")])) == true)
        // A server without TLS: prefer goes on without it.
        #expect(try await usesTLS(with(PostgresTestServer.requireURL(), [("sslmode", "prefer")])) == false)
    }

    @Test("require uses TLS and checks nothing, unless sslrootcert names a file: then it checks the chain")
    func requireChecksOnlyWithARootCertificate() async throws {
        let url = try PostgresURLTestServer.tlsURL()
        #expect(try await usesTLS(with(url, [("sslmode", "require")])) == true)
        #expect(try await usesTLS(with(tlsURL(host: "[::1]"), [("sslmode", "require")])) == true)
        let authority = try PostgresURLTestServer.certificateAuthority()
        #expect(try await usesTLS(with(url, [("sslmode", "require"), ("sslrootcert", authority)])) == true)
        let other = try PostgresURLTestServer.otherCertificateAuthority()
        let mode = "require"
        let error = try await PostgresURLTestServer.firstReadError(
            url: with(url, [("sslmode", mode), ("sslrootcert", other)]))
        #expect(error?.code == .connectionFailed)
        #expect(
            error?.description.hasSuffix(
                "the server's TLS certificate is not signed by a trusted certificate (sslmode=\(mode) checks the "
                    + "chain, against sslrootcert or the system's)") == true, "\(String(describing: error))")

        // A server without TLS is refused.
        let plain = try await PostgresURLTestServer.firstReadError(
            url: with(PostgresTestServer.requireURL(), [("sslmode", "require")]))
        #expect(plain?.code == .connectionFailed)
        #expect(
            plain?.description.hasSuffix("the server does not use TLS, which sslmode=require requires") == true,
            "\(String(describing: plain))")
    }

    @Test("verify-ca checks the chain against sslrootcert, not the host name; it needs sslrootcert")
    func verifyCAChecksTheChain() async throws {
        let authority = try PostgresURLTestServer.certificateAuthority()
        let url = try PostgresURLTestServer.tlsURL()
        #expect(try await usesTLS(with(url, [("sslmode", "verify-ca"), ("sslrootcert", authority)])) == true)
        // The certificate names 127.0.0.1 and localhost, not ::1: verify-ca does not mind.
        #expect(
            try await usesTLS(with(tlsURL(host: "[::1]"), [("sslmode", "verify-ca"), ("sslrootcert", authority)]))
                == true)
        let other = try PostgresURLTestServer.otherCertificateAuthority()
        let mode = "verify-ca"
        let error = try await PostgresURLTestServer.firstReadError(
            url: with(url, [("sslmode", mode), ("sslrootcert", other)]))
        #expect(error?.code == .connectionFailed)
        #expect(
            error?.description.hasSuffix(
                "the server's TLS certificate is not signed by a trusted certificate (sslmode=\(mode) checks the "
                    + "chain, against sslrootcert or the system's)") == true, "\(String(describing: error))")

        let missing = #expect(throws: PostgresError.self) {
            try PostgresPool(url: with(url, [("sslmode", "verify-ca")]))
        }
        #expect(missing?.code == .invalidURL)
        #expect(missing?.message.contains("sslmode=verify-ca needs sslrootcert=FILE") == true)
    }

    @Test("verify-full checks the chain and that the certificate names the host")
    func verifyFullChecksTheHost() async throws {
        let authority = try PostgresURLTestServer.certificateAuthority()
        let url = try PostgresURLTestServer.tlsURL()
        #expect(try await usesTLS(with(url, [("sslmode", "verify-full"), ("sslrootcert", authority)])) == true)
        #expect(
            try await usesTLS(
                with(tlsURL(host: "localhost"), [("sslmode", "verify-full"), ("sslrootcert", authority)]))
                == true)
        // The certificate does not name ::1.
        let wrongHost = try await PostgresURLTestServer.firstReadError(
            url: with(tlsURL(host: "[::1]"), [("sslmode", "verify-full"), ("sslrootcert", authority)]))
        #expect(wrongHost?.code == .connectionFailed)
        #expect(
            wrongHost?.description.hasSuffix(
                "the server's TLS certificate is not issued for this host (sslmode=verify-full checks the host name)")
                == true, "\(String(describing: wrongHost))")
        // Without sslrootcert, the system's roots, which did not sign the cluster's certificate.
        let system = try await PostgresURLTestServer.firstReadError(url: with(url, [("sslmode", "verify-full")]))
        #expect(system?.code == .connectionFailed)
        let explicitSystem = try await PostgresURLTestServer.firstReadError(url: with(url, [("sslrootcert", "system")]))
        #expect(explicitSystem?.code == .connectionFailed)
    }

    @Test("disable does not use TLS: a server that requires it refuses the connection")
    func disableDoesNotUseTLS() async throws {
        let error = try await PostgresURLTestServer.firstReadError(
            url: with(PostgresURLTestServer.tlsURL(), [("sslmode", "disable")]))
        #expect(error?.sqlState == "28000")
        #expect(error?.description.contains("no encryption") == true, "\(String(describing: error))")
        #expect(try await usesTLS(with(PostgresTestServer.requireURL(), [("sslmode", "disable")])) == false)
    }

    @Test("sslmode and sslrootcert that cannot be used throw invalidURL, naming the problem")
    func invalidTLSParameters() throws {
        let url = try PostgresURLTestServer.tlsURL()
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("strata-not-pem-\(UUID()).crt")
        try Data("not a certificate\n".utf8).write(to: notPEM)
        defer { try? FileManager.default.removeItem(at: notPEM) }
        let cases: [(parameters: [(String, String)], text: String)] = [
            ([("sslmode", "sometimes")], "sslmode must be disable, allow, prefer, require, verify-ca, verify-full"),
            ([("sslmode", "require"), ("sslrootcert", "system")], "sslmode=require cannot be used with sslrootcert"),
            (
                [("sslmode", "verify-ca"), ("sslrootcert", "system")],
                "sslmode=verify-ca cannot be used with sslrootcert"
            ),
            ([("sslrootcert", "/no/such/file.crt")], "the sslrootcert file /no/such/file.crt cannot be read"),
            ([("sslrootcert", notPEM.path)], "the sslrootcert file \(notPEM.path) holds no PEM certificate"),
        ]
        for (parameters, text) in cases {
            let error = #expect(throws: PostgresError.self) { try PostgresPool(url: with(url, parameters)) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains(text) == true, "\(String(describing: error))")
        }
    }
}
