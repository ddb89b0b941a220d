// swift-format-ignore-file
import Foundation
import Strata
import StrataRecord
import Testing

// README.md's "Generated records": the declaration at file scope (an extension macro cannot expand on a local
// type), the calls in a test.

// snippet: README.md 9
@Table("reading")
struct Reading: Codable, Equatable {
    var id: Int64?
    var sensor: String
    var takenAt: Date
    var celsius: Double
}
// end snippet

@Test("README: generated records") func readmeGeneratedRecords() async throws {
    let db = try Database()
    try db.execute(
        query:
            "CREATE TABLE reading (id INTEGER PRIMARY KEY, sensor TEXT NOT NULL, takenAt TEXT NOT NULL, celsius REAL)")
    try db.execute(
        query: "INSERT INTO reading (sensor, takenAt, celsius) VALUES ('cellar', '2026-11-01 08:00:00.000', 12.0)")
    // snippet: README.md 10
    var reading = Reading(id: nil, sensor: "greenhouse", takenAt: Date(), celsius: 21.5)
    try db.insert(&reading)                      // the generated writer binds by index; reading.id is filled
    let warm = try db.fetchAll(Reading.filter(Reading.columns.celsius > 20).order(Reading.columns.takenAt.desc))
    let same = try db.find(Reading.self, id: reading.id)
    // Reading.columns.celsius > "warm"          // does not compile: a Double column takes Doubles
    // end snippet
    #expect(reading.id == 2)
    #expect(warm == [reading])
    #expect(same == reading)
    #expect(Reading.columns.celsius.name == "celsius")
    #expect(Reading.recordKeys == ["id", "sensor", "takenAt", "celsius"])
}
