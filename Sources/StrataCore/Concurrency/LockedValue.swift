import Foundation

/// A value reached only under a lock: the bookkeeping of ``ConnectionPool``.
///
/// `@unchecked Sendable` is sound because `value` is `Sendable` and is only ever read or written inside
/// ``withLock(_:)``, while `lock` is held.
///
/// The lock is a pthread mutex (`NSLock`) rather than `Synchronization.Mutex` on purpose: the thread sanitizer sees the
/// ordering a pthread mutex gives, and reports false races through `Mutex` on Linux.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock. Keep `body` short, and never suspend or block in it.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
