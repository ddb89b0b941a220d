import Foundation
import Strata
import Testing

@Suite struct DateTests {
    /// 2024-02-29 13:45:30.250 UTC.
    private let leapDay = Date(timeIntervalSince1970: 1_709_214_330.25)

    private func single<Value: DatabaseValueConvertible>(
        _ query: String,
        binding value: some DatabaseValueConvertible,
        in db: Database,
        strategy: DateStrategy? = nil
    ) throws -> Value {
        let statement = try db.prepare(query: query)
        if let strategy { statement.dateStrategy = strategy }
        try statement.bind(value: value, at: 1)
        let row = try #require(try statement.next())
        return try row[0]
    }

    // MARK: .text

    @Test func textIsTheDefaultAndIsSQLiteFormatInUTC() throws {
        let db = try makeDatabase()
        let result = try stored(leapDay, in: db)
        #expect(result.type == "text")
        #expect(result.value == .text("2024-02-29 13:45:30.250"))
        #expect(try roundTrip(leapDay, in: db) == leapDay)
    }

    @Test func textRoundsToTheMillisecond() throws {
        let db = try makeDatabase()
        let date = Date(timeIntervalSince1970: 1.2345678)
        #expect(try stored(date, in: db).value == .text("1970-01-01 00:00:01.235"))
        let nearlyNextDay = Date(timeIntervalSince1970: 86_399.9996)
        #expect(try stored(nearlyNextDay, in: db).value == .text("1970-01-02 00:00:00.000"))
        let beforeEpoch = Date(timeIntervalSince1970: -0.5)
        #expect(try stored(beforeEpoch, in: db).value == .text("1969-12-31 23:59:59.500"))
        let millisecond = try roundTrip(date, in: db)
        #expect(abs(millisecond.timeIntervalSince(date)) < 0.001)
    }

    @Test func textComparesWithDatetimeNow() throws {
        let db = try makeDatabase()
        let now = Date()
        let past: Bool = try single(
            "SELECT ? < datetime('now')", binding: now.addingTimeInterval(-5), in: db)
        let future: Bool = try single(
            "SELECT ? > datetime('now')", binding: now.addingTimeInterval(5), in: db)
        let olderThanADay: Bool = try single(
            "SELECT ? < datetime('now', '-1 day')", binding: now.addingTimeInterval(-86_400 - 60), in: db)
        #expect(past)
        #expect(future)
        #expect(olderThanADay)
    }

    @Test func sqliteDateFunctionsReadTheText() throws {
        let db = try makeDatabase()
        let normalized: String = try single("SELECT datetime(?)", binding: leapDay, in: db)
        #expect(normalized == "2024-02-29 13:45:30")
        let seconds: Double = try single("SELECT (julianday(?) - 2440587.5) * 86400.0", binding: leapDay, in: db)
        #expect(abs(seconds - leapDay.timeIntervalSince1970) < 0.001)
    }

    @Test func textSortsChronologically() throws {
        let db = try makeDatabase()
        try db.execute(query: "CREATE TABLE event (at TEXT)")
        let insert = try db.prepare(query: "INSERT INTO event VALUES (?)")
        let dates = [-86_400.0 * 365 * 60, -1, 0, 0.5, 9.999, 10, 1e9, 4e9].map(Date.init(timeIntervalSince1970:))
        for date in dates.shuffled() {
            try insert.bind(value: date, at: 1)
            try insert.perform()
        }
        let select = try db.prepare(query: "SELECT at FROM event ORDER BY at")
        let milliseconds = { (date: Date) in (date.timeIntervalSince1970 * 1000).rounded() }
        let sorted = try select.map { try $0.at as Date }
        #expect(sorted.map(milliseconds) == dates.map(milliseconds))
    }

    @Test func textOutsideYears0To9999Throws() throws {
        let db = try makeDatabase()
        let farFuture = Date(timeIntervalSince1970: 300_000_000_000)
        let statement = try db.prepare(query: "SELECT ?")
        let error = expectError(.valueOutOfRange) { try statement.bind(value: farFuture, at: 1) }
        #expect(error.text.contains("Date"))
        // The other strategies store it.
        statement.dateStrategy = .integer
        try statement.bind(value: farFuture, at: 1)
        #expect(try statement.next()?[0] == farFuture)
    }

    // MARK: Other strategies

    @Test func integerIsUnixSeconds() throws {
        let db = try makeDatabase()
        let configure: (Statement) -> Void = { $0.dateStrategy = .integer }
        #expect(try stored(leapDay, in: db, configure: configure).value == .integer(1_709_214_330))
        #expect(try roundTrip(leapDay, in: db, configure: configure) == Date(timeIntervalSince1970: 1_709_214_330))
        let beforeEpoch = Date(timeIntervalSince1970: -1.5)
        #expect(try stored(beforeEpoch, in: db, configure: configure).value == .integer(-2))
        let text: String = try single(
            "SELECT datetime(?, 'unixepoch')", binding: leapDay, in: db, strategy: .integer)
        #expect(text == "2024-02-29 13:45:30")
    }

