import SwiftSyntax

/// The struct's members as each combination of its `#if` clauses compiles them: the stored properties and coding
/// keys that `Codable` sees depend on which clauses are active, so `@Table` generates its code once per combination,
/// under the same conditions.
///
/// Only `#if` blocks that declare stored properties or `CodingKeys`, or cases inside `CodingKeys`, make
/// combinations; any other `#if` block is left to the compiler.
indirect enum RecordConfiguration {
    /// The members of one combination, with no `#if` left: the struct's members, and the members of its
    /// `CodingKeys` enum when it declares one.
    case members([DeclSyntax], codingKeys: [DeclSyntax]?)
    /// One `#if` block: each clause's combinations, under its condition (nil for `#else`).
    case clauses([(condition: String?, configuration: RecordConfiguration)])

    /// The combinations of `members`, splitting at the first relevant `#if` block of the struct, then of its
    /// `CodingKeys`.
    init(members: [DeclSyntax]) {
        if let index = members.firstIndex(where: { Self.declaresCodedMembers($0) }),
            let block = members[index].as(IfConfigDeclSyntax.self)
        {
            self = .clauses(
                Self.clauses(of: block).map { condition, clauseMembers in
                    var spliced = Array(members[..<index])
                    spliced += clauseMembers
                    spliced += members[(index + 1)...]
                    return (condition, RecordConfiguration(members: spliced))
                })
            return
        }
        guard let codingKeys = members.lazy.compactMap({ $0.as(EnumDeclSyntax.self) }).first(where: \.isCodingKeys)
        else {
            self = .members(members, codingKeys: nil)
            return
        }
        self = RecordConfiguration(members: members, codingKeys: codingKeys.memberBlock.members.map(\.decl))
    }

    private init(members: [DeclSyntax], codingKeys: [DeclSyntax]) {
        guard let index = codingKeys.firstIndex(where: { Self.declaresCases($0) }),
            let block = codingKeys[index].as(IfConfigDeclSyntax.self)
        else {
            self = .members(members, codingKeys: codingKeys)
            return
        }
        self = .clauses(
            Self.clauses(of: block).map { condition, clauseMembers in
                var spliced = Array(codingKeys[..<index])
                spliced += clauseMembers
                spliced += codingKeys[(index + 1)...]
                return (condition, RecordConfiguration(members: members, codingKeys: spliced))
            })
    }

    /// How many combinations there are.
    var count: Int {
        switch self {
        case .members: 1
        case .clauses(let clauses): clauses.reduce(0) { $0 + $1.configuration.count }
        }
    }

    /// The members of every combination.
    var combinations: [(members: [DeclSyntax], codingKeys: [DeclSyntax]?)] {
        switch self {
        case .members(let members, let codingKeys): [(members, codingKeys)]
        case .clauses(let clauses): clauses.flatMap(\.configuration.combinations)
        }
    }

    /// The clauses of an `#if` block with their members, and an `#else` with none when the block has no `#else`.
    private static func clauses(of block: IfConfigDeclSyntax) -> [(String?, [DeclSyntax])] {
        var result: [(String?, [DeclSyntax])] = block.clauses.map { clause in
            let members: [DeclSyntax] =
                if case .decls(let items) = clause.elements { items.map(\.decl) } else { [] }
            return (clause.condition?.trimmedDescription, members)
        }
        if !block.clauses.contains(where: { $0.poundKeyword.tokenKind == .poundElse }) {
            result.append((nil, []))
        }
        return result
    }

    /// Whether `decl` is an `#if` block that declares, in some clause, an instance property or a `CodingKeys`.
    private static func declaresCodedMembers(_ decl: DeclSyntax) -> Bool {
        guard let block = decl.as(IfConfigDeclSyntax.self) else { return false }
        return block.clauses.contains { clause in
            guard case .decls(let items) = clause.elements else { return false }
            return items.contains { item in
                if let variable = item.decl.as(VariableDeclSyntax.self) {
                    return !variable.isStatic && !variable.has(.lazy) && variable.bindings.contains(where: \.isStored)
                }
                if item.decl.declaredName == "CodingKeys" { return true }
                return declaresCodedMembers(item.decl)
            }
        }
    }

    /// Whether `decl` is an `#if` block that declares enum cases in some clause.
    private static func declaresCases(_ decl: DeclSyntax) -> Bool {
        guard let block = decl.as(IfConfigDeclSyntax.self) else { return false }
        return block.clauses.contains { clause in
            guard case .decls(let items) = clause.elements else { return false }
            return items.contains { $0.decl.is(EnumCaseDeclSyntax.self) || declaresCases($0.decl) }
        }
    }
}

extension DeclSyntax {
    /// The name of a type, typealias or enum the declaration declares, nil for other declarations.
    var declaredName: String? {
        if let decl = self.as(EnumDeclSyntax.self) { return decl.name.text.trimmingBackticks }
        if let decl = self.as(StructDeclSyntax.self) { return decl.name.text.trimmingBackticks }
        if let decl = self.as(ClassDeclSyntax.self) { return decl.name.text.trimmingBackticks }
        if let decl = self.as(ActorDeclSyntax.self) { return decl.name.text.trimmingBackticks }
        if let decl = self.as(TypeAliasDeclSyntax.self) { return decl.name.text.trimmingBackticks }
        return nil
    }
}

extension EnumDeclSyntax {
    var isCodingKeys: Bool { name.text.trimmingBackticks == "CodingKeys" }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// Whether the declaration has the modifier `keyword`.
    func has(_ keyword: Keyword) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(keyword) }
    }
}

extension PatternBindingSyntax {
    /// Whether the binding stores a value: no accessors, or only observers.
    var isStored: Bool {
        guard let accessors = accessorBlock else { return true }
        switch accessors.accessors {
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy {
                [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
            }
        }
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
