#!/usr/bin/env bash
# The Slurm recipe of docs/summaries.md on a one-node cluster started here
# (Debian's slurm-wlm and munge, installed by ci/deps.sh): slurmctld and
# slurmd on this host with their own ports, state and logs under a
# temporary directory, and a munged on its own socket.  The job step
# `srun -n 4` writes each rank's profile (gentrace --rank-base stands in
# for nsys profile) and summarises it where it ran, as the recipe's
# `srun ... nsys-gate summarize` does; then the ranks' summaries, folded
# with --ranks, give the verdict of one file holding the four ranks.
#
# The daemons need root; without it, or when they cannot start, the test
# is skipped (exit 77) and says why, except under CI=true, where it fails.
# It stops only the daemons it started (their pid files).
#
# Environment: SRCDIR, GATE, GENTRACE.
set -u
skip() {
    if [ "${CI:-}" = true ]; then echo "not ok - slurm: $1, and under CI=true it must run"; exit 1; fi
    echo "slurm: skipped: $1"; exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: slurmd and munged cannot start"
for p in srun slurmctld slurmd munged; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || skip "no $p (slurm-wlm, munge: ci/deps.sh)"
done
PATH=$PATH:/usr/sbin
work=$(mktemp -d "${TMPDIR:-/tmp}/ng-slurm.XXXXXX")
chmod 755 "$work"
stop() {
    for f in slurmd slurmctld munged; do
        [ -s "$work/$f.pid" ] && kill "$(cat "$work/$f.pid")" 2>/dev/null
    done
    sleep 1
    rm -rf "$work"
}
trap stop EXIT
host=$(hostname -s)
port=$((20000 + $$ % 20000))
mkdir -p "$work/state" "$work/spool" "$work/munge" "$work/job"
cat >"$work/slurm.conf" <<CONF
ClusterName=nsysgate
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=ng Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$work/slurm.conf
munged --force --socket="$work/munge/munge.socket" --pid-file="$work/munged.pid" \
    --log-file="$work/munged.log" --seed-file="$work/munge/seed" >/dev/null 2>&1 ||
    skip "munged did not start: $(tail -n 2 "$work/munged.log" 2>/dev/null)"
slurmctld -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmctld did not start: $(tail -n 2 "$work/slurmctld.log")"
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmd did not start: $(tail -n 2 "$work/slurmd.log")"
for _ in $(seq 30); do
    sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)' && break
    sleep 1
done
sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)' ||
    skip "the node did not come up: $(sinfo 2>&1 | tail -n 1); $(tail -n 2 "$work/slurmd.log")"

cd "$work/job" || exit 1
gen="--kernels 500 --epochs 5 --warmup 1 --jitter 0.05"
# the recipe's two steps (--overcommit: four tasks on a node of fewer CPUs):
# each rank profiles (here: the generator), then
# summarises its own profile where it ran
# shellcheck disable=SC2016  # $SLURM_PROCID is the task's, expanded there
timeout 120 srun -n 4 --overcommit --chdir="$work/job" bash -c '
    "$GENTRACE" -o "prof-rank$SLURM_PROCID.sqlite" --rank-base "$SLURM_PROCID" '"$gen"' >/dev/null &&
    "$GATE" summarize --quiet --epoch-range auto -o "rank$SLURM_PROCID.summary.json.gz" \
        "prof-rank$SLURM_PROCID.sqlite"' >srun.log 2>&1 ||
    { echo "not ok - srun -n 4: $(tail -n 5 srun.log)"; exit 1; }
[ "$(ls rank*.summary.json.gz | wc -l)" = 4 ] || { echo "not ok - not 4 summaries"; ls; exit 1; }
echo "ok - srun -n 4: each rank summarised its own profile"

# shellcheck disable=SC2086
"$GENTRACE" -o all.sqlite --ranks 4 --kernels 2000 --epochs 5 --warmup 1 --jitter 0.05 >/dev/null
export SOURCE_DATE_EPOCH=1700000000
"$GATE" --epoch-range auto --json one.json all.sqlite all.sqlite >/dev/null 2>&1
"$GATE" --ranks --epoch-range auto --json ranks.json --baseline 'rank*.summary.json.gz' \
    --current all.sqlite >/dev/null 2>&1
n() { sed -e 's/"path":[[:space:]]*"[^"]*"/"path":P/g' "$1"; }
cmp -s <(n one.json) <(n ranks.json) || { echo "not ok - the ranks' summaries are not the one file"; exit 1; }
echo "ok - the four rank summaries, --ranks: the verdict of the one file of four ranks"
