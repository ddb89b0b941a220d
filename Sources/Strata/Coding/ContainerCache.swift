/// Keeps the last keyed container an `Encoder` or `Decoder` made, for the next value of the same
/// type.
///
/// A value's synthesized `init(from:)` or `encode(to:)` asks for a keyed container once per row.
/// Making one costs an allocation and, in Strata's generic code, generic metadata look-ups for the
/// container and the standard library's box around it: a tenth of decoding a small row. Strata's
/// containers hold no state of their own (they read and write through the coding object they point
/// to), so the one made for the first row serves every row after it.
///
/// The cache must belong to an object the container does not point to, or the two would keep each
/// other alive.
struct ContainerCache {
    private var containerType: ObjectIdentifier?
    private var box: AnyObject?

    /// The cached `Container`, or the one `make` returns, cached in its place.
    @inline(__always)
    mutating func container<Container>(_ make: () -> Container) -> Container {
        if containerType == ObjectIdentifier(Container.self), let box {
            // The box was made below for this very type.
            return unsafeDowncast(box, to: Reused<Container>.self).value
        }
        let container = make()
        box = Reused(container)
        containerType = ObjectIdentifier(Container.self)
        return container
    }

    private final class Reused<Value> {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
