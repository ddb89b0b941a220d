#!/usr/bin/env bash
# Builds and runs one of Strata's fuzz targets.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET is sql, bind, decode, migrations or cli: libFuzzer targets in Fuzz/, built with
# -sanitize=fuzzer,address from Strata's sources (cli also from the `strata` tool's sources and
# swift-argument-parser's, and runs the tool in-process). cli-process runs the debug `strata`
# binary as a real process on generated argument vectors instead (see scripts/fuzz-cli.py).
# Binaries, corpora, crash artifacts and logs go to .build-fuzz/. The last lines printed are
# libFuzzer's final stats, among them stat::number_of_executed_units, the count of executions.
#
# Environment: RUNS=N stops after N executions (or at SECONDS, whichever comes first). Each target
# runs one process, so that the figures are per core. The exit status is libFuzzer's: non-zero when
# it found a crash, a leak or a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh sql|bind|decode|migrations|cli|cli-process SECONDS [libFuzzer options]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
shift 2
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# Absolute, because the cli target changes its working directory.
out=$PWD/.build-fuzz
mkdir -p "$out/corpus/$target" "$out/artifacts"

if [ "$target" = cli-process ]; then
    # The real binary, as a user runs it: exit statuses and swift-argument-parser's own exits are
    # seen as a process sees them. Build it in the reliability scratch folder.
    swift build --product strata --scratch-path .build-reliability >/dev/null
    binary=$(swift build --product strata --scratch-path .build-reliability --show-bin-path)/strata
    exec python3 scripts/fuzz-cli.py "$binary" "$seconds" "${RUNS:-100000000}"
fi

case "$target" in
    sql) source=Fuzz/FuzzSQL.swift ;;
    bind) source=Fuzz/FuzzBind.swift ;;
    decode) source=Fuzz/FuzzDecode.swift ;;
    migrations) source=Fuzz/FuzzMigrations.swift ;;
    cli) source=Fuzz/FuzzCLI.swift ;;
    *) echo "unknown fuzz target $target" >&2; exit 2 ;;
esac

compile=(swiftc -sanitize=fuzzer,address -parse-as-library -O -g)
strata_features=(
    -swift-version 6
    -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature ExistentialAny
)
quiet() { grep -v "ld.gold: warning: Cannot export local symbol" || true; }

binary="$out/fuzz-$target"
if [ "$target" = cli ]; then
    # The tool, its argument parser and Strata, each a module of its own as SwiftPM builds them.
    swift package resolve >/dev/null
    parser=.build/checkouts/swift-argument-parser/Sources
    library=(Sources/Strata/*/*.swift)
    newest=$(ls -t "${library[@]}" Sources/StrataCLI/*.swift "$source" | head -1)
    if [ ! -x "$binary" ] || [ "$newest" -nt "$binary" ]; then
        echo "== building $binary"
        modules="$out/modules-cli"
        snapshot="$out/src-cli"
        rm -rf "$modules" "$snapshot"
        mkdir -p "$modules" "$snapshot"
        "${compile[@]}" -swift-version 5 -module-name ArgumentParserToolInfo -emit-module \
            -emit-module-path "$modules/ArgumentParserToolInfo.swiftmodule" -emit-library -static \
            -o "$modules/libArgumentParserToolInfo.a" "$parser"/ArgumentParserToolInfo/*.swift 2>&1 | quiet
        find "$parser/ArgumentParser" -name '*.swift' -print0 | xargs -0 "${compile[@]}" -swift-version 5 \
            -module-name ArgumentParser -I "$modules" -emit-module \
            -emit-module-path "$modules/ArgumentParser.swiftmodule" -emit-library -static \
            -o "$modules/libArgumentParser.a" 2>&1 | quiet
        "${compile[@]}" "${strata_features[@]}" -module-name Strata -I Sources/CSQLite -emit-module \
            -emit-module-path "$modules/Strata.swiftmodule" -emit-library -static \
            -o "$modules/libStrata.a" "${library[@]}" 2>&1 | quiet
        # The tool's sources without `@main`: libFuzzer supplies main.
        cp Sources/StrataCLI/*.swift "$source" "$snapshot/"
        sed -i 's/^@main$//' "$snapshot/Strata.swift"
        "${compile[@]}" "${strata_features[@]}" -module-name StrataCLIFuzz -I "$modules" -I Sources/CSQLite \
            "$snapshot"/*.swift -L "$modules" -lStrata -lArgumentParser -lArgumentParserToolInfo -lsqlite3 \
            -o "$binary" 2>&1 | quiet
        [ -x "$binary" ] && [ ! "$newest" -nt "$binary" ] || { echo "build of $binary failed" >&2; exit 1; }
    fi
else
    # The synchronous library: the Concurrency folder (pools and queues over the same Database) is
    # left out, so the targets build while it changes.
    library=(Sources/Strata/{Database,Statements,Values,Coding,Records,Migrations}/*.swift)
    newest=$(ls -t "${library[@]}" Fuzz/Support/*.swift "$source" | head -1)
    if [ ! -x "$binary" ] || [ "$newest" -nt "$binary" ]; then
        echo "== building $binary"
        # Compile a snapshot, so that an edit made meanwhile by someone else does not fail the build.
        snapshot="$out/src-$target"
        rm -rf "$snapshot"
        mkdir -p "$snapshot"
        cp "${library[@]}" Fuzz/Support/*.swift "$source" "$snapshot/"
        "${compile[@]}" "${strata_features[@]}" -module-name StrataFuzz -I Sources/CSQLite -lsqlite3 \
            "$snapshot"/*.swift -o "$binary" 2>&1 | quiet
        [ -x "$binary" ] && [ ! "$newest" -nt "$binary" ] || { echo "build of $binary failed" >&2; exit 1; }
    fi
fi

options=(
    -max_total_time="$seconds"
    -timeout=20
    -rss_limit_mb=4096
    -max_len=4096
    -print_final_stats=1
    -artifact_prefix="$out/artifacts/$target-"
)
if [ -n "${RUNS:-}" ]; then options+=(-runs="$RUNS"); fi
# The tool's standard output is closed; its standard error is silenced by the target itself.
if [ "$target" = cli ]; then options+=(-close_fd_mask=1); fi
if [ -f "Fuzz/Dictionaries/$target.dict" ]; then options+=(-dict="$PWD/Fuzz/Dictionaries/$target.dict"); fi
seeds=()
if [ -d "Fuzz/Seeds/$target" ]; then seeds+=("$PWD/Fuzz/Seeds/$target"); fi

echo "== running $binary for ${seconds}s"
# libFuzzer's status is the script's: non-zero when it found a crash, a leak or a timeout.
set +e
"$binary" "${options[@]}" "$@" "$out/corpus/$target" "${seeds[@]}" > "$out/$target.log" 2>&1
status=$?
set -e
grep -E '^(#[0-9]+.*(DONE|pulse)|stat::|==[0-9]+==|FUZZ DEFECT|SUMMARY|artifact_prefix|Test unit written)' "$out/$target.log" || true
exit "$status"
