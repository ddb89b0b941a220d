import Foundation

/// The failure of the insert of one element of a batch (`insert(contentsOf:)`), on every backend.
package enum BatchInsertFailure {
    /// `error`, thrown by the insert of the element at `index` of a batch, located at it: a ``DatabaseError`` gets
    /// its ``DatabaseError/elementIndex``, an `EncodingError` or `DecodingError` the index as the first key of its
    /// coding path (as `JSONEncoder` locates an element of an array), and any other error becomes the
    /// ``DatabaseError/underlyingError`` of a ``DatabaseError/Code/invalidArgument`` error that has the index.
    package static func locate(_ error: any Error, atElement index: Int) -> any Error {
        let key = ElementKey(intValue: index)
        switch error {
        case let error as DatabaseError:
            return error.atElement(index)
        case EncodingError.invalidValue(let value, let context):
            return EncodingError.invalidValue(value, context.located(at: key))
        case DecodingError.typeMismatch(let type, let context):
            return DecodingError.typeMismatch(type, context.located(at: key))
        case DecodingError.valueNotFound(let type, let context):
            return DecodingError.valueNotFound(type, context.located(at: key))
        case DecodingError.keyNotFound(let codingKey, let context):
            return DecodingError.keyNotFound(codingKey, context.located(at: key))
        case DecodingError.dataCorrupted(let context):
            return DecodingError.dataCorrupted(context.located(at: key))
        default:
            return DatabaseError(
                code: .invalidArgument, message: "the insert of element \(index) of the batch failed: \(error)",
                underlyingError: error, elementIndex: index)
        }
    }
}

/// The coding key of an element of an array, as `JSONEncoder` names it.
private struct ElementKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

extension EncodingError.Context {
    fileprivate func located(at key: ElementKey) -> Self {
        Self(codingPath: [key] + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
    }
}

extension DecodingError.Context {
    fileprivate func located(at key: ElementKey) -> Self {
        Self(codingPath: [key] + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
    }
}
