/// What a statement remembers between rows so that coding a row costs no string hashing.
///
/// Swift's synthesized `init(from:)` and `encode(to:)` ask for keys in the same order every
/// time. The cache keeps, for the n-th key asked, the key and its column (or parameters): a
/// row then costs one short string comparison per key. A different order only falls back to
/// the statement's name map.
final class CodingCache {
    struct ColumnSlot {
        var key: String
        /// -1 when the row has no such column.
        var index: Int32
    }

    struct ParameterSlot {
        var key: String
        var target: ParameterTarget
        /// The parameters of the same name after the first (`:a` and `@a` are two parameters named `a`).
        var others: [Int32]
    }

    // The coding objects belong to one statement on one connection, used by one task at a time,
    // and none of these properties is reached re-entrantly: the dynamic exclusivity checks on them
    // cost a tenth of an insert, so they are turned off here.
    @exclusivity(unchecked) private var columnSlots: [ColumnSlot] = []
    @exclusivity(unchecked) private var columnTag: Int?
    @exclusivity(unchecked) private var parameterSlots: [ParameterSlot] = []
    @exclusivity(unchecked) private var parameterTag: Int?
    /// The generated record type whose keys fill the first column or parameter slots, in order; nil when the slots
    /// changed since (see ``prepareColumns(for:mapping:statement:in:)``).
    @exclusivity(unchecked) private var columnsRecordType: ObjectIdentifier?
    @exclusivity(unchecked) private var parametersRecordType: ObjectIdentifier?
    /// Whether the keys of the prepared record type name every parameter of the statement (see
    /// ``prepareParameters(for:mapping:statement:)``).
    @exclusivity(unchecked) private(set) var recordKeysBindEveryParameter = false
    /// The number of keys of the prepared record type when the n-th key is the statement's n-th parameter, the only
    /// one of its name, and the keys name every parameter; 0 otherwise. Such keys bind by index.
    @exclusivity(unchecked) private(set) var recordKeysInParameterOrder = 0

    /// The number of the statement's parameters.
    private let parameterCount: Int

    /// The last type encoded at the top level, and how it binds: a model type asked again costs an identifier
    /// compare instead of failing conformance look-ups.
    @exclusivity(unchecked) private var lastTopLevelType: ObjectIdentifier?
    @exclusivity(unchecked) private var lastTopLevelKind = TopLevelKind.keyed
    /// The type encoded at the top level when its kind is `.generated`.
    @exclusivity(unchecked) private(set) var lastTopLevelRecord: (any GeneratedRecord.Type)?

    /// How a value encoded at the top level binds the statement's parameters.
    enum TopLevelKind {
        /// A struct or dictionary: each key binds the parameter of its name.
        case keyed
        /// A storable value: it binds the only parameter.
        case single
        /// An array (but `[UInt8]`, a blob): its values bind the parameters in order.
        case list
        /// A `GeneratedRecord`: keyed, through its generated writer.
        case generated

        /// How StrataCore's encoder binds it.
        var shape: TopLevelParameters {
            switch self {
            case .keyed, .generated: .keyed
            case .single: .single
            case .list: .list
            }
        }
    }

    func topLevelKind<T>(_ type: T.Type) -> TopLevelKind {
        let identifier = ObjectIdentifier(T.self)
        if identifier != lastTopLevelType {
            lastTopLevelType = identifier
            // StrataCore's rule for every backend, with generated records apart.
            lastTopLevelKind =
                switch TopLevelParameters(T.self) {
                case .list: .list
                case .single: .single
                case .keyed: T.self is any GeneratedRecord.Type ? .generated : .keyed
                }
            lastTopLevelRecord = T.self as? any GeneratedRecord.Type
        }
        return lastTopLevelKind
    }

    init(parameterCount: Int) {
        self.parameterCount = parameterCount
    }

    // MARK: Columns

    /// Resets the key cache when the key mapping changed since the last row.
    func beginDecoding(mapping: KeyMapping) {
        let tag = mapping.cacheTag
        if tag == nil || tag != columnTag {
            columnSlots.removeAll(keepingCapacity: true)
            columnsRecordType = nil
            columnTag = tag
        }
    }

    /// Forgets every key's column: the statement's columns changed (see `Statement.refreshColumnsIfRecompiled`).
    func columnsChanged() {
        columnSlots.removeAll(keepingCapacity: true)
        columnsRecordType = nil
    }

    /// The column the `position`-th key asked for read in the last row, when `key` is that key again.
    @inline(__always)
    func cachedColumn(for key: String, at position: Int) -> Int32? {
        guard position < columnSlots.count else { return nil }
        let slot = columnSlots[position]
        return slot.key == key ? slot.index : nil
    }

    /// The column of the `position`-th key asked for, looked up by name and cached; -1 when there is none.
    @inline(never)
    func lookUpColumn(
        for key: String, at position: Int, mapping: KeyMapping, statement: Statement, in columns: Range<Int32>?
    ) -> Int32 {
        columnsRecordType = nil
        let name = mapping.name(for: key)
        let found = columns.map { statement.columnIndex(named: name, in: $0) } ?? statement.columnIndex(named: name)
        let index = found ?? -1
        let slot = ColumnSlot(key: key, index: index)
        if position < columnSlots.count {
            columnSlots[position] = slot
        } else if position == columnSlots.count {
            columnSlots.append(slot)
        }
        return index
    }

    // MARK: Parameters

