import Foundation
import Strata
import Testing

@Suite("Query: expressions render to SQL with bound values")
struct ExpressionTests {
    /// The WHERE clause of a request filtered by `predicate`.
    func whereClause(_ predicate: SQLExpression) -> String {
        let sql = QNote.filter(predicate).sql
        return sql.components(separatedBy: " WHERE ").last ?? sql
    }

    @Test func comparisonsQualifyTheColumnAndBindTheValue() {
        #expect(whereClause(Column("mood") == "happy") == #""note"."mood" = ?"#)
        #expect(whereClause(Column("mood") != "happy") == #""note"."mood" <> ?"#)
        #expect(whereClause(Column("score") < 3) == #""note"."score" < ?"#)
        #expect(whereClause(Column("score") <= 3) == #""note"."score" <= ?"#)
        #expect(whereClause(Column("score") > 3) == #""note"."score" > ?"#)
        #expect(whereClause(Column("score") >= 3) == #""note"."score" >= ?"#)
        #expect(whereClause(3 < Column("score")) == #"? < "note"."score""#)
        #expect(whereClause(Column("score") == Column("id")) == #""note"."score" = "note"."id""#)
    }

    @Test func nilComparisonsAreIsNull() {
        #expect(whereClause(Column("archivedAt") == nil) == #""note"."archivedAt" IS NULL"#)
        #expect(whereClause(Column("archivedAt") != nil) == #""note"."archivedAt" IS NOT NULL"#)
        let missing: String? = nil
        #expect(whereClause(Column("mood") == missing) == #""note"."mood" IS NULL"#)
        #expect(whereClause(Column("mood") != missing) == #""note"."mood" IS NOT NULL"#)
        #expect(whereClause(Column("archivedAt").isNull) == #""note"."archivedAt" IS NULL"#)
    }

    @Test func logicAndArithmeticParenthesizeOperands() {
        #expect(
            whereClause(Column("mood") == "happy" && Column("archivedAt") == nil)
                == #"("note"."mood" = ?) AND ("note"."archivedAt" IS NULL)"#)
        #expect(
            whereClause(Column("score") > 1 || !(Column("mood") == "sad"))
                == #"("note"."score" > ?) OR (NOT ("note"."mood" = ?))"#)
        #expect(whereClause(Column("score") + 1 > 2) == #"("note"."score" + ?) > ?"#)
        #expect(whereClause(Column("score") * 2 - 1 == 3) == #"(("note"."score" * ?) - ?) = ?"#)
        #expect(whereClause(Column("score") / Column("id") >= 1) == #"("note"."score" / "note"."id") >= ?"#)
    }

    @Test func likeContainsAndBetween() {
        #expect(whereClause(Column("content").like("%swift%")) == #""note"."content" LIKE ?"#)
        #expect(whereClause([1, 2, 3].contains(Column("id"))) == #""note"."id" IN (?, ?, ?)"#)
        #expect(whereClause([Int]().contains(Column("id"))) == "(1 = 0)")
        #expect(whereClause(Column("score").between(1, 9)) == #""note"."score" BETWEEN ? AND ?"#)
        #expect(whereClause((1...9).contains(Column("score"))) == #""note"."score" BETWEEN ? AND ?"#)
    }

    @Test func functions() {
        #expect(QNote.select(count(Column("id"))).sql == #"SELECT count("note"."id") FROM "note""#)
        #expect(QNote.select(count(.all)).sql == #"SELECT count(*) FROM "note""#)
        #expect(
            QNote.select(count(distinct: Column("mood"))).sql == #"SELECT count(DISTINCT "note"."mood") FROM "note""#)
        #expect(QNote.select(sum(Column("score"))).sql == #"SELECT sum("note"."score") FROM "note""#)
        #expect(QNote.select(min(Column("score"))).sql == #"SELECT min("note"."score") FROM "note""#)
        #expect(QNote.select(max(Column("score"))).sql == #"SELECT max("note"."score") FROM "note""#)
        #expect(QNote.select(avg(Column("score"))).sql == #"SELECT avg("note"."score") FROM "note""#)
        #expect(QNote.select(length(Column("content"))).sql == #"SELECT length("note"."content") FROM "note""#)
        #expect(QNote.select(lower(Column("mood"))).sql == #"SELECT lower("note"."mood") FROM "note""#)
        #expect(QNote.select(upper(Column("mood"))).sql == #"SELECT upper("note"."mood") FROM "note""#)
        #expect(
            QNote.select(coalesce(Column("archivedAt"), "never")).sql
                == #"SELECT coalesce("note"."archivedAt", ?) FROM "note""#)
    }

