import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import NotesApp
import Testing

/// `GET /notes/live`: the newest notes as server-sent events, from an observation, read by real HTTP clients.
@Suite struct LiveTests {
    @Test("two clients following /notes/live see a note a third client posts", arguments: TestBackend.all)
    func twoClientsSeeAThirdsPost(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.live) { client in
                let port = try #require(client.port)
                let existing = try await client.createNote("before anyone follows")
                let first = try await EventStreamClient(port: port, path: "/notes/live?limit=5")
                let second = try await EventStreamClient(port: port, path: "/notes/live?limit=5")
                #expect(first.contentType == "text/event-stream")
                // The list now, at once.
                #expect(try await first.nextList() == [existing])
                #expect(try await second.nextList() == [existing])
                // Posted by a third client: both see it, newest first.
                let posted = try await client.createNote("posted while they follow")
                #expect(try await first.nextList() == [posted, existing])
                #expect(try await second.nextList() == [posted, existing])
                // An edit is a new list; the limit holds.
                for index in 1...5 { _ = try await client.createNote("note \(index)") }
                let last = try await first.nextList(until: { $0.first?.content == "note 5" })
                #expect(last.count == 5)
                first.close()
                second.close()
            }
        }
    }

    @Test("the server shuts down while a client still follows /notes/live", arguments: TestBackend.all)
    func shutdownEndsTheStream(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            // A stream that held the server up would hang the shutdown: it is cancelled after 30 s, and fails.
            let running = Task {
                try await server.test(.live) { client in
                    let stream = try await EventStreamClient(port: try #require(client.port), path: "/notes/live")
                    #expect(try await stream.nextList() == [])
                    return stream
                }
            }
            let deadline = Task {
                try await Task.sleep(for: .seconds(30))
                Issue.record("the server did not shut down within 30 s of the end of the test")
                running.cancel()
            }
            defer { deadline.cancel() }
            let stream = try await running.value
            // `test` returned: the graceful shutdown ended the stream, so the server could stop and close the pool.
            #expect(server.writer.isClosed)
            #expect(try await stream.isEnded())
            stream.close()
        }
    }

    @Test("/notes/live refuses a bad limit with a 400 before streaming", arguments: TestBackend.all)
    func badLimit(backend: TestBackend) async throws {
        try await withTestServer(backend) { server in
            try await server.test(.router) { client in
                let response = try await client.execute(uri: "/notes/live?limit=0", method: .get)
                #expect(response.status == .badRequest)
                #expect(try errorMessage(of: response) == "limit must be an integer from 1 to 100, not \"0\"")
            }
        }
    }
}

/// An HTTP/1.1 client of one `text/event-stream` response: reads the `notes` events as they come, each within ten
/// seconds. HummingbirdTesting's client waits for a whole response, which a stream never ends.
private final class EventStreamClient: Sendable {
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let reader: Task<Void, Never>
    private let iterator: LockedIterator
    /// The response's `Content-Type`.
    let contentType: String?

    /// Sends `GET path` to the server on `port` and reads the response head.
    init(port: Int, path: String) async throws {
        let channel = try await ClientBootstrap(group: .singletonMultiThreadedEventLoopGroup)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        self.channel = channel
        let (events, continuation) = AsyncThrowingStream.makeStream(of: [Note].self)
        let (head, headContinuation) = AsyncThrowingStream.makeStream(of: String.self)
        iterator = LockedIterator(events.makeAsyncIterator())
        reader = Task {
            do {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n"))
                    try await Self.read(inbound, head: headContinuation, events: continuation)
                }
                headContinuation.finish()
                continuation.finish()
            } catch {
                headContinuation.finish(throwing: error)
                continuation.finish(throwing: error)
            }
        }
        var heads = head.makeAsyncIterator()
        let text = try #require(try await heads.next(), "no response head")
        let lines = text.components(separatedBy: "\r\n")
        try #require(lines.first == "HTTP/1.1 200 OK", "\(text)")
        contentType = lines.first { $0.lowercased().hasPrefix("content-type:") }
            .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
    }

    /// The next event's notes.
    func nextList(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Note] {
        try await nextList(until: { _ in true }, sourceLocation: sourceLocation)
    }

    /// The notes of the first event to come that satisfies `condition`.
    func nextList(
        until condition: @escaping @Sendable ([Note]) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [Note] {
        try await withThrowingTaskGroup(of: [Note]?.self) { group in
            group.addTask {
                while let notes = try await self.iterator.next() {
                    if condition(notes) { return notes }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            defer { group.cancelAll() }
            let notes = try await group.next() ?? nil
            return try #require(notes, "no such event within 10 s", sourceLocation: sourceLocation)
        }
    }

    /// Whether the server ended the response (the last chunk, or the connection closed) within ten seconds.
    func isEnded() async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                while try await self.iterator.next() != nil {}
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }

    func close() {
        reader.cancel()
        channel.channel.close(promise: nil)
    }

    /// Reads the head, then the chunked body's events, until the last chunk.
    private static func read(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        head: AsyncThrowingStream<String, any Error>.Continuation,
        events: AsyncThrowingStream<[Note], any Error>.Continuation
    ) async throws {
        var received = ""
        var body = ""
        var headRead = false
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for try await buffer in inbound {
            received += String(buffer: buffer)
            if !headRead {
                guard let end = received.range(of: "\r\n\r\n") else { continue }
                head.yield(String(received[..<end.lowerBound]))
                head.finish()
                received = String(received[end.upperBound...])
                headRead = true
            }
            // Chunks: a hexadecimal size line, the data, CRLF; a size of 0 ends the body.
            while let sizeEnd = received.range(of: "\r\n"), let size = Int(received[..<sizeEnd.lowerBound], radix: 16) {
                let data = received[sizeEnd.upperBound...]
                guard data.utf8.count >= size + 2 else { break }
                if size == 0 { return }
                let start = data.startIndex
                let stop = data.utf8.index(start, offsetBy: size)
                body += data[start..<stop]
                received = String(data.utf8[data.utf8.index(stop, offsetBy: 2)...]) ?? ""
            }
            // Events: lines up to a blank line; the `data:` line of each `notes` event is a note list.
            while let end = body.range(of: "\n\n") {
                let lines = body[..<end.lowerBound].split(separator: "\n")
                body = String(body[end.upperBound...])
                guard lines.contains("event: notes"), let data = lines.first(where: { $0.hasPrefix("data: ") }) else {
                    continue
                }
                let list = try decoder.decode(NoteList.self, from: Data(data.dropFirst("data: ".count).utf8))
                events.yield(list.notes)
            }
        }
    }
}

/// An async iterator shared by the test's calls, one at a time.
private final class LockedIterator: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<[Note], any Error>.AsyncIterator

    init(_ iterator: AsyncThrowingStream<[Note], any Error>.AsyncIterator) {
        self.iterator = iterator
    }

    func next() async throws -> [Note]? {
        try await iterator.next()
    }
}
