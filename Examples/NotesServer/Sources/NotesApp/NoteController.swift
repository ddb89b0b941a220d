import Foundation
public import Hummingbird
import ServiceLifecycle
public import Strata

/// The `/notes` routes: list, follow the list live, read, create, update, delete.
///
/// Every failure a client can cause is an `HTTPError` with a message, which Hummingbird sends as
/// `{"error":{"message":"..."}}`: a bad id or limit, empty content or a body that is not JSON (400), an unknown id
/// (404), a body over ``NotesRequestContext/maxBodySize`` (413).
///
/// Generic over the store's writer, as ``NoteStore`` is: the same routes on SQLite and PostgreSQL.
public struct NoteController<Writer: DatabaseWriter>: Sendable {
    /// How many notes `GET /notes` returns without `?limit=`.
    public static var defaultLimit: Int { 20 }
    /// The largest `?limit=`.
    public static var maxLimit: Int { 100 }

    public let store: NoteStore<Writer>

    public init(store: NoteStore<Writer>) {
        self.store = store
    }

    /// Adds the routes to `group` (mounted at `/notes`).
    public func addRoutes(to group: RouterGroup<NotesRequestContext>) {
        group
            .get(use: list)
            .get("live", use: live)
            .get(":id", use: show)
            .post(use: create)
            .put(":id", use: update)
            .delete(":id", use: delete)
    }

    /// `GET /notes?limit=N`: the N newest notes, newest first.
    @Sendable func list(_ request: Request, context: NotesRequestContext) async throws -> NoteList {
        let limit = try Self.limit(in: request)
        return NoteList(notes: try await store.latest(limit: limit))
    }

    /// `GET /notes/live?limit=N`: the N newest notes as server-sent events, each `event: notes` with the JSON of
    /// `GET /notes` as its data: the list now, then again after each commit that changes it (an observation of the
    /// database: a note written through this server, another server on the same database, or any client of it).
    ///
    /// The stream ends when the client goes away, and at graceful shutdown, so that the server can stop.
    @Sendable func live(_ request: Request, context: NotesRequestContext) async throws -> Response {
        let limit = try Self.limit(in: request)
        let encoder = context.responseEncoder
        let events = store.observeLatest(limit: limit).map { notes in
            var event = ByteBuffer(string: "event: notes\ndata: ")
            event.writeBytes(try encoder.encode(NoteList(notes: notes)))
            event.writeString("\n\n")
            return event
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody(asyncSequence: events.cancelOnGracefulShutdown()))
    }

    /// `GET /notes/:id`
    @Sendable func show(_ request: Request, context: NotesRequestContext) async throws -> Note {
        let id = try Self.id(in: context)
        guard let note = try await store.note(id: id) else {
            throw Self.notFound(id)
        }
        return note
    }

    /// `POST /notes` with `{"content": "..."}`: 201 with the note as stored, its id included, and its `Location`.
    @Sendable func create(_ request: Request, context: NotesRequestContext) async throws -> EditedResponse<Note> {
        let content = try await Self.content(of: request, context: context)
        let note = try await store.create(content: content)
        var headers = HTTPFields()
        if let id = note.id {
            headers[.location] = "/notes/\(id)"
        }
        return EditedResponse(status: .created, headers: headers, response: note)
    }

    /// `PUT /notes/:id` with `{"content": "..."}`: the note as stored after the edit, `updatedAt` set.
    @Sendable func update(_ request: Request, context: NotesRequestContext) async throws -> Note {
        let id = try Self.id(in: context)
        let content = try await Self.content(of: request, context: context)
        guard let note = try await store.update(id: id, content: content) else {
            throw Self.notFound(id)
        }
        return note
    }

    /// `DELETE /notes/:id`: 204, or 404 when there was no such note.
    @Sendable func delete(_ request: Request, context: NotesRequestContext) async throws -> HTTPResponse.Status {
        let id = try Self.id(in: context)
        guard try await store.delete(id: id) else {
            throw Self.notFound(id)
        }
        return .noContent
    }

    // MARK: Input

    /// The `:id` of the path: a positive 64-bit integer.
    static func id(in context: NotesRequestContext) throws -> Int64 {
        let text = context.parameters.get("id") ?? ""
        guard let id = Int64(text), id > 0 else {
            throw HTTPError(.badRequest, message: "the note id must be a positive integer, not \"\(text)\"")
        }
        return id
    }

    /// `?limit=`: from 1 to ``maxLimit``, ``defaultLimit`` when absent.
    static func limit(in request: Request) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else {
            return defaultLimit
        }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            throw HTTPError(.badRequest, message: "limit must be an integer from 1 to \(maxLimit), not \"\(text)\"")
        }
        return limit
    }

    /// The `content` of a JSON body: present, a string, and not blank.
    static func content(of request: Request, context: NotesRequestContext) async throws -> String {
        let input: NoteInput
        do {
            input = try await request.decode(as: NoteInput.self, context: context)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // Hummingbird answers an empty 413; say why, in JSON like every other error.
            throw HTTPError(
                .contentTooLarge, message: "the request body is larger than \(context.maxUploadSize) bytes")
        }
        guard !input.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw HTTPError(.badRequest, message: "content must not be empty")
        }
        return input.content
    }

    static func notFound(_ id: Int64) -> HTTPError {
        HTTPError(.notFound, message: "no note has the id \(id)")
    }
}
