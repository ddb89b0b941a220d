#!/usr/bin/env python3
"""Runs the `strata` binary on seeded, generated argument vectors; fails on any crash.

    scripts/fuzz-cli.py STRATA_BINARY SECONDS [MAX_RUNS]

Each run happens in a scratch folder holding a Migrations folder (good, malformed or with a gap)
and a database (absent, valid, not a database, or empty). A run passes when the process exits by
itself with a status below 128 within 30 seconds: no signal, no trap, no hang. Prints the count of
runs, the exit statuses seen and every failure with its arguments.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

binary, seconds = os.path.abspath(sys.argv[1]), float(sys.argv[2])
max_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10**9
rng = random.Random(20261122)

VALUES = [
    "", " ", "-", "--", "-1", "0", "1", "2", "3", "99", "2147483647", "2147483648", "-2147483649",
    "9223372036854775807", "9223372036854775808", "1e3", "0x10", "NaN", "inf", "strata.sqlite", "other.sqlite",
    "missing/dir/db.sqlite", "/dev/null", "/", ".", "..", "Migrations", "nowhere", "notadb.sqlite", "empty.sqlite",
    "table", "json", "csv", "xml", "TABLE", "a" * 5000, "é€😀", "name with spaces", "0001_x.sql", "--database",
    "SELECT 1", "SELECT * FROM note", "SELECT CAST(x'ff' AS TEXT)", "SELECT x'00ff', 1.5, NULL, -0.0",
    "SELECT zeroblob(100000)", "DROP TABLE note", "SELECT * FROM nope", "SELECT", "'; DROP TABLE note; --",
    "PRAGMA integrity_check", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000) SELECT x FROM c",
    "CREATE TABLE t(a); INSERT INTO t VALUES (1); SELECT * FROM t", "SELECT 1; SELECT 2", "\t\n", "add tags",
    "../escape", "a/b", "-h", "--help", "--version", "--format=json", "--to=-5", "--database=", "help",
]
COMMANDS = ["migrate", "status", "query", "new", "help", "", "bogus", "MIGRATE", "--help", "-h", "--version"]
OPTIONS = ["--database", "--migrations", "--to", "--format", "--help", "-h", "--verbose", "-x", "--"]


def make_workspace(root: str, kind: int) -> None:
    migrations = os.path.join(root, "Migrations")
    os.makedirs(migrations)
    files = {
        0: {"0001_create_note.sql": "CREATE TABLE note (id INTEGER PRIMARY KEY, content TEXT);",
            "0002_add.sql": "ALTER TABLE note ADD COLUMN tag TEXT;"},
        1: {"0001_create_note.sql": "CREATE TABLE note (id INTEGER PRIMARY KEY);", "0003_gap.sql": "SELECT 1;"},
        2: {"1_bad name.sql": "SELECT 1;"},
        3: {"0001_broken.sql": "CREATE TABLE (;"},
        4: {"0001_a.sql": "SELECT 1;", "01_b.sql": "SELECT 2;"},
        5: {},
    }[kind % 6]
    for name, text in files.items():
        with open(os.path.join(migrations, name), "w") as handle:
            handle.write(text)
    with open(os.path.join(root, "notadb.sqlite"), "wb") as handle:
        handle.write(b"this is not a database\n" * 100)
    open(os.path.join(root, "empty.sqlite"), "wb").close()


def arguments() -> list:
    argv = [rng.choice(COMMANDS)] if rng.random() < 0.95 else []
    for _ in range(rng.randrange(0, 6)):
        roll = rng.random()
        if roll < 0.5:
            argv.append(rng.choice(OPTIONS))
            if rng.random() < 0.9:
                argv.append(rng.choice(VALUES))
        elif roll < 0.8:
            argv.append(rng.choice(VALUES))
        else:
            argv.append("".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(0, 12))))
    return [a for a in argv if a != ""] if rng.random() < 0.3 else argv


env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
deadline = time.monotonic() + seconds
runs, failures, statuses = 0, [], {}
while time.monotonic() < deadline and runs < max_runs:
    root = tempfile.mkdtemp(prefix="strata-fuzz-cli-")
    try:
        make_workspace(root, runs)
        argv = arguments()
        try:
            result = subprocess.run([binary] + argv, cwd=root, env=env, stdin=subprocess.DEVNULL,
                                    capture_output=True, timeout=30)
            status = result.returncode
            statuses[status] = statuses.get(status, 0) + 1
            if status < 0 or status >= 128:
                failures.append((argv, status, result.stderr.decode(errors="replace")[-2000:]))
        except subprocess.TimeoutExpired:
            failures.append((argv, "timeout", ""))
        runs += 1
    finally:
        shutil.rmtree(root, ignore_errors=True)

print(f"stat::number_of_executed_units: {runs}")
print(f"stat::exit_statuses: {dict(sorted(statuses.items(), key=lambda item: str(item[0])))}")
print(f"stat::crashes: {len(failures)}")
for argv, status, stderr in failures[:20]:
    print(f"CRASH status={status} argv={argv!r}\n{stderr}")
sys.exit(1 if failures else 0)
