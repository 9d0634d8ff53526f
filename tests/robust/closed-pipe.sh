#!/usr/bin/env bash
# A closed pipe on stdout or stderr ends that stream, not the run: the
# reports are still written, and the exit status is the verdict's (0, 1
# or 2), never 141 (killed by SIGPIPE).  Recipes:
#   nsys-gate --json p.json --junit p.xml A B | true
#   stderr a closed pipe while the gate prints an ERROR
#   nsys-gate --verbose ... | head -1   with megabytes of detail lines
#   a batch whose stdout is closed
#   nsys-gate ... >&-   (no descriptor 1 at all), and 2>&-, <&-
# The pipe is closed before the gate writes (its reader has exited), or
# partway (head).
#
# Environment: GATE, SRCDIR.
set -u
. "$SRCDIR/tests/robust/lib.sh"
robust_begin closed-pipe
fixtures kern2023_base.csv kern2023_cur120plus1.csv
valid_xml() { xmllint --noout "$1" 2>/dev/null; }
rc_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

# 1. stdout's reader is gone before the gate writes its human line
{ sleep 0.3; "$GATE" --epochs 10 --json p.json --junit p.xml kern2023_base.csv \
    kern2023_cur120plus1.csv; echo $? >rc1; } | true
check "stdout closed: exit 1 (the verdict's), not $(cat rc1)" rc_is rc1 1
check "stdout closed: the JSON verdict is written" valid_json p.json
check "stdout closed: the JUnit report is written" valid_xml p.xml

# 1b. stdout closed outright (>&-): without a descriptor 1 the first file
# the gate opens would become its stdout; the verdict's exit stands
"$GATE" --epochs 10 --json c.json --junit c.xml kern2023_base.csv \
    kern2023_cur120plus1.csv >&-
rc1b=$?
check "stdout closed (>&-): exit 1 (the verdict's), not $rc1b" test "$rc1b" = 1
check "stdout closed (>&-): the JSON verdict is written" valid_json c.json
check "stdout closed (>&-): the JUnit report is written" valid_xml c.xml
check "stdout closed (>&-): the verdict is the FAIL" grep -q '"verdict":	"fail"' c.json
"$GATE" --json d.json missing.csv kern2023_base.csv >&- 2>&-
rc1c=$?
check "stdout and stderr closed, an ERROR: exit 2, not $rc1c" test "$rc1c" = 2
check "stdout and stderr closed: the error verdict is written" \
    grep -q '"verdict":	"error"' d.json
"$GATE" --epochs 10 kern2023_base.csv kern2023_base.csv >&- <&-
rc1d=$?
check "stdin and stdout closed, a PASS: exit 0, not $rc1d" test "$rc1d" = 0

# 2. stderr's reader is gone when the ERROR line is printed
{ sleep 0.3; "$GATE" --json e.json --junit e.xml missing.csv kern2023_base.csv \
    2>&1 >/dev/null; echo $? >rc2; } | true
check "stderr closed with an ERROR: exit 2, not $(cat rc2)" rc_is rc2 2
check "stderr closed: the error verdict is written" \
    grep -q '"verdict":	"error"' e.json
check "stderr closed: the JUnit <error> is written" grep -q '<error ' e.xml

# 3. head closes stdout after the first of megabytes of --verbose lines;
# the GitHub annotations that follow on stdout, the step summary and the
# outputs are still written
many many_base.csv 1000000
many many_cur.csv 1500000
GITHUB_STEP_SUMMARY=$work/summary.md GITHUB_OUTPUT=$work/outputs.txt \
    "$GATE" --github --verbose --top 12000 --json v.json many_base.csv many_cur.csv | head -n 1 >first.txt
rc3=${PIPESTATUS[0]}
check "head -1 on long --verbose output: exit 1, not $rc3" test "$rc3" = 1
check "head -1: the first line is the headline" grep -q '^FAIL: per-epoch regression' first.txt
check "head -1: the JSON verdict is written" valid_json v.json
check "head -1: the step summary is written" grep -q 'nsys-gate' summary.md
check "head -1: the step outputs are written" grep -q '^verdict=fail$' outputs.txt

# 4. a batch whose stdout is closed
cat >m.json <<'EOF'
{"gates": [{"name": "a", "baseline": "kern2023_base.csv", "current": "kern2023_base.csv"},
           {"name": "b", "baseline": "kern2023_base.csv", "current": "kern2023_cur120plus1.csv",
            "epochs": 10}]}
EOF
{ sleep 0.3; "$GATE" --manifest m.json --json b.json --junit b.xml; echo $? >rc4; } | true
check "batch, stdout closed: exit 1, not $(cat rc4)" rc_is rc4 1
check "batch, stdout closed: the JSON document is written" valid_json b.json
check "batch, stdout closed: the JUnit report is written" valid_xml b.xml

robust_done