    @Test func realIsAJulianDay() throws {
        let db = try makeDatabase()
        let configure: (Statement) -> Void = { $0.dateStrategy = .real }
        #expect(try stored(Date(timeIntervalSince1970: 0), in: db, configure: configure).value == .real(2_440_587.5))
        let back = try roundTrip(leapDay, in: db, configure: configure)
        #expect(abs(back.timeIntervalSince(leapDay)) < 0.001)
        let text: String = try single(
            "SELECT strftime('%Y-%m-%d %H:%M:%f', ?)", binding: leapDay, in: db, strategy: .real)
        #expect(text == "2024-02-29 13:45:30.250")
    }

    @Test func unixMillisecondsIsAnInteger() throws {
        let db = try makeDatabase()
        let configure: (Statement) -> Void = { $0.dateStrategy = .unixMilliseconds }
        #expect(try stored(leapDay, in: db, configure: configure).value == .integer(1_709_214_330_250))
        #expect(try roundTrip(leapDay, in: db, configure: configure) == leapDay)
    }

    @Test func theDatabaseStrategyIsTheDefaultOfItsStatements() throws {
        let db = try makeDatabase()
        db.dateStrategy = .unixMilliseconds
        #expect(try stored(leapDay, in: db).value == .integer(1_709_214_330_250))
        #expect(try roundTrip(leapDay, in: db) == leapDay)
    }

    // MARK: Reading

    @Test func readingAcceptsWhatAnyStrategyWrote() throws {
        let db = try makeDatabase()
        for strategy in [DateStrategy.text, .integer, .real] {
            let value = try stored(leapDay, in: db) { $0.dateStrategy = strategy }.value
            let back = try read(Date.self, from: value, in: db)
            #expect(abs(back.timeIntervalSince(leapDay)) < 1, "\(strategy)")
        }
    }

    @Test(arguments: [
        ("2024-02-29 13:45:30.250", 1_709_214_330.25),
        ("2024-02-29 13:45:30", 1_709_214_330),
        ("2024-02-29 13:45", 1_709_214_300),
        ("2024-02-29", 1_709_164_800),
        ("2024-02-29T13:45:30Z", 1_709_214_330),
        ("2024-02-29T13:45:30.250Z", 1_709_214_330.25),
        ("2024-02-29t13:45:30z", 1_709_214_330),
        ("2024-02-29T15:45:30+02:00", 1_709_214_330),
        ("2024-02-29T08:15:30-0530", 1_709_214_330),
        ("2024-02-29T13:45:30.123456Z", 1_709_214_330.123456),
        ("1969-12-31 23:59:59", -1),
    ])
    func readingAcceptsISO8601AndSQLiteText(text: String, seconds: Double) throws {
        let db = try makeDatabase()
        let date = try read(Date.self, from: .text(text), in: db)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_01)
    }

    @Test(arguments: [
        "", "yesterday", "2024-02-30", "2023-02-29", "2024-13-01", "2024-1-01", "2024-02-29 24:00:00",
        "2024-02-29 13:45:30.", "2024-02-29 13:45:30 junk", "2024-02-29T13:45:30+25:00", "2024/02/29",
    ])
    func malformedDateTextThrows(text: String) throws {
        let db = try makeDatabase()
        let error = expectError(.invalidValue) { _ = try read(Date.self, from: .text(text), in: db) }
        #expect(error.text.contains("could not decode Date from TEXT"))
    }

    @Test func datetimeNowReadsAsADate() throws {
        let db = try makeDatabase()
        let row = try #require(try db.prepare(query: "SELECT datetime('now') AS now").next())
        let now: Date = try row.now
        #expect(abs(now.timeIntervalSinceNow) < 5)
    }

    @Test func dateFromOtherValuesThrows() throws {
        let db = try makeDatabase()
        expectError(.typeMismatch) { _ = try read(Date.self, from: .blob(Data([1])), in: db) }
        expectError(.unexpectedNull) { _ = try read(Date.self, from: .null, in: db) }
        expectError(.invalidValue) { _ = try read(Date.self, from: .real(.infinity), in: db) }
        #expect(try read(Date?.self, from: .null, in: db) == nil)
    }

    // MARK: The strategy-free protocol

    @Test func theProtocolRoundTripsEveryDate() throws {
        let dates = [leapDay, Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 300_000_000_000)]
        for date in dates {
            let back = try Date(databaseValue: date.databaseValue)
            #expect(abs(back.timeIntervalSince(date)) < 0.01, "\(date.databaseValue)")
        }
        #expect(leapDay.databaseValue == .text("2024-02-29 13:45:30.250"))
    }
}
