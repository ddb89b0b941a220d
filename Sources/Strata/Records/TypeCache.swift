/// Objects kept per model type (its SQL and prepared statements), with the last one asked for
/// beside the dictionary: a batch of one type costs a pointer compare per row, not a hash.
struct TypeCache<Value: AnyObject> {
    private var values: [ObjectIdentifier: Value] = [:]
    private var lastType: ObjectIdentifier?
    private var lastValue: Value?

    /// The value kept for `type`.
    mutating func value(for type: Any.Type) -> Value? {
        let identifier = ObjectIdentifier(type)
        if identifier == lastType, let lastValue { return lastValue }
        guard let value = values[identifier] else { return nil }
        lastType = identifier
        lastValue = value
        return value
    }

    /// Keeps `value` for `type`, replacing what was kept.
    mutating func set(_ value: Value, for type: Any.Type) {
        let identifier = ObjectIdentifier(type)
        values[identifier] = value
        lastType = identifier
        lastValue = value
    }

    mutating func removeAll() {
        values.removeAll()
        lastType = nil
        lastValue = nil
    }
}
