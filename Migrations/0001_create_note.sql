-- Migration 1: create note
--
-- The notes of the example memo app. created_at holds Strata's default date text,
-- `YYYY-MM-DD HH:MM:SS.SSS` in UTC, so notes sort by it and compare with datetime('now').
CREATE TABLE note (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    content TEXT NOT NULL
);
