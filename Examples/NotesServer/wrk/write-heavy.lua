-- Write-heavy: every request is POST /notes.
-- Usage: wrk -t2 -c32 -d10s --latency -s write-heavy.lua http://127.0.0.1:8089
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
require("common")

function request()
    return post()
end
