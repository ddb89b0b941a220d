import Foundation
import Strata
import StrataRecord
import Testing

@Table("note")
private struct TableNote: Codable, Equatable {
    var id: Int64?
    var createdAt: Date
    var content: String
}

@Suite("Generated records: basics")
struct GeneratedRecordTests {
    @Test("insert, find, fetchAll and typed columns go through the generated code")
    func roundTrip() throws {
        let db = try makeDatabase()
        try db.execute(
            query: "CREATE TABLE note (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, content TEXT NOT NULL)")
        var note = TableNote(id: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000), content: "hello swift")
        try db.insert(&note)
        #expect(note.id == 1)
        #expect(try db.find(TableNote.self, id: 1) == note)
        #expect(try db.fetchAll(TableNote.filter(TableNote.columns.content.like("%swift%"))) == [note])
        #expect(try db.fetchAll(TableNote.filter(TableNote.columns.id == 1)) == [note])
        #expect(try db.fetchAll(TableNote.filter(TableNote.columns.id == nil)).isEmpty)
        #expect(TableNote.recordKeys == ["id", "createdAt", "content"])
    }
}
