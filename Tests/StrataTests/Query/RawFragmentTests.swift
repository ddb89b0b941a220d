import Foundation
import Strata
import Testing

@Suite("Query: the placeholders of a raw fragment are its own")
struct RawFragmentTests {
    @Test func aNumberedPlaceholderNamesTheFragmentsOwnValue() throws {
        let db = try QueryFixtures.database()
        let request = QNote.filter(Column("mood") != "zz").filter(sql: "score > ?1", parameters: [15])
        #expect(try db.fetchAll(request).map(\.id) == [2, 4])
    }

    @Test func numberedPlaceholdersInAnyOrderAndRepeated() throws {
        let db = try QueryFixtures.database()
        let request = QNote.filter(Column("mood") == "happy")
            .filter(sql: "score BETWEEN ?2 AND ?1 AND ?2 > 0", parameters: [25, 15])
            .filter(Column("id") < 10)
        #expect(try db.fetchAll(request).map(\.id) == [2])
        #expect(try db.fetchCount(request) == 1)
    }

    @Test func plainPlaceholdersAfterANumberedFragmentTakeTheirOwnValues() throws {
        let db = try QueryFixtures.database()
        let request = QNote.filter(sql: "score >= ?1", parameters: [10])
            .filter(sql: "score < ?", parameters: [30])
            .filter(Column("mood") == "happy")
            .order(Column("id"))
            .limit(5)
        #expect(try db.fetchAll(request).map(\.id) == [1, 2])
    }

    @Test func aNumberBeyondTheFragmentsValuesThrows() throws {
        let db = try QueryFixtures.database()
        let error = expectError(.unknownParameter) {
            _ = try db.fetchAll(QNote.filter(Column("id") > 0).filter(sql: "score > ?2", parameters: [15]))
        }
        #expect(error?.message.contains("?2") == true)
        expectError(.unknownParameter) { _ = try db.fetchAll(QNote.filter(sql: "score > ?0", parameters: [15])) }
    }

    @Test func placeholdersInsideStringsAndCommentsAreText() throws {
        let db = try QueryFixtures.database()
        let request = QNote.filter(Column("id") > 0)
            .filter(sql: "content <> '?1' /* ?2 */ AND score > ?1 -- ?3", parameters: [15])
        #expect(try db.fetchAll(request).map(\.id) == [2, 4])
    }
}
