#!/usr/bin/env bash
# The load runs of README.md: the server in release mode on loopback, on a fresh database per scenario seeded with
# $SEED notes, then `wrk -t2 -c32 -d10s --latency` $RUNS times per scenario (read-heavy, write-heavy). After each run
# it compares the notes the database gained with the POSTs wrk saw answered 201.
#
# Bounded: 127.0.0.1 only, 2 x $RUNS runs of 10 s. Needs wrk (`apt-get install -y wrk`) and python3 (for sqlite3).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8089}
RUNS=${RUNS:-3}
SEED=${SEED:-1000}
DURATION=${DURATION:-10s}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
swift build -c release --product NotesServer
BIN="$(swift build -c release --show-bin-path)/NotesServer"

WORK="$(mktemp -d)"
SERVER_PID=""
stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill -INT "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=""
    fi
}
trap 'stop_server; rm -rf "$WORK"' EXIT

count_notes() {
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM note").fetchone()[0])' "$1"
}

seed() {
    python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
with db:
    db.executemany(
        "INSERT INTO note (created_at, content) VALUES (strftime('%Y-%m-%d %H:%M:%f', 'now'), ?)",
        [(f"seeded note {i}",) for i in range(1, int(sys.argv[2]) + 1)])
PY
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

status=0
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for scenario in read-heavy write-heavy; do
    db="$WORK/$scenario.sqlite"
    "$BIN" --port "$PORT" --database "$db" --log-level warning &
    SERVER_PID=$!
    for _ in $(seq 100); do
        curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
        sleep 0.1
    done
    seed "$db" "$SEED"
    : > "$WORK/$scenario.rps"
    : > "$WORK/$scenario.p99"
    for run in $(seq "$RUNS"); do
        before=$(count_notes "$db")
        wrk -t2 -c32 -d"$DURATION" --latency -s "wrk/$scenario.lua" "http://127.0.0.1:$PORT" -- "$SEED" \
            > "$WORK/out" 2>&1
        sleep 1  # let the requests in flight when wrk stopped finish
        after=$(count_notes "$db")
        created=$(sed -n 's/.*posts_201=\([0-9]*\).*/\1/p' "$WORK/out")
        sent=$(sed -n 's/.*posts_sent=\([0-9]*\).*/\1/p' "$WORK/out")
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$WORK/out")
        p99=$(awk '$1 == "99%" { print $2 }' "$WORK/out")
        echo "$rps" >> "$WORK/$scenario.rps"
        echo "$p99" | sed 's/ms$//; s/us$/e-3/; s/\([0-9.]*\)s$/\1e3/' >> "$WORK/$scenario.p99"
        added=$((after - before))
        echo "== $scenario run $run: $rps req/s, p99 $p99; rows added $added: $created POSTs answered 201" \
            "+ $((added - created)) in flight when wrk stopped (POSTs sent: $sent)"
        if [ "$added" -lt "$created" ] || [ "$added" -gt "$sent" ]; then
            echo "!! rows added ($added) should be at least the 201s ($created) and at most the POSTs sent ($sent)"
            status=1
        fi
        grep -E 'requests in|Non-2xx|Socket errors|posts_sent' "$WORK/out" | sed 's/^/   /'
    done
    echo "== $scenario median: $(median < "$WORK/$scenario.rps") req/s, p99 $(median < "$WORK/$scenario.p99") ms"
    stop_server
done
exit "$status"
