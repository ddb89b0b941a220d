import Foundation
import StrataPostgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("PostgreSQL connection URLs, as libpq reads them", .postgresServer)
struct PostgresURLTests {
    @Test("a URL that cannot be used is named in its error with the password hidden, even when it does not parse")
    func passwordNeverShown() throws {
        let cases: [(url: String, secrets: [String], reason: String)] = [
            ("postgres://app:Se#cret@127.0.0.1:99999/db", ["Se#cret", "cret"], "is not a number from 1 to 65535"),
            ("postgres://app:pa/ss#w@db.internal/app", ["pa/ss", "ss#w"], "is not a number from 1 to 65535"),
            ("postgres://app:p@ss@w0rd@h:x/db", ["p@ss", "ss@w0rd", "w0rd"], "is not a number from 1 to 65535"),
            ("postgres://app:secret@h/db?sslmode=sometimes", ["secret"], "sslmode must be"),
            ("postgres://app:secret@h1,h2/db", ["secret"], "several hosts are not supported"),
            ("postgres://app:secret@[::1/db", ["secret"], "the IPv6 address in [ ] is not closed"),
            ("postgres://app:sec%zzret@h/db", ["sec%zzret", "zzret"], "the password has a malformed percent escape"),
            ("postgres://app@h/db?password=hunter2", ["hunter2"], "unknown parameter \"password\""),
            (
                "postgres://app@h/db?sslmode=require&sslpassword=hunter3", ["hunter3"],
                "unknown parameter \"sslpassword\""
            ),
            ("mysql://app:secret@h/db", ["secret"], "the scheme must be postgres:// or postgresql://"),
            ("app:secret@h/db", ["secret"], "the scheme must be postgres:// or postgresql://"),
        ]
        for (url, secrets, reason) in cases {
            let error = #expect(throws: PostgresError.self, "\(url)") { try PostgresPool(url: url) }
            #expect(error?.code == .invalidURL)
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
            for secret in secrets {
                #expect(error?.description.contains(secret) == false, "\(String(describing: error))")
            }
        }
        let hidden = #expect(throws: PostgresError.self) {
            try PostgresPool(url: "postgres://app:Se#cret@127.0.0.1:99999/db")
        }
        #expect(
            hidden?.description
                == "invalid PostgreSQL URL \"postgres://app:***@127.0.0.1:99999/db\": the port \"99999\" is not a "
                + "number from 1 to 65535")
    }

    @Test("a raw # or ? in a password is part of it, and percent escapes are decoded, as in libpq")
    func passwordCharacters() async throws {
        let (user, host, port, database) = try PostgresURLTestServer.serverParts()
        // The server trusts `user`: the password is not checked, but the rest must be read around it.
        let trusted = "postgres://\(user):any#thing?at@\(host):\(port)/\(database)"
        let name = try await PostgresURLTestServer.withPool(url: trusted) { pool in
            try await pool.read { db in try await db.fetchOne(String.self, query: "SELECT current_database()") }
        }
        #expect(name == database)

        let passwordURL = try #require(URLComponents(string: try PostgresTestServer.requirePasswordURL()))
        let role = try #require(passwordURL.user)
        // The role's password is strata-password: %2D is its -.
        let encoded = "postgres://\(role):strata%2Dpassword@\(host):\(port)/\(database)"
        let current = try await PostgresURLTestServer.withPool(url: encoded) { pool in
            try await pool.read { db in try await db.fetchOne(String.self, query: "SELECT current_user") }
        }
        #expect(current == role)
        // A wrong password with a # is sent whole: the server refuses it, and the error does not show it.
        let error = try await PostgresURLTestServer.firstReadError(
            url: "postgres://\(role):strata#password@\(host):\(port)/\(database)")
        #expect(error?.code == .authenticationFailed, "\(String(describing: error))")
        #expect(error?.description.contains("strata#password") == false)
        #expect(error?.description.contains("#") == false)
    }

    @Test("an IPv6 literal host, postgres://user@[::1]:port/db, connects over IPv6")
    func ipv6Host() async throws {
        let url = try PostgresURLTestServer.ipv6URL()
        let address = try await PostgresURLTestServer.withPool(url: url) { pool in
            try await pool.read { db in try await db.fetchOne(String.self, query: "SELECT host(inet_client_addr())") }
        }
        #expect(address == "::1")
        // Its errors name it with its brackets.
        let closed = url.replacingOccurrences(of: #"\]:[0-9]+/"#, with: "]:1/", options: .regularExpression)
        let error = try await PostgresURLTestServer.firstReadError(url: closed)
        #expect(error?.code == .connectionFailed)
        #expect(error?.description.contains("@[::1]:1/") == true, "\(String(describing: error))")
    }

    @Test("a Unix socket host, as ?host=/folder or a percent-encoded path, connects through the socket")
    func unixSocketHost() async throws {
        let folder = try PostgresURLTestServer.socketDirectory()
        let (user, _, port, database) = try PostgresURLTestServer.serverParts()
        let encoded = folder.replacingOccurrences(of: "/", with: "%2F")
        let urls = [
            "postgres://\(user)@/\(database)?host=\(folder)&port=\(port)",
            "postgres://\(user)@:\(port)/\(database)?host=\(folder)",
            "postgres://\(user)@\(encoded):\(port)/\(database)",
            "postgresql://\(user)@\(folder.replacingOccurrences(of: "/", with: "%2f")):\(port)/\(database)?sslmode=require",
        ]
        for url in urls {
            let overSocket = try await PostgresURLTestServer.withPool(url: url) { pool in
                try await pool.read { db in
                    try await db.fetchOne(
                        Bool.self, query: "SELECT inet_client_addr() IS NULL AND current_database() = :database",
                        parameters: ["database": database])
                }
            }
            #expect(overSocket == true, "\(url)")
        }
        // A socket nothing listens on: the error names the folder and port.
        let error = try await PostgresURLTestServer.firstReadError(
            url: "postgres://\(user)@/\(database)?host=\(folder)&port=1")
        #expect(error?.code == .connectionFailed)
        #expect(
            error?.description.contains("postgres://\(user)@/\(database)?host=\(folder)&port=1") == true,
            "\(String(describing: error))")
    }

    @Test("host and port are given once, in the URL or in the query")
    func hostAndPortOnce() throws {
        let cases: [(url: String, text: String)] = [
            ("postgres://u@h/db?host=/tmp", "the host is given twice"),
            ("postgres://u@h:5432/db?port=5433", "the port is given twice"),
            ("postgres://u@/db", "no host"),
            ("postgres://u@/db?sslmode=disable&sslmode=require", "the parameter \"sslmode\" is given twice"),
            ("postgres://u@h/db?application_name", "has no value"),
        ]
        for (url, text) in cases {
            let error = #expect(throws: PostgresError.self) { try PostgresPool(url: url) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains(text) == true, "\(String(describing: error))")
        }
    }

    #if canImport(Glibc)
        @Test("connect_timeout bounds the wait for a server that does not answer; it must be whole seconds")
        func connectTimeout() async throws {
            // A socket that listens and never accepts, its one-connection backlog taken: the next connection waits for
            // an answer that never comes, as from a host that drops packets.
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(listener) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    try #require(bind(listener, generic, length) == 0)
                    try #require(listen(listener, 0) == 0)
                    try #require(getsockname(listener, generic, &length) == 0)
                }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            let fillers = (0..<2).map { _ in
                socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            }
            defer { for filler in fillers { close(filler) } }
            for filler in fillers {
                _ = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
                }
            }
            let error = try await PostgresURLTestServer.firstReadError(
                url: "postgres://app@127.0.0.1:\(port)/db?connect_timeout=2")
            #expect(error?.code == .connectionFailed)
            #expect(error?.description.contains("no answer within 2 s") == true, "\(String(describing: error))")

            for value in ["soon", "1.5", ""] {
                let refused = #expect(throws: PostgresError.self) {
                    try PostgresPool(url: "postgres://app@h/db?connect_timeout=\(value)")
                }
                #expect(refused?.code == .invalidURL)
            }
        }
    #endif
}
