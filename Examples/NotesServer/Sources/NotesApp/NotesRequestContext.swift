public import Foundation
public import Hummingbird

/// The request context of the app: Hummingbird's basic context with a smaller body limit and sorted JSON keys.
public struct NotesRequestContext: RequestContext {
    /// The largest request body the app decodes, in bytes: a larger one is answered 413.
    public static let maxBodySize = 64 * 1024

    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    public var maxUploadSize: Int { Self.maxBodySize }

    /// Hummingbird's encoder (ISO 8601 dates), with keys in a stable order.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
