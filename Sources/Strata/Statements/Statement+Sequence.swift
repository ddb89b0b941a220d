/// `for row in statement` runs the statement from its start.
///
/// A `for`-`in` loop cannot throw from its sequence: if stepping fails, the loop ends and the
/// error is kept in ``Statement/iterationError``. Check it after the loop, or iterate with the
/// throwing cursor ``Statement/next()``, which never loses an error:
///
/// ```swift
/// for row in statement { ... }
/// if let error = statement.iterationError { throw error }
///
/// while let row = try statement.next() { ... }
/// ```
extension Statement: Sequence {
    public struct Iterator: IteratorProtocol {
        let statement: Statement
        private var finished = false

        init(statement: Statement) {
            self.statement = statement
        }

        public mutating func next() -> Row? {
            guard !finished else { return nil }
            do {
                if let row = try statement.next() { return row }
            } catch {
                statement.iterationError = error
            }
            finished = true
            return nil
        }
    }

    /// Rewinds the statement (keeping its bindings) and iterates its rows.
    public func makeIterator() -> Iterator {
        reset()
        return Iterator(statement: self)
    }
}
