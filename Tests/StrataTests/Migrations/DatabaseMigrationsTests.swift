import Foundation
import Strata
import Testing

@Suite struct DatabaseMigrationsTests {
    private static let createNote =
        "CREATE TABLE note (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, content TEXT NOT NULL)"

    @Test func designExample() throws {
        let db = try Database()
        #expect(try db.needsMigration(targetVersion: 1))
        let ran = try db.migrate(version: 1) { db in try db.execute(query: Self.createNote) }
        #expect(ran)
        #expect(try db.userVersion == 1)
        #expect(try !db.needsMigration(targetVersion: 1))
        #expect(try db.needsMigration(targetVersion: 2))
        #expect(try MigrationFixtures.tableNames(db) == ["note"])
    }

    @Test func aMigrationAndItsVersionBumpCommitTogether() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        do {
            let db = try Database(path: path)
            try db.migrate(version: 1) { db in
                try db.execute(query: Self.createNote)
                // Inside the migration the bump has not happened yet, and a transaction is open.
                #expect(try db.userVersion == 0)
                #expect(db.isInTransaction)
            }
            #expect(!db.isInTransaction)
            db.close()
        }
        // A second connection sees both the table and the version: they were committed.
        let reader = try Database(path: path, readOnly: true)
        #expect(try reader.userVersion == 1)
        #expect(try MigrationFixtures.tableNames(reader) == ["note"])
    }

    @Test func aFailingMigrationLeavesSchemaDataAndVersionAsBefore() throws {
        let db = try Database()
        try db.migrate(version: 1) { db in
            try db.execute(query: Self.createNote)
            try db.execute(query: "INSERT INTO note (created_at, content) VALUES ('2024-05-01 08:00:00.000', 'first')")
        }
        let before = try MigrationSnapshot(db)

        #expect(throws: MigrationPlannedFailure.self) {
            try db.migrate(version: 2) { db in
                // Halfway through: schema, data and an index have changed when the block fails.
                try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT")
                try db.execute(query: "CREATE INDEX note_updated_at ON note (updated_at)")
                try db.execute(query: "UPDATE note SET content = 'changed', updated_at = 'now'")
                try db.execute(query: "INSERT INTO note (created_at, content) VALUES ('x', 'second')")
                try db.execute(query: "CREATE TABLE tag (name TEXT)")
                throw MigrationPlannedFailure()
            }
        }
        #expect(try MigrationSnapshot(db) == before)
        #expect(try db.userVersion == 1)
        #expect(!db.isInTransaction)

        // A failing SQL statement rolls back the statements before it as well.
        #expect(throws: DatabaseError.self) {
            try db.migrate(version: 2) { db in
                try db.execute(query: "DELETE FROM note; CREATE TABLE tag (name TEXT); INSERT INTO nothing VALUES (1)")
            }
        }
        #expect(try MigrationSnapshot(db) == before)

        // The same version applies once it is fixed.
        #expect(
            try db.migrate(version: 2) { db in try db.execute(query: "ALTER TABLE note ADD COLUMN updated_at TEXT") })
        #expect(try db.userVersion == 2)
    }

    @Test func anAppliedVersionIsSkipped() throws {
        let db = try Database()
        var runs = 0
        #expect(
            try db.migrate(version: 1) { db in
                runs += 1; try db.execute(query: Self.createNote)
            })
        #expect(try db.migrate(version: 2) { _ in runs += 1 })
        // Running the same list again at the next start: nothing runs, nothing throws.
        #expect(
            try !db.migrate(version: 1) { _ in
                runs += 1; throw MigrationPlannedFailure()
            })
        #expect(
            try !db.migrate(version: 2) { _ in
                runs += 1; throw MigrationPlannedFailure()
            })
        #expect(runs == 2)
        #expect(try db.userVersion == 2)
    }

    @Test func anOutOfOrderVersionThrows() throws {
        let db = try Database()
        var runs = 0
        let skipping = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 2) { _ in runs += 1 }
        }
        #expect(skipping?.code == .migration)
        #expect(skipping?.message.contains("out of order") == true)
        #expect(skipping?.message.contains("version 0") == true)

        try db.migrate(version: 1) { _ in runs += 1 }
        let gap = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 3) { _ in runs += 1 }
        }
        #expect(gap?.code == .migration)
        #expect(gap?.message.contains("version 2 must be applied first") == true)

        for invalid in [0, -1, Int(Int32.max) + 1] {
            let error = #expect(throws: DatabaseError.self) {
                try db.migrate(version: invalid) { _ in runs += 1 }
            }
            #expect(error?.code == .migration)
        }
        #expect(runs == 1)
        #expect(try db.userVersion == 1)
    }

    @Test func aForeignKeyViolationRollsTheMigrationBack() throws {
        let db = try Database()
        try db.migrate(version: 1) { db in
            try db.execute(
                query: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES author (id));
                    INSERT INTO author (id, name) VALUES (1, 'Ursula');
                    """)
        }
        let before = try MigrationSnapshot(db)
        let error = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 2) { db in
                try db.execute(query: "INSERT INTO book (id, author_id) VALUES (10, 1), (11, 99)")
            }
        }
        #expect(error?.code == .migration)
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(error?.message.contains("table \"book\" row 11") == true)
        #expect(error?.message.contains("\"author\"") == true)
        #expect(try MigrationSnapshot(db) == before)
        #expect(try db.foreignKeys)
    }

    @Test func foreignKeysAreCheckedAtTheEndOfTheMigration() throws {
        let db = try Database()
        try db.migrate(version: 1) { db in
            try db.execute(
                query: """
                    CREATE TABLE author (id INTEGER PRIMARY KEY);
                    CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author (id));
                    """)
        }
        // The child comes before its parent: fine, since the parent exists when the migration ends.
        try db.migrate(version: 2) { db in
            try db.execute(query: "INSERT INTO book (id, author_id) VALUES (1, 7); INSERT INTO author (id) VALUES (7)")
        }
        #expect(try db.userVersion == 2)
        // Outside migrations, foreign keys are enforced at once again.
        #expect(throws: DatabaseError.self) {
            try db.execute(query: "INSERT INTO book (id, author_id) VALUES (2, 8)")
        }
    }

    @Test func aViolationLeftFromBeforeAbortsTheMigration() throws {
        let db = try Database()
        try db.execute(
            query: """
                CREATE TABLE author (id INTEGER PRIMARY KEY);
                CREATE TABLE book (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author (id));
                """)
        try db.setForeignKeys(false)
        try db.execute(query: "INSERT INTO book (id, author_id) VALUES (1, 42)")
        try db.setForeignKeys(true)
        let error = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 1) { db in try db.execute(query: "CREATE TABLE tag (name TEXT)") }
        }
        #expect(error?.message.contains("\"book\"") == true)
        #expect(try db.userVersion == 0)
        #expect(try MigrationFixtures.tableNames(db) == ["author", "book"])
    }

    @Test func aMigrationMustNotEndItsTransaction() throws {
        let db = try Database()
        let begin = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 1) { db in
                try db.execute(query: "BEGIN; CREATE TABLE a (x); COMMIT;")
            }
        }
        #expect(begin?.code == .migration)
        #expect(begin?.message.contains("cannot BEGIN, COMMIT or ROLLBACK") == true)
        #expect(try MigrationFixtures.tableNames(db) == [])

        let commit = #expect(throws: DatabaseError.self) {
            try db.migrate(version: 1) { db in
                try db.execute(query: "CREATE TABLE a (x); COMMIT;")
            }
        }
        #expect(commit?.code == .migration)
        #expect(commit?.message.contains("cannot BEGIN, COMMIT or ROLLBACK") == true)
        #expect(try db.userVersion == 0)
        #expect(!db.isInTransaction)
        // The CREATE TABLE before the refused COMMIT rolled back with the step.
        #expect(try MigrationFixtures.tableNames(db) == [])

        // A savepoint inside a migration is fine.
        try db.migrate(version: 1) { db in
            try db.execute(query: "SAVEPOINT inner; CREATE TABLE b (x); RELEASE inner;")
        }
        #expect(try MigrationFixtures.tableNames(db) == ["b"])
        #expect(try db.userVersion == 1)
    }

    @Test func insideATransactionAMigrationIsASavepoint() throws {
        let db = try Database()
        // Rolled back with the outer transaction.
        #expect(throws: MigrationPlannedFailure.self) {
            try db.transaction { db in
                try db.migrate(version: 1) { db in try db.execute(query: Self.createNote) }
                #expect(try db.userVersion == 1)
                throw MigrationPlannedFailure()
            }
        }
        #expect(try db.userVersion == 0)
        #expect(try MigrationFixtures.tableNames(db) == [])

        // A failing migration rolls back its savepoint only; the outer transaction goes on and commits.
        try db.transaction { db in
            try db.execute(query: "CREATE TABLE audit (event TEXT)")
            #expect(throws: MigrationPlannedFailure.self) {
                try db.migrate(version: 1) { db in
                    try db.execute(query: Self.createNote)
                    throw MigrationPlannedFailure()
                }
            }
            #expect(try db.userVersion == 0)
            #expect(db.isInTransaction)
            try db.migrate(version: 1) { db in try db.execute(query: Self.createNote) }
            try db.execute(query: "INSERT INTO audit (event) VALUES ('migrated')")
        }
        #expect(try db.userVersion == 1)
        #expect(try MigrationFixtures.tableNames(db) == ["audit", "note"])
        #expect(try MigrationFixtures.column(String.self, db, "SELECT event FROM audit") == ["migrated"])
    }

    @Test func aMigrationWaitsForAnotherWriter() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let holder = try Database(path: path)
        let migrating = try Database(path: path)
        migrating.busyTimeout = 0
        // Timeline: the holder takes the write lock; the migration cannot take it and fails without
        // changing anything; once the holder commits, the migration goes through.
        try holder.beginTransaction(.immediate)
        let busy = #expect(throws: DatabaseError.self) {
            try migrating.migrate(version: 1) { db in try db.execute(query: Self.createNote) }
        }
        #expect(busy?.resultCode?.primary == .busy)
        try holder.commitTransaction()
        #expect(try migrating.userVersion == 0)
        #expect(try migrating.migrate(version: 1) { db in try db.execute(query: Self.createNote) })
        #expect(try holder.userVersion == 1)
    }

    @Test func aMigrationInProgressKeepsOtherMigratorsOut() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let first = try Database(path: path)
        let second = try Database(path: path)
        // Timeline: `second` starts migrating to 1 and, inside its transaction, `first` is asked to
        // migrate too. `first` cannot take the lock; once `second` has committed, `first` finds version 1.
        first.busyTimeout = 0
        try second.migrate(version: 1) { db in
            try db.execute(query: Self.createNote)
            #expect(throws: DatabaseError.self) {
                try first.migrate(version: 1) { db in try db.execute(query: Self.createNote) }
            }
        }
        #expect(try !first.migrate(version: 1) { db in try db.execute(query: Self.createNote) })
        #expect(try first.userVersion == 1)
    }
}