    @Test func identifiersAreQuotedWithQuotesDoubled() {
        #expect(whereClause(Column(#"a"b"#) == 1) == #""note"."a""b" = ?"#)
        #expect(whereClause(Column(#"x" OR 1=1 --"#) == 1) == #""note"."x"" OR 1=1 --" = ?"#)
    }

    @Test func rawFragmentsKeepTheirParameters() {
        #expect(whereClause(SQLExpression(sql: "length(content) > :n", parameters: ["n": 3])) == "length(content) > :n")
        #expect(
            whereClause(Column("id") > 1 && SQLExpression(sql: "score < ?", parameters: [9]))
                == #"("note"."id" > ?) AND (score < ?)"#)
    }

    @Test func everyOperatorSelectsTheRightRows() throws {
        let db = try QueryFixtures.database()
        func ids(_ predicate: SQLExpression) throws -> [Int64?] {
            try db.fetchAll(QNote.filter(predicate).order(Column("id"))).map(\.id)
        }
        #expect(try ids(Column("mood") == "happy") == [1, 2, 4])
        #expect(try ids(Column("mood") != "happy") == [3, 5])
        #expect(try ids(Column("score") < 10) == [3, 5])
        #expect(try ids(Column("score") <= 10) == [1, 3, 5])
        #expect(try ids(Column("score") > 10) == [2, 4])
        #expect(try ids(Column("score") >= 10) == [1, 2, 4])
        #expect(try ids(Column("archivedAt") == nil) == [1, 3, 4])
        #expect(try ids(Column("archivedAt") != nil) == [2, 5])
        #expect(try ids(Column("mood") == "happy" && Column("archivedAt") == nil) == [1, 4])
        #expect(try ids(Column("score") > 20 || Column("mood") == "sad") == [3, 4, 5])
        #expect(try ids(!(Column("mood") == "happy")) == [3, 5])
        #expect(try ids(Column("score") + 5 == 15) == [1])
        #expect(try ids(Column("score") - 5 == 0) == [3])
        #expect(try ids(Column("score") * 2 == 40) == [2])
        #expect(try ids(Column("score") / 10 == 3) == [4])
        #expect(try ids(Column("content").like("%swift%")) == [1, 4])
        #expect(try ids([2, 4, 99].contains(Column("id"))) == [2, 4])
        #expect(try ids([Int64]().contains(Column("id"))) == [])
        #expect(try ids(Column("score").between(5, 10)) == [1, 3])
        #expect(try ids((5...10).contains(Column("score"))) == [1, 3])
        #expect(try ids(Column("archivedAt") == QueryFixtures.date) == [2, 5])
        #expect(try ids(SQLExpression(sql: "length(content) > :n", parameters: ["n": 10])) == [1, 2, 4])
    }

