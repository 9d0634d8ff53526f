#!/usr/bin/env bash
# Regenerates the seed corpus in tests/fuzz/corpus/ (committed; run this only
# when the generator or the seeds' recipe changes):
#   csv/     the golden fixtures, and number/framing variants of them
#   sqlite/  small exports from the project's generator (slimmed to the
#            columns the gate reads, 512-byte pages: a few KB each) and
#            hand-made schema variants: view, _V2 table, TEXT durations, NUL
#            in names, int64-sized durations, no StringIds, WAL header
#   sqlite_diff/ the same exports framed for the differential target, in
#            each mode, with a -wal of committed pages or a hot -journal
#   cli/     argv/environment encodings (see fuzz_cli.c for the layout)
#   manifest/ batch manifests: every field, bad values, wrong types, escapes
#   history/ --history files: the golden cases' lines, torn, glued, blank,
#            CRLF, old-version and unknown-field lines, garbage
#   rocprof_json/, rocprof_csv/  rocprofv3 JSON and CSV from genrocprof.py
#            (every fault it writes) and hand-made: NUL and .kd in names,
#            int64-sized times, a negative time, BOM, quotes, CRLF
#   kineto/  Chrome traces from the generator (plain, gzip, cut short) and
#            hand-made ones: missing dur, negative dur, a string ts,
#            exponents, escapes, no launch calls, 10,000-deep nesting, a
#            40 MiB name (gzip: 40 KB), two arrays, text after the object
#   rocpd/   rocprofv3 databases from tests/tools/genrocpd.py (AMD's DDL in
#            ../shared/reference/rocpd, read in place): schema 3, lz4, 4.1.0,
#            two table sets, no HIP calls, each refusal, 512-byte pages
# Files ci/fuzz.sh adds (crash-*, regression-*) are kept.  The real samples
# in ../shared are never copied here (tests/fuzz/meson.build replays them
# in place).
#
#   tests/fuzz/make-corpus.sh build/tests/tools/gentrace
set -euo pipefail
gentrace=$(realpath "$1")
cd "$(dirname "$0")"
corpus=$PWD/corpus
fixtures=$(realpath ../golden/fixtures)
mkdir -p "$corpus/csv" "$corpus/sqlite" "$corpus/cli"
rm -f "$corpus"/csv/seed-* "$corpus"/sqlite/seed-* "$corpus"/cli/seed-*

