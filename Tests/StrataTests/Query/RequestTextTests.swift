import Foundation
import InMemoryLogging
import Logging
import Strata
import Testing

#if !SQLITE_SUITES_ONLY
    import StrataPostgres
#endif

/// A request's `sql(for:)` is the text its backend runs; the PostgreSQL side runs in StrataPostgresTests
/// (PostgresRequestTextTests).
@Suite("Query: a request's text is the SQL its backend runs")
struct RequestTextTests {
    let tagOnNote = Column("noteId", table: QTag.self) == Column("id")

    /// The fixture database, logging every statement it runs to the handler returned with it.
    private func loggingDatabase() throws -> (Database, InMemoryLogHandler) {
        let db = try QueryFixtures.database()
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let captured = handler
        // Every statement at `.trace` with its SQL alone, however slow a loaded machine makes it.
        db.observability = DatabaseObservability(
            logger: Logger(label: "strata.tests", factory: { _ in captured }), slowStatementThreshold: .seconds(3600))
        return (db, handler)
    }

    @Test("a request's text on SQLite is the statement SQLite runs, and request.sql is that text")
    func requestTextIsTheStatementRun() throws {
        let (db, handler) = try loggingDatabase()
        let request = QNote.filter(Column("mood") == "happy")
            .filter(sql: "length(content) > :n", parameters: ["n": 3])
            .order(Column("archivedAt").desc, Column("id").desc)
            .limit(2, offset: 1)
        #expect(try db.fetchAll(request).map(\.id) == [4, 1])
        let text = request.sql(for: SQLiteDialect())
        #expect(handler.entries.map { "\($0.message)" } == [text])
        #expect(request.sql == text)
        #expect(
            text
                == #"SELECT "note".* FROM "note" WHERE ("note"."mood" = ?) AND (length(content) > :n) "#
                + #"ORDER BY "note"."archivedAt" DESC, "note"."id" DESC LIMIT ? OFFSET ?"#)
    }

    @Test("a join request's text is its SELECT with the separator columns, as each join type runs it")
    func joinTextIsTheStatementRun() throws {
        let (db, handler) = try loggingDatabase()
        let join = QNote.joining(QTag.self, on: tagOnNote).filter(Column("id") <= 2)
            .order(Column("id", table: QTag.self).desc)
        #expect(try db.fetchAll(join).map(\.1.name) == ["db", "lang", "swift"])
        let left = QNote.leftJoining(QTag.self, on: tagOnNote).order(Column("id"), Column("id", table: QTag.self))
            .limit(2)
        #expect(try db.fetchAll(left).map(\.1?.name) == ["swift", "lang"])
        let triple = QNote.joining(QTag.self, on: tagOnNote)
            .joining(QNote.aliased("next"), on: Column("id", table: QNote.aliased("next")) == Column("id") + 1)
            .order(Column("id", table: QTag.self))
        #expect(try db.fetchAll(triple).map(\.2.id) == [2, 2, 3])
        let texts = [join.sql(for: SQLiteDialect()), left.sql(for: SQLiteDialect()), triple.sql(for: SQLiteDialect())]
        #expect(handler.entries.map { "\($0.message)" } == texts)
        #expect([join.sql, left.sql, triple.sql] == texts)
        #expect(
            texts[0]
                == #"SELECT "note".*, NULL AS "strata_join_separator", "tag".* FROM "note" JOIN "tag" "#
                + #"ON "tag"."noteId" = "note"."id" WHERE "note"."id" <= ? ORDER BY "tag"."id" DESC"#)
    }

    @Test("ordering a nullable column puts NULL first ascending and last descending on SQLite")
    func nullableOrderOnSQLite() throws {
        let db = try QueryFixtures.database()
        #expect(
            try db.fetchAll(QNote.order(Column("archivedAt").desc, Column("id").desc)).map(\.id) == [5, 2, 4, 3, 1])
        #expect(try db.fetchAll(QNote.order(Column("archivedAt"), Column("id").desc)).map(\.id) == [4, 3, 1, 5, 2])
        #expect(try db.fetchAll(QNote.order(Column("id").desc).limit(2)).map(\.id) == [5, 4])
    }
}

// PostgreSQL's text: left out of the SQLite suites alone (STRATA_TEST_SUITES=sqlite, see Package.swift).
#if !SQLITE_SUITES_ONLY
    extension RequestTextTests {
        @Test("PostgreSQL's text numbers the values and the named parameters after them, and sorts NULL as SQLite does")
        func postgresText() {
            let request = QNote.filter(Column("mood") == "happy")
                .filter(sql: "length(content) > :n OR length(content) < :n", parameters: ["n": 3])
                .order(Column("archivedAt").desc, Column("score"))
                .limit(2, offset: 1)
            #expect(
                request.sql(for: PostgresDialect())
                    == #"SELECT "note".* FROM "note" WHERE ("note"."mood" = $1) AND "#
                    + #"(length(content) > $4 OR length(content) < $4) "#
                    + #"ORDER BY "note"."archivedAt" DESC NULLS LAST, "note"."score" NULLS FIRST LIMIT $2 OFFSET $3"#)
            let join = QNote.joining(QTag.self, on: tagOnNote).filter(Column("name", table: QTag.self) == "db")
            #expect(
                join.sql(for: PostgresDialect())
                    == #"SELECT "note".*, NULL AS "strata_join_separator", "tag".* FROM "note" JOIN "tag" "#
                    + #"ON "tag"."noteId" = "note"."id" WHERE "tag"."name" = $1"#)
        }

        @Test("an order by the model's primary key has no NULLS clause; any other column, an alias's key included, has")
        func primaryKeyOrderHasNoNullsClause() {
            #expect(
                QNote.order(Column("id").desc).limit(5).sql(for: PostgresDialect())
                    == #"SELECT "note".* FROM "note" ORDER BY "note"."id" DESC LIMIT $1"#)
            #expect(
                QNote.order(Column("id", table: QNote.self), Column("score").desc).sql(for: PostgresDialect())
                    == #"SELECT "note".* FROM "note" ORDER BY "note"."id", "note"."score" DESC NULLS LAST"#)
            let previous = QNote.aliased("previous")
            let left = QNote.leftJoining(previous, on: Column("id", table: previous) == Column("id") - 1)
                .order(Column("id", table: previous).desc, Column("id", table: QNote.self))
            #expect(
                left.sql(for: PostgresDialect()).hasSuffix(
                    #"ORDER BY "previous"."id" DESC NULLS LAST, "note"."id""#))
            let joined = QNote.leftJoining(QTag.self, on: tagOnNote).order(Column("id", table: QTag.self))
            #expect(joined.sql(for: PostgresDialect()).hasSuffix(#"ORDER BY "tag"."id" NULLS FIRST"#))
            #expect(
                QNote.order(Column("id") + 0).sql(for: PostgresDialect()).hasSuffix(#""note"."id" + $1 NULLS FIRST"#))
        }

        @Test("a model keyed by a snake_case column orders by that column without a NULLS clause")
        func snakeCasePrimaryKey() {
            struct Post: Model {
                static let tableName = "post"
                static let primaryKey = "postId"
                static let keyEncodingStrategy = StatementEncoder.KeyEncodingStrategy.convertToSnakeCase
                var postId: Int64
            }
            #expect(
                Post.order(Column("post_id").desc).sql(for: PostgresDialect())
                    == #"SELECT "post".* FROM "post" ORDER BY "post"."post_id" DESC"#)
            #expect(Post.order(Column("postId").desc).sql(for: PostgresDialect()).hasSuffix(" DESC NULLS LAST"))
        }
    }
#endif
