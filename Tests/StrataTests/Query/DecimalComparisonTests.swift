import Foundation
import Strata
import StrataRecord
import Testing

/// Amounts in a TEXT column, as README advises for Decimal: every digit kept.
private struct Payment: Model, Equatable {
    static let tableName = "payment"
    var id: Int64?
    var amount: Decimal
}

@Table("payment")
private struct TypedPayment: Codable, Equatable {
    var id: Int64?
    var amount: Decimal
}

private func decimal(_ text: String) throws -> Decimal {
    try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
}

@Suite("Query: Decimal values compare as numbers, exactly")
struct DecimalComparisonTests {
    static let amounts = ["9.5", "10.25", "100", "0.001", "-3", "12345678901234567890.123456789", "-0.5", "2"]

    private func database() throws -> Database {
        let db = try Database()
        try db.execute(query: "CREATE TABLE payment (id INTEGER PRIMARY KEY, amount TEXT NOT NULL)")
        for amount in Self.amounts { try db.insert(Payment(id: nil, amount: try decimal(amount))) }
        return db
    }

    private func amounts(_ request: QueryRequest<Payment>, in db: Database) throws -> [String] {
        try db.fetchAll(request).map { "\($0.amount)" }
    }

    @Test func comparisonsWithADecimalValueAreNumeric() throws {
        let db = try database()
        let ordered = Payment.order(Column("id"))
        #expect(
            try amounts(ordered.filter(Column("amount") > Decimal(5)), in: db) == [
                "9.5", "10.25", "100", "12345678901234567890.123456789",
            ])
        #expect(
            try amounts(ordered.filter(Column("amount").between(Decimal(1), Decimal(50))), in: db) == [
                "9.5", "10.25", "2",
            ])
        #expect(try amounts(ordered.filter(Column("amount") == (try decimal("10.250"))), in: db) == ["10.25"])
        #expect(try amounts(ordered.filter(Column("amount") < Decimal(0)), in: db) == ["-3", "-0.5"])
        #expect(
            try amounts(ordered.filter(Column("amount") >= (try decimal("12345678901234567890.12345678"))), in: db)
                == ["12345678901234567890.123456789"])
        #expect(
            try amounts(ordered.filter([Decimal(2), try decimal("100.00")].contains(Column("amount"))), in: db) == [
                "100", "2",
            ])
    }

    @Test func anOrderingOrAggregateAskedToCompareAsDecimalsIsNumeric() throws {
        let db = try database()
        let sorted = try amounts(Payment.order(Column("amount").collating(.decimal)), in: db)
        #expect(sorted == ["-3", "-0.5", "0.001", "2", "9.5", "10.25", "100", "12345678901234567890.123456789"])
        let newest = try db.fetchOne(Decimal.self, Payment.select(max(Column("amount").collating(.decimal))))
        #expect(newest == (try decimal("12345678901234567890.123456789")))
        let least = try db.fetchOne(Decimal.self, Payment.select(min(Column("amount").collating(.decimal))))
        #expect(least == Decimal(-3))
    }

    @Test func aTypedDecimalColumnComparesOrdersAndAggregatesAsNumbers() throws {
        let db = try database()
        let column = TypedPayment.columns.amount
        let above = try db.fetchAll(TypedPayment.filter(column > Decimal(5)).order(TypedPayment.columns.id))
        #expect(above.map(\.id) == [1, 2, 3, 6])
        let sorted = try db.fetchAll(TypedPayment.order(column.desc)).map(\.id)
        #expect(sorted == [6, 3, 2, 1, 8, 4, 7, 5])
        #expect(
            try db.fetchOne(Decimal.self, TypedPayment.select(max(column)))
                == (try decimal("12345678901234567890.123456789")))
    }

    @Test func textThatIsNotANumberSortsAfterEveryNumber() throws {
        let db = try database()
        try db.execute(query: "INSERT INTO payment (amount) VALUES ('n/a'), ('1e3'), ('')")
        let sorted = try db.fetchAll(
            String.self, query: "SELECT amount FROM payment ORDER BY amount COLLATE strata_decimal, id")
        #expect(sorted.suffix(5) == ["100", "1e3", "12345678901234567890.123456789", "", "n/a"])
    }
}

@Suite("Requests: a Decimal with more digits than a REAL keeps is refused by a numeric column")
struct DecimalAssignmentTests {
    @Test func updateAllRefusesAPreciseDecimalForANumericColumn() throws {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE payment (id INTEGER PRIMARY KEY, amount NUMERIC NOT NULL);
                INSERT INTO payment (amount) VALUES (1);
                """)
        let precise = try decimal("1.23456789012345678")
        let error = expectError(.valueOutOfRange) {
            try db.updateAll(Payment.all(), Column("amount").set(to: precise))
        }
        #expect(error?.column == "amount")
        expectError(.valueOutOfRange) { _ = try db.updateAndFetchAll(Payment.all(), Column("amount").set(to: precise)) }
        #expect(try db.fetchAll(String.self, query: "SELECT CAST(amount AS TEXT) FROM payment") == ["1"])
        // Fifteen digits fit in a REAL, and a TEXT column keeps every digit.
        #expect(try db.updateAll(Payment.all(), Column("amount").set(to: try decimal("1.23456789012345"))) == 1)
        try db.execute(query: "CREATE TABLE textPayment (id INTEGER PRIMARY KEY, amount TEXT NOT NULL)")
        try db.execute(query: "INSERT INTO textPayment (amount) VALUES ('1')")
        struct TextPayment: Model {
            static let tableName = "textPayment"
            var id: Int64?
            var amount: Decimal
        }
        #expect(try db.updateAll(TextPayment.all(), Column("amount").set(to: precise)) == 1)
        #expect(try db.fetchAll(TextPayment.self).map(\.amount) == [precise])
    }
}
