import Strata
import Testing

@Suite("Key strategies")
struct KeyStrategyTests {
    @Test(arguments: [
        ("createdAt", "created_at"), ("userID", "user_id"), ("myURLValue", "my_url_value"), ("id", "id"),
        ("a1B", "a1_b"), ("already_snake", "already_snake"),
    ])
    func snakeCaseNames(key: String, column: String) throws {
        let db = try Database()
        let statement = try db.prepare(query: "SELECT :\(column) AS \(column)")
        var encoder = StatementEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        try encoder.encode([key: 7], to: statement)
        let row = try #require(try statement.next())
        var decoder = RowDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Probe: Decodable {
            var value: Int
            struct Key: CodingKey {
                var stringValue: String
                var intValue: Int? { nil }
                init(stringValue: String) { self.stringValue = stringValue }
                init?(intValue: Int) { nil }
            }
            init(from decoder: any Decoder) throws {
                let key = try #require(decoder.userInfo[.init(rawValue: "key")!] as? String)
                value = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: Key(stringValue: key))
            }
        }
        decoder.userInfo[.init(rawValue: "key")!] = key
        #expect(try decoder.decode(Probe.self, from: row).value == 7)
    }
}