# ---- csv ----
for f in "$fixtures"/*; do cp "$f" "$corpus/csv/seed-$(basename "$f")"; done
hdr='Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name'
csv() { printf '%s\n' "$hdr" "$@" >"$corpus/csv/seed-$name.csv"; }
name=numbers_exotic csv '1.0,1e400,1,1,1,1,1,0,a' '1.0,-0,1,1,1,1,1,0,b' '1.0,0x10,1,1,1,1,1,0,c' '1.0,NaN,1,1,1,1,1,0,d'
name=overflow_sum csv '50.0,9223372036854775807,1,1,1,1,1,0,a' '50.0,1,1,1,1,1,1,0,b'
name=overflow_same_name csv '50.0,9223372036854775000,1,1,1,1,1,0,a' '50.0,9223372036854775000,1,1,1,1,1,0,a'
name=quoted_names csv '50.0,100,1,1,1,1,1,0,"f<int, 2>(a, b)"' '50.0,100,1,1,1,1,1,0,"unterminated' '50.0,100,1,1,1,1,1,0,x"y"z'
printf 'Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]... \n\n%s\n60.0,1.5,3,0.5,0.5,0.1,0.9,0.1,k\n' \
    "$(echo "$hdr" | sed 's/(ns)/(ms)/g')" >"$corpus/csv/seed-framed_ms.csv"
printf ' Time (%%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  ----\n     60.0        1,234,567          3  kA  \n     40.0          823,045          1  kB\n' \
    >"$corpus/csv/seed-column_separators.txt"

# ---- sqlite ----
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Keeps only what the gate reads, with one-line schemas, in 512-byte pages.
slim() {
    sqlite3 "$1" <<'SQL'
CREATE TABLE k AS SELECT start, "end", demangledName, globalPid, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL;
DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;
ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;
CREATE TABLE r AS SELECT globalTid, correlationId, start, "end" FROM CUPTI_ACTIVITY_KIND_RUNTIME;
DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;
ALTER TABLE r RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;
CREATE TABLE g AS SELECT name FROM TARGET_INFO_GPU;
DROP TABLE TARGET_INFO_GPU;
ALTER TABLE g RENAME TO TARGET_INFO_GPU;
CREATE TABLE e AS SELECT name, value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'NvDriverVersion';
DROP TABLE TARGET_INFO_SYSTEM_ENV;
ALTER TABLE e RENAME TO TARGET_INFO_SYSTEM_ENV;
DROP TABLE IF EXISTS META_DATA_CAPTURE;
DROP TABLE IF EXISTS META_DATA_EXPORT;
SQL
    if sqlite3 "$1" "SELECT 1 FROM sqlite_master WHERE name = 'NVTX_EVENTS'" | grep -q 1; then
        sqlite3 "$1" <<'SQL'
CREATE TABLE n AS SELECT start, "end", globalTid, endGlobalTid, eventType, text, textId FROM NVTX_EVENTS;
DROP TABLE NVTX_EVENTS;
ALTER TABLE n RENAME TO NVTX_EVENTS;
SQL
    fi
    sqlite3 "$1" 'PRAGMA page_size = 512; VACUUM;'
}
gen() {
    local name=$1; shift
    "$gentrace" -o "$work/$name.sqlite" "$@" >/dev/null
    slim "$work/$name.sqlite"
}
gen nested --kernels 20 --names 3 --epochs 2 --nested
gen ranks --kernels 24 --names 3 --epochs 2 --warmup 1 --ranks 2 --threads 2 --outside 4
gen registered --kernels 12 --names 2 --epochs 3 --registered --epoch-format 'Epoch_%d/3'
gen nonvtx --kernels 8 --names 2 --no-nvtx
gen driverapi --kernels 8 --names 2 --epochs 2 --driver-api
for f in "$work"/*.sqlite; do cp "$f" "$corpus/sqlite/seed-$(basename "$f")"; done

variant() {   # NAME SQL: the nested export with SQL applied
    cp "$work/nested.sqlite" "$work/v.sqlite"
    sqlite3 "$work/v.sqlite" "$2"
    sqlite3 "$work/v.sqlite" 'VACUUM;'
    cp "$work/v.sqlite" "$corpus/sqlite/seed-$1.sqlite"
}
variant kernel_v2 'ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO CUPTI_ACTIVITY_KIND_KERNEL_V2'
variant view 'ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k; CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM k'
variant text_durations 'CREATE TABLE k AS SELECT CAST(start AS TEXT) AS start, CAST("end" AS TEXT) AS "end", demangledName, globalPid, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL'
variant nul_name "UPDATE StringIds SET value = CAST(X'6B00653C3E1B5B316D' AS TEXT) WHERE id = (SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)"
variant int64_durations 'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 0, "end" = 9223372036854775807 WHERE rowid <= 2'
variant end_before_start 'UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 1 WHERE rowid = 3'
variant no_stringids 'DROP TABLE StringIds'
variant empty_kernels 'DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL'
variant null_text_ranges 'UPDATE NVTX_EVENTS SET text = NULL, "end" = NULL WHERE rowid % 2 = 0'
variant wal 'PRAGMA journal_mode = WAL' >/dev/null
sqlite3 "$work/tiny.sqlite" 'PRAGMA page_size = 512; CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, "end" INT, demangledName INT); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 10, 1), (5, 20, 2), (7, 9, 1); CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, "a"), (2, "b");'
cp "$work/tiny.sqlite" "$corpus/sqlite/seed-tiny.sqlite"

# ---- sqlite_diff: a flags byte, the lengths of a -journal and a -wal when
# its bits 0 and 1 ask for them, the database, the journal, the WAL (see
# fuzz_sqlite_diff.c): the exports above in each mode, a WAL database with
# committed pages in its -wal, a hot journal, and each with the header of
# the other ----
mkdir -p "$corpus/sqlite_diff"
rm -f "$corpus"/sqlite_diff/seed-*
python3 - "$work" "$corpus/sqlite_diff" <<'PY'
import shutil, sqlite3, struct, sys
work, out = sys.argv[1], sys.argv[2]
def seed(name, flags, db, journal=None, wal=None):
    head = bytes([flags | (1 if journal is not None else 0) | (2 if wal is not None else 0)])
    if journal is not None:
        head += struct.pack("<H", len(journal))
    if wal is not None:
        head += struct.pack("<H", len(wal))
    open(f"{out}/seed-{name}", "wb").write(head + db + (journal or b"") + (wal or b""))
for name in ("nested", "ranks", "nonvtx", "driverapi"):
    db = open(f"{work}/{name}.sqlite", "rb").read()
    for flags, mode in ((0, "total"), (16, "all"), (8, "gpu-busy"), (12, "nvtx"), (20, "nvtx-busy")):
        seed(f"{name}-{mode}", flags, db)
# committed rows in a -wal (no checkpoint), and a writer stopped mid-transaction
shutil.copy(f"{work}/nonvtx.sqlite", f"{work}/w.sqlite")
c = sqlite3.connect(f"{work}/w.sqlite"); c.execute("pragma journal_mode=wal"); c.close()
c = sqlite3.connect(f"{work}/w.sqlite"); c.execute("pragma wal_autocheckpoint=0")
c.execute('update CUPTI_ACTIVITY_KIND_KERNEL set "end" = "end" + 1000'); c.commit()
db, wal = open(f"{work}/w.sqlite", "rb").read(), open(f"{work}/w.sqlite-wal", "rb").read()
c.close()
seed("wal-pending", 0, db, wal=wal)
seed("wal-header-rollback", 0, db[:18] + b"\1\1" + db[20:], wal=wal)
shutil.copy(f"{work}/nonvtx.sqlite", f"{work}/h.sqlite")
c = sqlite3.connect(f"{work}/h.sqlite", isolation_level=None); c.execute("pragma cache_size=1")
c.execute("begin"); c.execute('update CUPTI_ACTIVITY_KIND_KERNEL set "end" = "end" + 1000')
db, journal = open(f"{work}/h.sqlite", "rb").read(), open(f"{work}/h.sqlite-journal", "rb").read()
seed("hot-journal", 0, db, journal=journal)
seed("hot-journal-wal-header", 0, db[:18] + b"\2\2" + db[20:], journal=journal)
c.execute("rollback"); c.close()
PY

# ---- cli: NUL-separated pieces; \001 + variable byte + value = env ----
cli() {   # NAME PIECE...
    local name=$1; shift
    printf '%s\0' "$@" | head -c -1 >"$corpus/cli/seed-$name"
}
# the environment piece for variable index $1 of fuzz_cli.c's table (the
# byte is taken modulo 17; 34 + i keeps it printable and non-NUL)
envp() { printf "\\001\\x$(printf %02x $((34 + $1)))%s" "$2"; }
cli operands base.sqlite cur.sqlite
cli all_flags --epochs 10 --threshold=20% --json - --junit j.xml --name n --nsys /bin/nsys \
    --nsys-timeout 2.5 --quiet a b
cli nvtx --epoch-range auto --metric gpu-span --skip-epochs 1 --alpha 0.05 --top 3 --verbose \
    --fail-inconclusive --baseline a --baseline b --current c
cli env "$(envp 0 12)" "$(envp 1 1.25x)" "$(envp 8 a.sqlite:b.sqlite)" "$(envp 9 c.sqlite)" "$(envp 7 yes)"
cli env_bad "$(envp 1 abc)" "$(envp 0 -3)" "$(envp 13 nan)" x y
cli print_profile --print-profile a.csv
cli usage_errors --epochs '' --threshold x1.2 --unknown --json --quiet=maybe a b c
cli help --help --version -h
cli dashdash -- -a --b
cli same_output --json a.sqlite a.sqlite b.sqlite
cli thresholds 1.2 1.20x 20% 1e3 inf .5 100% 999999999.9
# ---- manifest: JSON batch manifests ----
mkdir -p "$corpus/manifest"
rm -f "$corpus"/manifest/seed-*
man() { local name=$1; shift; printf '%s\n' "$@" >"$corpus/manifest/seed-$name.json"; }
man one '{"gates": [{"name": "a", "baseline": "b.sqlite", "current": "c.sqlite"}]}'
man all_fields '{"gates": [{"name": "resnet", "baseline": ["b1.sqlite", "b2.sqlite"], "current": ["c1.sqlite"],' \
    ' "epochs": 10, "threshold": "15%", "epoch_range": "auto", "metric": "gpu-span", "skip_epochs": 1,' \
    ' "alpha": 0.05, "top": 3, "fail_inconclusive": true, "verbose": false, "nsys": "/opt/nsys",' \
    ' "nsys_timeout": 30}, {"name": "bert", "baseline": "x.csv", "current": "y.csv", "threshold": 1.2}]}'
man bad_field '{"gates": [{"name": "a", "baseline": "b", "current": "c", "threshold": 0.5}]}'
man duplicate_names '{"gates": [{"name": "a", "baseline": "b", "current": "c"}, {"name": "a", "baseline": "b", "current": "c"}]}'
man unknown_field '{"gates": [{"name": "a", "baseline": "b", "current": "c", "json": "x.json"}]}'
man wrong_types '{"gates": [{"name": 7, "baseline": [], "current": {"x": 1}, "epochs": "ten"}]}'
man empty_gates '{"gates": []}'
man not_object '[1, 2, 3]'
man escapes '{"gates": [{"name": "\u001b[31m\u0000x", "baseline": "../b\"q.sqlite", "current": "/abs/c.sqlite"}]}'
man truncated '{"gates": [{"name": "a", "baseline": "b'
# ---- history: JSON Lines of verdicts ----
mkdir -p "$corpus/history"
rm -f "$corpus"/history/seed-*
hist() { local name=$1; shift; printf '%s' "$@" >"$corpus/history/seed-$name.jsonl"; }
expected=$(realpath ../golden/expected)
cp "$expected/history_append/history.jsonl" "$corpus/history/seed-golden_two.jsonl"
cp "$expected/manifest_mixed/history.jsonl" "$corpus/history/seed-golden_batch.jsonl"
cp "$expected/context_github/history.jsonl" "$corpus/history/seed-context_rows.jsonl"
cp "$fixtures/history_main_4c2abb4.jsonl" "$corpus/history/seed-main_4c2abb4.jsonl"
line=$(head -n 1 "$expected/history_append/history.jsonl")
hist torn "$line" $'\n' "${line:0:200}" $'\n' "$line" $'\n'
hist torn_at_end "$line" $'\n' "${line:0:300}"
hist glued "$line$line" $'\n'
hist blank_crlf $'\n\n' "$line" $'\r\n' $'  \t\r\n' "$line"
hist old_version '{"schema_version":1,"name":"old","verdict":"fail","baseline_ms_per_epoch":200,' \
    '"current_ms_per_epoch":300,"ratio":1.5,"threshold":1.2,"epochs":5,"baseline":{"path":"b"},' \
    '"current":{"path":"c"},"message":"FAIL","error":null}' $'\n'
hist unknown_fields "{\"context\":{\"commit\":\"abc\",\"labels\":[1,null,true]},\"future\":{}," "${line:1}" $'\n'
hist error_and_nvtx '{"name":"e","verdict":"error","mode":"nvtx","error":"unable to open \u0027x\u0027",' \
    '"baseline":{"path":null,"runs":[]},"current":{"path":"c","runs":[{"path":"c","format":"sqlite"}]}}' $'\n' \
    '{"name":"n","verdict":"inconclusive","mode":"nvtx","ratio":1.3,"threshold":1.2,"p_value":0.2,' \
    '"alpha":0.05,"samples":{"baseline":[1,2],"current":[1,2,3]},"kernels":[{"name":"k","status":"new"}]}' $'\n'
hist garbage 'hello' $'\n' '{}' $'\n' '[1,2]' $'\n' '{"name":7,"verdict":"pass"}' $'\n' \
    '{"name":"x","verdict":"maybe"}' $'\n' $'\xff\xfe{' $'\n'
# ---- kineto: torch.profiler Chrome traces, plain and gzip ----
mkdir -p "$corpus/kineto"
rm -f "$corpus"/kineto/seed-*
kin() { local name=$1; shift; printf '%s' "$@" >"$corpus/kineto/seed-$name.json"; }
"$gentrace" --format kineto -o "$corpus/kineto/seed-gen.json" --force --kernels 40 --names 4 --epochs 2 \
    --warmup 1 --threads 2 --memory-share 0.2 --unlaunched 2 --dist-rank 1 --world-size 2 >/dev/null
"$gentrace" --format kineto -o "$work/nested.json" --force --kernels 30 --names 3 --epochs 2 --nested \
    --driver-api --devices-per-rank 2 --comm-share 0.2 >/dev/null
gzip -n -c "$work/nested.json" >"$corpus/kineto/seed-nested.json.gz"
gzip -n -c "$corpus/kineto/seed-gen.json" | head -c 700 >"$corpus/kineto/seed-truncated_gzip.json.gz"
head -c 1500 "$corpus/kineto/seed-gen.json" >"$corpus/kineto/seed-truncated.json"
ev='{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "args": {"correlation": 5, "device": 0}'
call='{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 9.5, "dur": 1, "args": {"correlation": 5}}'
step='{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 9, "tid": 9, "ts": 1, "dur": 100}'
kin missing_dur '{"traceEvents": [' "$step, $call, $ev, \"ts\": 10}" ']}'
kin negative_dur '{"traceEvents": [' "$step, $call, $ev, \"ts\": 10, \"dur\": -0.001}" ']}'
kin ts_string '{"traceEvents": [' "$step, $call, $ev, \"ts\": \"10\", \"dur\": 1}" ']}'
kin exponents '{"traceEvents": [' "$step, $call, $ev, \"ts\": 1.0e1, \"dur\": 25E-1}, $ev, \"ts\": 1682725898236567.123, \"dur\": 0.0005}" ']}'
kin escapes '{"deviceProperties": [{"name": "NVIDIA \u0041100"}, {"name": "V\"100"}], "distributedInfo": {"rank": 3, "world_size": 4}, "traceEvents": [' \
    "$step, $call, {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k\\u0000\\ud83d\\ude00\\n\", \"ts\": 10, \"dur\": 1, \"args\": {\"correlation\": 5}}" ']}'
kin no_launch '{"traceEvents": [' "$step, $ev, \"ts\": 10, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy PtoP (Device -> Device)\", \"ts\": 11, \"dur\": 2}" ']}'
kin string_pid '{"traceEvents": [' '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": "Spans", "tid": "x", "ts": 1, "dur": 50}, ' \
    "$ev, \"ts\": 10, \"dur\": 1}" '], "traceEvents2": {}}'
kin escaped_values '{"traceEvents": [' "{\"ph\": \"\\u0058\", \"cat\": \"user\\u005fannotation\", \"name\": \"ProfilerStep#3\", \"pid\": \"\\u0039\", \"tid\": 9, \"ts\": 1, \"dur\": 100}, " \
    "{\"ph\": \"X\", \"cat\": \"cuda\\u005Fruntime\", \"name\": \"cudaLaunchKernel\", \"pid\": \"9\", \"tid\": 9, \"ts\": 9.5, \"dur\": 1, \"args\": {\"correlation\": 5}}, " \
    "{\"ph\": \"\\u0058\", \"cat\": \"\\u006bernel\", \"name\": \"k\", \"ts\": 10, \"dur\": 1, \"args\": {\"correlation\": 5}}" ']}'
kin raw_control '{"traceEvents": [' "$step, $call, $ev, \"ts\": 10, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a"$'\t'"b"$'\n'"c\", \"ts\": 12, \"dur\": 1}" ']}'
kin bad_utf8 '{"traceEvents": [' "$step, $call, $ev, \"ts\": 10, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"caf"$'\xe9'" "$'\xc0\xaf'" "$'\xed\xa0\x80'"\", \"ts\": 12, \"dur\": 1}" ']}'
kin utf8 '{"traceEvents": [' "$step, $call, $ev, \"ts\": 10, \"dur\": 1}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"caf"$'\xc3\xa9'" "$'\xe2\x88\x91'" "$'\xf0\x9d\x84\x9e'"\", \"ts\": 12, \"dur\": 1}" ']}'
kin two_arrays '{"traceEvents": [], "traceEvents": []}'
kin empty_object '{}'
kin no_events '{"schemaVersion": 1}'
kin trailing '{"traceEvents": []} {}'
kin bom $'\xef\xbb\xbf' '  {"traceEvents": [' "$step, $call, $ev, \"ts\": 10, \"dur\": 1}" ']}'
python3 -c "print('{\"traceEvents\": [{\"args\": ' + '[' * 10000 + ']' * 10000 + '}]}', end='')" >"$corpus/kineto/seed-deep.json"
python3 -c "import sys; sys.stdout.write('{\"traceEvents\": [{\"name\": \"' + 'k' * (40 << 20) + '\"}]}')" |
    gzip -n -9 >"$corpus/kineto/seed-huge_string.json.gz"
# ---- rocprof_json, rocprof_csv: rocprofv3 output from genrocprof.py ----
genrocprof=$(realpath ../tools/genrocprof.py)
mkdir -p "$corpus/rocprof_json" "$corpus/rocprof_csv"
rm -f "$corpus"/rocprof_json/seed-* "$corpus"/rocprof_csv/seed-*
rj() { local name=$1; shift; python3 "$genrocprof" -o "$corpus/rocprof_json/seed-$name.json" --processes 1 --gpus 2 --steps 2 --kernels 4 "$@"; }
rj gen
rj two_processes --processes 2
rj no_hip_trace --no-hip-trace
rj no_markers --no-markers
rj missing_symbol --fault missing-symbol
rj end_before_start --fault end-before-start
rj no_buffer_records --fault no-buffer-records
rj truncated --fault truncated
python3 "$genrocprof" -o "$corpus/rocprof_json/seed-gen.json.gz" --gzip --processes 1 --steps 2 --kernels 4
printf '%s' '{"rocprofiler-sdk-tool": [{"metadata": {"pid": 1}, "agents": [{"id": {"handle": 5}, "type": "GPU", "logical_node_type_id": 0, "product_name": "X"}], "kernel_symbols": [{"kernel_id": 1, "kernel_name": "k\u0000.kd"}], "buffer_records": {"kernel_dispatch": [{"kind": 11, "correlation_id": {"internal": 1}, "start_timestamp": 1, "end_timestamp": 9223372036854775807, "dispatch_info": {"agent_id": {"handle": 5}, "kernel_id": 1}}, {"kind": 11, "correlation_id": {"internal": 2}, "start_timestamp": 0, "end_timestamp": 1, "dispatch_info": {"agent_id": {"handle": 5}, "kernel_id": 1}}]}}]}' >"$corpus/rocprof_json/seed-overflow.json"
printf '%s' '{"rocprofiler-sdk-tool": [{"buffer_records": {"kernel_dispatch": [{"start_timestamp": -1}]}}]} x' >"$corpus/rocprof_json/seed-negative.json"
rc() { local name=$1; shift; python3 "$genrocprof" -o "$work/csv-$name" --format csv --processes 2 --steps 2 --kernels 4 "$@"; cat "$work/csv-$name"/*kernel_trace.csv >"$corpus/rocprof_csv/seed-$name.csv"; }
rc gen
rc missing_column --fault csv-missing-column
rc bad_timestamp --fault csv-bad-timestamp
rc unterminated_quote --fault csv-unterminated-quote
# named for their table, not as rocprofv3 names its files, so no seed passes for a real profile
for f in "$work"/csv-gen/*_trace.csv; do
    t=$(basename "$f" _trace.csv); cp "$f" "$corpus/rocprof_csv/seed-gen_${t#*_}.csv"
done
cp "$work"/csv-gen/*marker_api_trace.csv "$corpus/rocprof_csv/seed-crlf_markers.csv"
sed -i 's/$/\r/' "$corpus/rocprof_csv/seed-crlf_markers.csv"
printf '%s\n' $'\xef\xbb\xbf"Kind","Agent_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"' '"KERNEL_DISPATCH","Agent 4","a ""quoted""
name",1,10,20' 'KERNEL_DISPATCH,GPU 99999999999999999999,b,2,0,18446744073709551615' ',,,,,' >"$corpus/rocprof_csv/seed-quotes.csv"
# ---- rocpd: small databases of every variant and fault, vacuumed to 512-byte pages ----
mkdir -p "$corpus/rocpd"
rm -f "$corpus"/rocpd/seed-*
roc() {
    name=$1
    shift
    python3 ../tools/genrocpd.py --steps 2 --kernels 3 "$@" "$work/$name.db" >/dev/null
    sqlite3 "$work/$name.db" 'PRAGMA page_size = 512; VACUUM;'
    cp "$work/$name.db" "$corpus/rocpd/seed-$name.db"
}
roc schema3
roc lz4 --schema lz4
roc v410 --schema 4.1
roc merged --processes 2 --use-gpus 2
roc no_hip --no-hip-trace
roc missing_symbol --fault missing-symbol
roc end_before_start --fault end-before-start
roc schema9 --fault schema-version=9
roc no_symbols --fault drop-table=rocpd_info_kernel_symbol
roc lz4_length --schema lz4 --fault lz4-length

echo "corpus: $(ls "$corpus/csv" | wc -l) csv, $(ls "$corpus/sqlite" | wc -l) sqlite, $(ls "$corpus/cli" | wc -l) cli, $(ls "$corpus/manifest" | wc -l) manifest, $(ls "$corpus/history" | wc -l) history, $(ls "$corpus/kineto" | wc -l) kineto, $(ls "$corpus/rocprof_json" | wc -l) rocprof_json, $(ls "$corpus/rocprof_csv" | wc -l) rocprof_csv, $(ls "$corpus/rocpd" | wc -l) rocpd"
