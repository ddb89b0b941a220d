import Foundation
import Strata
import Testing

@Suite("Query: redirection decodes a selection into any type")
struct RedirectionTests {
    struct Stats: Decodable, Equatable {
        var newest: Int64
        var total: Int
    }

    @Test func aggregatesReadIntoAStructByTheirKeys() throws {
        let db = try QueryFixtures.database()
        let request = QNote.select(max(Column("id")).forKey("newest"), count(Column("id")).forKey("total"))
        #expect(request.sql == #"SELECT max("note"."id") AS "newest", count("note"."id") AS "total" FROM "note""#)
        #expect(try db.fetchOne(Stats.self, request) == Stats(newest: 5, total: 5))
        #expect(try db.fetchAll(Stats.self, request) == [Stats(newest: 5, total: 5)])
    }

    @Test func aScalarReadsTheOnlyColumn() throws {
        let db = try QueryFixtures.database()
        #expect(try db.fetchOne(Int64.self, QNote.select(max(Column("id")))) == 5)
        #expect(
            try db.fetchAll(String.self, QNote.select(Column("mood")).order(Column("id"))) == [
                "happy", "happy", "sad", "happy", "sad",
            ])
        #expect(
            try db.fetchOne(String?.self, QNote.select(Column("archivedAt")).filter(Column("id") == 1)) == .some(nil))
        #expect(try db.fetchOne(Int.self, QNote.select(Column("id")).filter(Column("id") == 99)) == nil)
        #expect(
            try db.fetchOne(DatabaseValue.self, QNote.select(Column("score")).filter(Column("id") == 2)) == .integer(20)
        )
    }

    @Test func aScalarFetchOneOfANullValueIsNil() throws {
        let db = try QueryFixtures.database()
        try db.execute(query: "DELETE FROM tag; DELETE FROM note")
        #expect(try db.fetchOne(Int64.self, QNote.select(max(Column("id")))) == nil)
        #expect(try db.fetchOne(Int.self, query: "SELECT max(id) FROM note") == nil)
        #expect(try db.fetchOne(String.self, query: "SELECT NULL") == nil)
        #expect(try db.fetchOne(Date.self, query: "SELECT NULL") == nil)
        // An optional type still tells a NULL row from no row, and DatabaseValue reads NULL as itself.
        #expect(try db.fetchOne(Int?.self, query: "SELECT NULL") == .some(nil))
        #expect(try db.fetchOne(Int?.self, query: "SELECT 1 WHERE 0") == nil)
        #expect(try db.fetchOne(DatabaseValue.self, query: "SELECT NULL") == .null)
        // A NULL among the rows of fetchAll is still an error for a non-optional type.
        expectError(.unexpectedNull) { _ = try db.fetchAll(Int.self, query: "SELECT max(id) FROM note") }
    }

    @Test func aColumnSelectedUnderAnotherKeyReadsIntoThatProperty() throws {
        let db = try QueryFixtures.database()
        struct Summary: Decodable, Equatable {
            var text: String
            var size: Int
        }
        let request = QNote.select(Column("content").forKey("text"), length(Column("content")).forKey("size"))
            .filter(Column("id") == 3)
        #expect(try db.fetchOne(Summary.self, request) == Summary(text: "rainy day", size: 9))
    }

    @Test func aTypeWhoseKeysTheSelectionLacksIsADecodingErrorNamingTheKey() throws {
        let db = try QueryFixtures.database()
        let error = #expect(throws: DecodingError.self) {
            _ = try db.fetchOne(Stats.self, QNote.select(max(Column("id")).forKey("newest")))
        }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "total")
        #expect(context.debugDescription.contains("total"))
    }

    @Test func aScalarFromManyColumnsThrows() throws {
        let db = try QueryFixtures.database()
        expectError(.invalidArgument) { _ = try db.fetchOne(Int.self, QNote.select(Column("id"), Column("score"))) }
    }
}
