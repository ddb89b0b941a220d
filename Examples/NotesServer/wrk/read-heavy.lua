-- Read-heavy: 90% reads (half GET /notes?limit=20, half GET /notes/:id of a seeded note), 10% POST /notes.
-- Usage: wrk -t2 -c32 -d10s --latency -s read-heavy.lua http://127.0.0.1:8089 -- SEEDED_NOTES
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
require("common")

function request()
    if math.random() < 0.1 then
        return post()
    end
    return read()
end
