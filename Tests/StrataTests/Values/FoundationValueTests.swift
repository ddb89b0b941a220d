import Foundation
import Strata
import Testing

@Suite struct FoundationValueTests {
    // MARK: String

    @Test func stringIsText() throws {
        let db = try makeDatabase()
        #expect(try stored("hello", in: db).type == "text")
        #expect(try roundTrip("hello", in: db) == "hello")
    }

    @Test(arguments: [DatabaseValue.integer(1), .real(1.5), .blob(Data("x".utf8))])
    func stringFromOtherStorageClassesThrows(value: DatabaseValue) throws {
        let db = try makeDatabase()
        let error = expectError(.typeMismatch) { _ = try read(String.self, from: value, in: db) }
        #expect(error.text.contains("could not decode String from \(value.storageClassName)"))
    }

    // MARK: Data

    @Test func dataIsABlob() throws {
        let db = try makeDatabase()
        let data = Data([0, 1, 2, 0, 255])
        let result = try stored(data, in: db)
        #expect(result.type == "blob")
        #expect(result.value == .blob(data))
        #expect(try roundTrip(data, in: db) == data)
        #expect(try read(Data.self, from: .text("abc"), in: db) == Data("abc".utf8))
        expectError(.typeMismatch) { _ = try read(Data.self, from: .integer(1), in: db) }
        expectError(.unexpectedNull) { _ = try read(Data.self, from: .null, in: db) }
    }

    @Test func largeDataRoundTrips() throws {
        let db = try makeDatabase()
        let data = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        #expect(try roundTrip(data, in: db) == data)
    }

    // MARK: UUID

    private let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

    @Test func uuidIsASixteenByteBlobByDefault() throws {
        let db = try makeDatabase()
        let result = try stored(uuid, in: db)
        #expect(result.type == "blob")
        let expected = Data([
            0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
        ])
        #expect(result.value == .blob(expected))
        #expect(try roundTrip(uuid, in: db) == uuid)
    }

    @Test func uuidIsTextOnRequest() throws {
        let db = try makeDatabase()
        db.uuidStrategy = .text
        #expect(try stored(uuid, in: db).value == .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try roundTrip(uuid, in: db) == uuid)
        let perStatement = try stored(uuid, in: try makeDatabase()) { $0.uuidStrategy = .text }
        #expect(perStatement.type == "text")
    }

    @Test func uuidReadsBlobAndText() throws {
        let db = try makeDatabase()
        let blob: DatabaseValue = try stored(uuid, in: db).value
        #expect(try read(UUID.self, from: blob, in: db) == uuid)
        #expect(try read(UUID.self, from: .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), in: db) == uuid)
        #expect(try read(UUID.self, from: .text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"), in: db) == uuid)
        #expect(try read(UUID?.self, from: .null, in: db) == nil)
    }

    @Test(arguments: [
        DatabaseValue.blob(Data(count: 15)), .blob(Data(count: 17)), .blob(Data()), .text("not-a-uuid"), .text(""),
    ])
    func aMalformedUUIDThrows(value: DatabaseValue) throws {
        let db = try makeDatabase()
        let error = expectError(.invalidValue) { _ = try read(UUID.self, from: value, in: db) }
        #expect(error.text.contains("UUID"))
    }

    @Test func uuidFromANumberThrows() throws {
        let db = try makeDatabase()
        expectError(.typeMismatch) { _ = try read(UUID.self, from: .integer(16), in: db) }
    }

    // MARK: URL

    @Test func urlIsItsAbsoluteString() throws {
        let db = try makeDatabase()
        let url = try #require(URL(string: "https://example.com/a%20b?q=1#frag"))
        #expect(try stored(url, in: db).value == .text("https://example.com/a%20b?q=1#frag"))
        #expect(try roundTrip(url, in: db) == url)
        let file = URL(fileURLWithPath: "/tmp/some file.txt")
        #expect(try roundTrip(file, in: db) == file)
        expectError(.typeMismatch) { _ = try read(URL.self, from: .integer(1), in: db) }
        expectError(.unexpectedNull) { _ = try read(URL.self, from: .null, in: db) }
    }

    // MARK: Decimal

    @Test(arguments: ["0", "1.5", "-42.125", "12345678901234567890.123456789", "0.000000000000000000001"])
    func decimalRoundTripsWithoutLosingDigits(text: String) throws {
        let db = try makeDatabase()
        let decimal = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
        let result = try stored(decimal, in: db)
        #expect(result.type == "text")
        #expect(try roundTrip(decimal, in: db) == decimal)
    }

    @Test func decimalReadsNumbers() throws {
        let db = try makeDatabase()
        #expect(try read(Decimal.self, from: .integer(Int64.max), in: db) == Decimal(Int64.max))
        #expect(try read(Decimal.self, from: .real(2.5), in: db) == Decimal(2.5))
        #expect(try read(Decimal.self, from: .text("1e3"), in: db) == Decimal(1000))
    }

    @Test(arguments: ["", "abc", "1.5abc", "1-2", "--1", "1 000", "NaN", "e", "."])
    func decimalFromTextThatIsNotANumberThrows(text: String) throws {
        let db = try makeDatabase()
        let error = expectError(.invalidValue) { _ = try read(Decimal.self, from: .text(text), in: db) }
        #expect(error.text.contains("Decimal"))
    }

    @Test func decimalFromOtherValuesThrows() throws {
        let db = try makeDatabase()
        expectError(.typeMismatch) { _ = try read(Decimal.self, from: .blob(Data([1])), in: db) }
        expectError(.unexpectedNull) { _ = try read(Decimal.self, from: .null, in: db) }
        expectError(.invalidValue) { _ = try read(Decimal.self, from: .real(.infinity), in: db) }
    }

    // MARK: Optional

    @Test func optionalsStoreNilAsNullAndValuesAsThemselves() throws {
        let db = try makeDatabase()
        #expect(try stored(nil as String?, in: db).value == .null)
        #expect(try stored("x" as String?, in: db).value == .text("x"))
        #expect(try stored(nil as UUID?, in: db).value == .null)
        #expect(try stored(nil as Date?, in: db).value == .null)
        #expect(try roundTrip(Data([1]) as Data?, in: db) == Data([1]))
        #expect(try roundTrip(nil as Data?, in: db) == nil)
        #expect(try roundTrip(nil as Decimal?, in: db) == nil)
        #expect(try roundTrip(nil as URL?, in: db) == nil)
        #expect((nil as Int?).databaseValue == .null)
        #expect((5 as Int?).databaseValue == .integer(5))
        #expect(try Int?(databaseValue: .null) == nil)
        #expect(throws: DatabaseError.self) { try Int?(databaseValue: .text("5")) }
    }
}
