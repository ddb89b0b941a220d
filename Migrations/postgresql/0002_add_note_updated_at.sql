-- Migration 2: add note updated_at (PostgreSQL)
--
-- When a note was last edited (NULL until its first edit), with an index for
-- "recently edited" lists.
ALTER TABLE note ADD COLUMN updated_at timestamptz;

CREATE INDEX note_updated_at ON note (updated_at);
