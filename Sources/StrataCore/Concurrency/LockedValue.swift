package import Foundation

/// A value reached only under a lock: the bookkeeping of ``ConnectionPool``.
///
/// `@unchecked Sendable` is sound because `value` is `Sendable` and is only ever read or written inside
/// ``withLock(_:)``, while `lock` is held.
///
/// The lock is a pthread mutex (`NSLock`) rather than `Synchronization.Mutex` on purpose: the thread sanitizer sees the
/// ordering a pthread mutex gives, and reports false races through `Mutex` on Linux.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    @inlinable
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock. Keep `body` short, and never suspend or block in it.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
