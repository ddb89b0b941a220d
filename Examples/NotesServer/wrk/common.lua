-- Shared by read-heavy.lua and write-heavy.lua: per-thread counters, summed in done().
--
-- Each wrk thread has its own Lua state, so the counters live in each thread and done() reads them through the
-- thread objects that setup() kept. A successful POST is the only request answered 201 (reads answer 200), so
-- `created` counts the notes the server confirmed; the runner compares it with the rows the database gained.

local threads = {}

function setup(thread)
    table.insert(threads, thread)
    thread:set("thread_id", #threads)
end

function init(args)
    posts, created, reads, read_ok, other = 0, 0, 0, 0, 0
    seeded = tonumber(args[1]) or 0
    math.randomseed(os.time() * 100 + thread_id)
end

function response(status, headers, body)
    if status == 201 then
        created = created + 1
    elseif status == 200 then
        read_ok = read_ok + 1
    else
        other = other + 1
    end
end

post_body = '{"content": "a note written by wrk, long enough to look like a real one: lorem ipsum dolor sit amet"}'
post_headers = { ["Content-Type"] = "application/json" }

function post()
    posts = posts + 1
    return wrk.format("POST", "/notes", post_headers, post_body)
end

function read()
    reads = reads + 1
    if seeded > 0 and math.random() < 0.5 then
        return wrk.format("GET", "/notes/" .. math.random(1, seeded))
    end
    return wrk.format("GET", "/notes?limit=20")
end

function done(summary, latency, requests)
    local t = { posts = 0, created = 0, reads = 0, read_ok = 0, other = 0 }
    for _, thread in ipairs(threads) do
        for key, _ in pairs(t) do
            t[key] = t[key] + thread:get(key)
        end
    end
    io.write(string.format("posts_sent=%d posts_201=%d reads_sent=%d reads_200=%d other_status=%d\n",
        t.posts, t.created, t.reads, t.read_ok, t.other))
end