    /// Starts an encode pass: resets the key cache when the key mapping changed since the last pass.
    func beginEncoding(mapping: KeyMapping) {
        let tag = mapping.cacheTag
        if tag == nil || tag != parameterTag {
            parameterSlots.removeAll(keepingCapacity: true)
            parametersRecordType = nil
            recordKeysBindEveryParameter = false
            recordKeysInParameterOrder = 0
            parameterTag = tag
        }
    }

    /// The parameter the `position`-th key bound in the last pass, when `key` is that key again.
    @inline(__always)
    func cachedParameter(for key: String, at position: Int) -> ParameterTarget? {
        guard position < parameterSlots.count else { return nil }
        let slot = parameterSlots[position]
        return slot.key == key ? slot.target : nil
    }

    /// The parameter of the `position`-th key, looked up by name and cached; index 0 when there is none.
    @inline(never)
    func lookUpParameter(for key: String, at position: Int, mapping: KeyMapping, statement: Statement)
        -> ParameterTarget
    {
        parametersRecordType = nil
        recordKeysBindEveryParameter = false
        recordKeysInParameterOrder = 0
        let indexes = (try? statement.parameterIndexes(for: mapping.name(for: key))) ?? []
        let target = ParameterTarget(position: position, index: indexes.first ?? 0, hasOthers: indexes.count > 1)
        let slot = ParameterSlot(key: key, target: target, others: Array(indexes.dropFirst()))
        if position < parameterSlots.count {
            parameterSlots[position] = slot
        } else if position == parameterSlots.count {
            parameterSlots.append(slot)
        }
        return target
    }

    /// The parameters after the first of the `position`-th key.
    func otherParameters(at position: Int) -> [Int32] {
        position >= 0 && position < parameterSlots.count ? parameterSlots[position].others : []
    }
}

// MARK: Generated records

extension CodingCache {
    /// Fills the first column slots with the keys of `R`, in the order its generated reader reads them, as a
    /// Codable pass asking the same keys would: names are resolved once per statement, not per row, and follow
    /// the statement when its columns change.
    @inline(__always)
    func prepareColumns<R: GeneratedRecord>(
        for type: R.Type, mapping: KeyMapping, statement: Statement, in columns: Range<Int32>?
    ) {
        let identifier = ObjectIdentifier(R.self)
        if identifier == columnsRecordType { return }
        for (position, key) in R.recordKeys.enumerated() where cachedColumn(for: key, at: position) == nil {
            _ = lookUpColumn(for: key, at: position, mapping: mapping, statement: statement, in: columns)
        }
        columnsRecordType = identifier
    }

    /// The column of the `position`-th key of the prepared record type, -1 when the row has none.
    @inline(__always)
    func recordColumn(at position: Int) -> Int32 {
        position >= 0 && position < columnSlots.count ? columnSlots[position].index : -1
    }

    /// The `position`-th key of the prepared record type, for an error.
    func recordColumnKey(at position: Int) -> String {
        position >= 0 && position < columnSlots.count ? columnSlots[position].key : "?\(position)"
    }

    /// Fills the first parameter slots with the keys of `R`, in the order its generated writer binds them.
    @inline(__always)
    func prepareParameters<R: GeneratedRecord>(for type: R.Type, mapping: KeyMapping, statement: Statement) {
        let identifier = ObjectIdentifier(R.self)
        if identifier == parametersRecordType { return }
        let keys = R.recordKeys
        for (position, key) in keys.enumerated() where cachedParameter(for: key, at: position) == nil {
            _ = lookUpParameter(for: key, at: position, mapping: mapping, statement: statement)
        }
        // Every key binds its parameters on every pass (nil binds NULL), so when the keys name them all, no pass
        // can leave one unbound and the binds need not be recorded.
        var named = Set<Int32>()
        for slot in parameterSlots.prefix(keys.count) where slot.target.index > 0 {
            named.insert(slot.target.index)
            named.formUnion(slot.others)
        }
        recordKeysBindEveryParameter = named.count == parameterCount
        let inOrder = parameterSlots.prefix(keys.count).enumerated().allSatisfy { offset, slot in
            slot.target.index == offset + 1 && !slot.target.hasOthers
        }
        recordKeysInParameterOrder =
            inOrder && parameterSlots.count >= keys.count && keys.count == parameterCount ? keys.count : 0
        parametersRecordType = identifier
    }

    /// The parameter of the `position`-th key of the prepared record type; index 0 when the statement has none.
    @inline(__always)
    func recordParameter(at position: Int) -> ParameterTarget {
        position >= 0 && position < parameterSlots.count
            ? parameterSlots[position].target : ParameterTarget(position: position, index: 0, hasOthers: false)
    }

    /// The `position`-th key of the prepared record type.
    func recordParameterKey(at position: Int) -> String {
        position >= 0 && position < parameterSlots.count ? parameterSlots[position].key : "?\(position)"
    }
}

/// Where the value of a key goes: the first (usually only) parameter of its name, 0 for none.
struct ParameterTarget {
    /// The key's position in the pass, which finds the other parameters of the name in the cache.
    var position: Int
    var index: Int32
    var hasOthers: Bool
}

extension Statement {
    /// The statement's coding cache, made on first use.
    var coding: CodingCache {
        if let cache = codingCache { return cache }
        let cache = CodingCache(parameterCount: parameterCount)
        codingCache = cache
        return cache
    }
}
