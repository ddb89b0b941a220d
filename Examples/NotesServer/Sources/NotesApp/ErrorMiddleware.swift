public import Hummingbird
import Strata
import StrataPostgres

/// Turns an error that is not an HTTP error (a database error, most often) into a JSON 500, or a 503 once the pool is
/// closed (on either backend), and logs it. The client gets `{"error":{"message":...}}` and never the database's message, which may name
/// tables and SQL.
public struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as DatabaseError where error.code == .connectionClosed {
            context.logger.warning("request after the database closed", metadata: ["error": "\(error)"])
            throw HTTPError(.serviceUnavailable, message: "the server is shutting down")
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw HTTPError(.internalServerError, message: "internal server error")
        }
    }
}
