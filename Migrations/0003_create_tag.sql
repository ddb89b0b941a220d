-- Migration 3: create tag
--
-- Tags with unique names, and the many-to-many link between notes and tags. Deleting a
-- note or a tag deletes its links.
CREATE TABLE tag (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE note_tag (
    note_id INTEGER NOT NULL REFERENCES note (id) ON DELETE CASCADE,
    tag_id INTEGER NOT NULL REFERENCES tag (id) ON DELETE CASCADE,
    PRIMARY KEY (note_id, tag_id)
) WITHOUT ROWID;

CREATE INDEX note_tag_tag_id ON note_tag (tag_id);
