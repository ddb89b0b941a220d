import Foundation
import NotesApp
import Strata
import Testing

/// The store's methods, on each backend, and on SQLite both with its fast path (the pool's synchronous blocks, what
/// the server runs) and without it (the blocks written once for every backend).
@Suite struct NoteStoreTests {
    /// The backends, and on SQLite the fast path on and off.
    static let cases: [(TestBackend, Bool)] = TestBackend.all.flatMap { backend in
        backend == .sqlite ? [(backend, true), (backend, false)] : [(backend, false)]
    }

    @Test(arguments: cases)
    func everyMethodReadsAndWritesTheNotes(backend: TestBackend, fastPath: Bool) async throws {
        try await withTestServer(backend) { server in
            try await server.withStore(usesSQLiteFastPath: fastPath) { store in
                let created = Date(timeIntervalSince1970: 1_800_000_000.125)
                var notes: [Note] = []
                for index in 1...3 {
                    notes.append(try await store.create(content: "note \(index)", at: created))
                }
                let ids = notes.compactMap(\.id)
                #expect(ids.count == 3 && ids == ids.sorted() && Set(ids).count == 3)
                #expect(notes.map(\.content) == ["note 1", "note 2", "note 3"])
                // As stored: the date to the millisecond on both backends.
                #expect(notes.allSatisfy { $0.createdAt == created && $0.updatedAt == nil })

                #expect(try await store.note(id: ids[1]) == notes[1])
                #expect(try await store.note(id: 4242) == nil)
                #expect(try await store.latest(limit: 2) == [notes[2], notes[1]])
                #expect(try await store.latest(limit: 100) == notes.reversed())

                let edited = Date(timeIntervalSince1970: 1_800_000_100.5)
                let updated = try #require(try await store.update(id: ids[0], content: "edited", at: edited))
                #expect(updated == Note(id: ids[0], createdAt: created, content: "edited", updatedAt: edited))
                #expect(try await store.note(id: ids[0]) == updated)
                #expect(try await store.update(id: 4242, content: "nobody", at: edited) == nil)

                #expect(try await store.delete(id: ids[2]))
                #expect(!(try await store.delete(id: ids[2])))
                #expect(try await store.count() == 2)
                #expect(try await store.latest(limit: 20).map(\.id) == [ids[1], ids[0]])
                #expect(try await store.schemaVersion() == 3)
            }
        }
    }
}
