import Foundation
import Strata
import Testing

@Suite struct SmokeTests {
    @Test func designTour() throws {
        let db = try Database()
        try db.execute(query: "CREATE TABLE foo (name TEXT, age INTEGER)")
        let insert = try db.prepare(query: "INSERT INTO foo (name, age) VALUES (:name, :age)")
        try insert.bind(value: "Bar", for: "name")
        try insert.bind(value: 42, for: "age")
        try insert.perform()
        try insert.bind(value: 43, at: 2)
        try insert.perform()
        let select = try db.prepare(query: "SELECT name, age FROM foo")
        guard case .row(let row) = try select.step() else { Issue.record("no row"); return }
        let name: String = try row["name"]
        let age: Int = try row.age
        let maybe: Int? = try row["age"]
        let first: String = try row[0]
        #expect(name == "Bar" && age == 42 && maybe == 42 && first == "Bar")
        var ages: [Int] = []
        for row in select { ages.append(try row.age) }
        #expect(ages == [42, 43])
        #expect(select.iterationError == nil)
        let tiny = try db.prepare(query: "SELECT 300 AS v")
        let r = try #require(try tiny.next())
        #expect(throws: DatabaseError.self) { let _: Int8 = try r.v }
        do { let _: Int8 = try r.v } catch { print(error) }
        db.close()
        #expect(throws: DatabaseError.self) { try select.step() }
        db.close()
    }
}
