import Foundation
import Hummingbird
import HummingbirdTesting
import InMemoryTracing
import Metrics
import MetricsTestKit
import NotesApp
import Strata
import Testing
import Tracing

/// The process-wide tracer and metrics backend of these tests, bootstrapped once: swift-distributed-tracing and
/// swift-metrics take one backend per process.
///
/// Other suites run at the same time and report to the same backends once they are bootstrapped, so each test here
/// finds its own spans by its trace (a root span it starts itself) and checks metrics that only it records.
enum TestBackends {
    static let tracer = InMemoryTracer()
    static let metrics = TestMetrics()
    private static let bootstrapped: Bool = {
        InstrumentationSystem.bootstrap(tracer)
        MetricsSystem.bootstrap(metrics)
        return true
    }()

    static func bootstrap() {
        _ = bootstrapped
    }
}

/// The database's spans under each request's span, and the request and database metrics, on each backend: the
/// server opens its `DatabasePool` and its `PostgresPool` with the same observability.
@Suite(.serialized) struct ObservabilityTests {
    init() {
        TestBackends.bootstrap()
    }

    @Test(arguments: TestBackend.all)
    func databaseSpansAreRecordedUnderTheRequestSpan(_ backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let spans = try await tracedRequest(
                to: server, uri: "/notes", method: .post, body: try contentBody("traced"), expecting: .created)
            let root = try #require(spans.first { $0.operationName == "test root" })
            let request = try #require(spans.first { $0.kind == .server })
            #expect(request.parentSpanID == root.spanID)
            #expect(request.operationName == "/notes")
            #expect(request.attributes["http.response.status_code"]?.toSpanAttribute() == 201)

            let write = try #require(spans.first { $0.operationName == backend.poolName + ".write" })
            #expect(write.parentSpanID == request.spanID)
            #expect(write.attributes["db.system.name"]?.toSpanAttribute() == .string(backend.systemName))

            let insert = try #require(spans.first { $0.operationName == "INSERT" })
            #expect(insert.parentSpanID == write.spanID)
            #expect(insert.attributes["db.system.name"]?.toSpanAttribute() == .string(backend.systemName))
            let sql = Self.text(insert.attributes["db.query.text"]?.toSpanAttribute())
            #expect(sql.contains("INSERT INTO"))
            #expect(!sql.contains("traced"))  // values are bound, never in the span
        }
    }

    @Test(arguments: TestBackend.all)
    func readsAreSpansUnderTheRequestToo(_ backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let id = try #require(try await server.store.create(content: "read me").id)
            let spans = try await tracedRequest(to: server, uri: "/notes/\(id)", method: .get, expecting: .ok)
            let request = try #require(spans.first { $0.kind == .server })
            #expect(request.operationName == "/notes/{id}")
            let read = try #require(spans.first { $0.operationName == backend.poolName + ".read" })
            #expect(read.parentSpanID == request.spanID)
            #expect(spans.contains { $0.operationName == "SELECT" && $0.parentSpanID == read.spanID })
        }
    }

    @Test(arguments: TestBackend.all)
    func requestsAndStatementsRecordMetrics(_ backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            let requestDimensions = [
                ("http.route", "/notes"), ("http.request.method", "GET"), ("http.response.status_code", "200"),
            ]
            let selectDimensions = [("db.operation.name", "SELECT")]
            // The suite runs on one metrics backend for both databases: compare with what it held before.
            let requestsBefore = (try? TestBackends.metrics.expectCounter("hb.requests", requestDimensions))?.totalValue
            let selectsBefore = (try? TestBackends.metrics.expectCounter(StrataMetric.statements, selectDimensions))?
                .totalValue
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes?limit=7", method: .get)
                #expect(response.status == .ok)
            }
            let requests = try TestBackends.metrics.expectCounter("hb.requests", requestDimensions)
            #expect(requests.totalValue >= (requestsBefore ?? 0) + 1)
            let selects = try TestBackends.metrics.expectCounter(StrataMetric.statements, selectDimensions)
            #expect(selects.totalValue >= (selectsBefore ?? 0) + 1)
        }
    }

    /// Sends one request under a root span of its own and returns the finished spans of that trace.
    ///
    /// The router test client runs the request in a child task, which inherits the root span's context, so the
    /// app's TracingMiddleware starts the request span under it.
    func tracedRequest(
        to server: TestServer, uri: String, method: HTTPRequest.Method, body: ByteBuffer? = nil,
        expecting status: HTTPResponse.Status
    ) async throws -> [FinishedInMemorySpan] {
        let traceID = try await server.test(.router) { client in
            try await withSpan("test root") { root in
                let response = try await client.execute(
                    uri: uri, method: method, headers: [.contentType: "application/json"], body: body)
                #expect(response.status == status)
                return root.context.inMemorySpanContext?.traceID
            }
        }
        let id = try #require(traceID)
        return TestBackends.tracer.finishedSpans.filter { $0.traceID == id }
    }

    static func text(_ attribute: SpanAttribute?) -> String {
        if case .string(let text)? = attribute { return text }
        return ""
    }
}

extension TestBackend {
    /// The name of the backend's pool in its spans.
    var poolName: String {
        switch self {
        case .sqlite: "DatabasePool"
        case .postgres: "PostgresPool"
        }
    }

    /// The backend's `db.system.name`.
    var systemName: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgresql"
        }
    }
}