    @Test func aggregatesComputeTheirValues() throws {
        let db = try QueryFixtures.database()
        #expect(try db.fetchOne(Int.self, QNote.select(count(Column("archivedAt")))) == 2)
        #expect(try db.fetchOne(Int.self, QNote.select(count(.all))) == 5)
        #expect(try db.fetchOne(Int.self, QNote.select(count(distinct: Column("mood")))) == 2)
        #expect(try db.fetchOne(Int.self, QNote.select(sum(Column("score")))) == 66)
        #expect(try db.fetchOne(Int.self, QNote.select(min(Column("score")))) == 1)
        #expect(try db.fetchOne(Int.self, QNote.select(max(Column("score")))) == 30)
        #expect(try db.fetchOne(Double.self, QNote.select(avg(Column("score")))) == 13.2)
        #expect(try db.fetchOne(Int.self, QNote.filter(Column("id") == 3).select(length(Column("content")))) == 9)
        #expect(try db.fetchOne(String.self, QNote.filter(Column("id") == 3).select(upper(Column("mood")))) == "SAD")
        #expect(
            try db.fetchOne(String.self, QNote.filter(Column("id") == 4).select(lower(Column("content"))))
                == "swift concurrency")
        #expect(
            try db.fetchAll(String.self, QNote.select(coalesce(Column("archivedAt"), "never")).order(Column("id")))
                == ["never", "2023-11-14 22:13:20.000", "never", "never", "2023-11-14 22:13:20.000"])
    }
}

@Suite("Query: comparing two columns is SQL, not Swift's ==")
struct ColumnComparisonTests {
    @Test func twoColumnsCompareIntoAnExpression() {
        let predicate = Column("noteId", table: QTag.self) == Column("id")
        #expect(type(of: predicate) == SQLExpression.self)
        #expect(QNote.filter(predicate).sql.hasSuffix(#"WHERE "tag"."noteId" = "note"."id""#))
    }
}

@Suite("Query: LIKE with an escape character, and IN with nil")
struct LikeAndInTests {
    private struct Entry: Model {
        static let tableName = "entry"
        var id: Int64?
        var content: String
        var score: Int?
    }

    private func database() throws -> Database {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE entry (id INTEGER PRIMARY KEY, content TEXT NOT NULL, score INTEGER);
                INSERT INTO entry (content, score) VALUES ('100% sure', 1), ('1000 sure', 2), ('a_b', NULL), ('axb', 3),
                    ('back\\slash', NULL);
                """)
        return db
    }

    @Test func anEscapedWildcardMatchesItself() throws {
        let db = try database()
        #expect(try db.fetchAll(Entry.filter(Column("content").like("100%"))).count == 2)
        #expect(try db.fetchAll(Entry.filter(Column("content").like("100\\%%", escape: "\\"))).map(\.id) == [1])
        #expect(try db.fetchAll(Entry.filter(Column("content").like("a!_b", escape: "!"))).map(\.id) == [3])
        #expect(try db.fetchAll(Entry.filter(Column("content").like("A_B"))).map(\.id) == [3, 4])
        // Without an escape character a backslash is an ordinary character, on every backend.
        #expect(try db.fetchAll(Entry.filter(Column("content").like("back\\slash"))).map(\.id) == [5])
    }

    @Test func anEscapeThatIsNotOneCharacterThrows() throws {
        let db = try database()
        expectError(.sqlite) { _ = try db.fetchAll(Entry.filter(Column("content").like("a", escape: "ab"))) }
    }

    @Test func aNilInAnInListMatchesNull() throws {
        let db = try database()
        let withNil: [Int?] = [1, nil]
        #expect(try db.fetchAll(Entry.filter(withNil.contains(Column("score")))).map(\.id) == [1, 3, 5])
        #expect(try db.fetchAll(Entry.filter(!withNil.contains(Column("score")))).map(\.id) == [2, 4])
        let onlyNil: [Int?] = [nil]
        #expect(try db.fetchAll(Entry.filter(onlyNil.contains(Column("score")))).map(\.id) == [3, 5])
        #expect(try db.fetchAll(Entry.filter([Int?]().contains(Column("score")))).isEmpty)
        #expect(try db.fetchAll(Entry.filter(![Int?]().contains(Column("score")))).count == 5)
    }

    @Test func anEmptyInListRendersNoEmptyParentheses() {
        let request = Entry.filter([Int]().contains(Column("id")))
        #expect(!request.sql.contains("()"))
    }
}
