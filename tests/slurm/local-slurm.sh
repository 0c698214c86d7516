#!/usr/bin/env bash
# local-slurm.sh - start/stop a real single-node Slurm cluster on this machine
# for tests (no mock scheduler).  Everything lives in one directory DIR: its own
# munged (socket, key, pid, log), slurm.conf, controller state, slurmd spool,
# logs and pid files.  Nothing is exported globally; callers pick the cluster up
# through SLURM_CONF only.
#
# Usage (as root; Slurm 22.05 + MUNGE + OpenMPI from Debian 12):
#   eval "$(tests/slurm/local-slurm.sh start DIR)"   # prints: export SLURM_CONF=DIR/slurm.conf
#   sbatch --wrap 'hostname'; squeue; sinfo; scontrol show job -o ID   # all use $SLURM_CONF
#   tests/slurm/local-slurm.sh stop DIR              # idempotent; 0 if nothing runs
#   tests/slurm/local-slurm.sh selftest              # start, run jobs (incl. MPI), stop
#
# Environment:
#   SLURM_TEST_CTLD_PORT  slurmctld port (default 6817; if busy and not set, the
#                         next free pair 6817+2k/6818+2k is taken)
#   SLURM_TEST_D_PORT     slurmd port    (default 6818)
#   SLURM_TEST_TIMEOUT    seconds to wait for the node to become idle (default 60)
#   SLURM_TEST_KEEP=1     selftest keeps its temp dir even on success
#
# Choices (found on Debian 12, Slurm 22.05.8, OpenMPI 4.1.4, PMIx 4.2.2):
#   * munge: a private munged per DIR (socket DIR/munge/munge.socket.2, fresh key
#     made with mungekey), wired in through AuthInfo=socket=...; it never touches
#     a system munged at /run/munge.  munged runs with --force because mktemp
#     dirs are 0700 and munged otherwise refuses a socket that not everyone can
#     traverse to (only a warning with --force; jobs run as root here anyway).
#   * daemons run in the foreground (-D) in their own session (setsid), their
#     pids are kept in DIR/run/*.pid and checked against /proc/PID/cmdline (which
#     names DIR) before any signal, so stale pid files are harmless.
#   * MPI: `srun --mpi=list` offers pmix (pmix_v4), pmi2, cray_shasta, none.
#     Debian's OpenMPI 4.1.4 is built against external PMIx 4.2 (mca pmix ext3x)
#     without Slurm PMI-1/PMI-2 support, so only `srun --mpi=pmix` works; no
#     OMPI_* environment is needed.  `--mpi=pmi2` or `none` aborts in MPI_Init:
#       OPAL ERROR: Unreachable in file ext3x_client.c at line 112
#       The application appears to have been direct launched using "srun",
#       but OMPI was not built with SLURM's PMI support and therefore cannot execute.
#     mpirun inside an sbatch job also works, but as root it needs
#     --allow-run-as-root.  slurmd.log then shows a harmless
#     "mpi/pmix_v4: pmixp_libpmix_finalize: ... Failed to remove /tmp/spmix_appdir_..."
#     (PMIx already removed it).
#   * SchedulerParameters=batch_sched_delay=0,sched_min_interval=0 so jobs start
#     within ~1 s instead of ~3 s; MinJobAge=600 keeps finished jobs visible to
#     `scontrol show job -o ID` (there is no accounting, so no sacct).
#   * PID 1 in this container reaps orphans only now and then, so stopped
#     daemons can show as <defunct> for a while; they hold no ports and are
#     treated as dead.  munged.log shows "Info: Unauthorized credential for
#     client UID=0 GID=0" once per job step; harmless, the steps run.
#   * A selftest killed with SIGKILL leaves its cluster running in
#     /tmp/local-slurm.XXXXXX: `local-slurm.sh stop /tmp/local-slurm.XXXXXX/cluster`.
set -euo pipefail

PROG=local-slurm.sh
SELF=$(readlink -f "${BASH_SOURCE[0]}")

# srun MPI plugin that works with Debian's OpenMPI 4.1.4 (see header).
MPI_SRUN_PLUGIN=pmix

log() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# ---------------------------------------------------------------- helpers ----

# abs_dir DIR -> absolute path (DIR need not exist yet)
abs_dir() { readlink -m -- "$1"; }

# pid_alive PID NAME DIR: true if PID is a live (non-zombie) process whose
# argv[0] basename is NAME and whose command line mentions DIR.
pid_alive() {
    local pid=$1 name=$2 dir=$3 stat cmd argv0
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/stat ]] || return 1
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }; stat=${stat%% *}
    [[ $stat != Z && $stat != X ]] || return 1
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
    argv0=${cmd%% *}; argv0=${argv0##*/}
    [[ $argv0 == "$name" && $cmd == *"$dir/"* ]]
}

# pid_running PID: true if PID is a live (non-zombie) process, whatever it runs. For a daemon
# this script has just started: until `setsid` has exec'd it, its pid runs bash or setsid.
pid_running() {
    local pid=$1 stat
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    stat=${stat##*) }; stat=${stat%% *}
    [[ $stat != Z && $stat != X ]]
}

# pidfile_pid FILE -> prints the pid in FILE (empty if none)
pidfile_pid() { if [[ -s $1 ]]; then tr -dc '0-9' <"$1" || true; fi; }

# stop_daemon NAME PIDFILE DIR: SIGTERM, wait (<=20 s), then SIGKILL.
stop_daemon() {
    local name=$1 pidfile=$2 dir=$3 pid i
    pid=$(pidfile_pid "$pidfile")
    if [[ -n $pid ]] && pid_alive "$pid" "$name" "$dir"; then
        log "stopping $name (pid $pid)"
        kill -TERM "$pid" 2>/dev/null || true
        for ((i = 0; i < 200; i++)); do
            pid_alive "$pid" "$name" "$dir" || break
            sleep 0.1
        done
        if pid_alive "$pid" "$name" "$dir"; then
            log "$name (pid $pid) ignored SIGTERM for 20 s, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            for ((i = 0; i < 50; i++)); do
                pid_alive "$pid" "$name" "$dir" || break
                sleep 0.1
            done
            pid_alive "$pid" "$name" "$dir" && die "$name (pid $pid) survives SIGKILL"
        fi
    fi
    rm -f "$pidfile"
}

# port_busy PORT: true if something listens on TCP PORT
port_busy() {
    if command -v ss >/dev/null 2>&1; then
        [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
    fi
}

# choose_ports -> sets CTLD_PORT, D_PORT
choose_ports() {
    local p k
    for p in "${SLURM_TEST_CTLD_PORT:-}" "${SLURM_TEST_D_PORT:-}"; do
        [[ -z $p || $p =~ ^[0-9]+$ && $p -ge 1 && $p -le 65535 ]] ||
            die "bad port '$p' in SLURM_TEST_CTLD_PORT/SLURM_TEST_D_PORT"
    done
    if [[ -n ${SLURM_TEST_CTLD_PORT:-} || -n ${SLURM_TEST_D_PORT:-} ]]; then
        CTLD_PORT=${SLURM_TEST_CTLD_PORT:-6817}
        D_PORT=${SLURM_TEST_D_PORT:-6818}
        [[ $CTLD_PORT != "$D_PORT" ]] || die "slurmctld and slurmd ports are both $CTLD_PORT"
        port_busy "$CTLD_PORT" && die "slurmctld port $CTLD_PORT is in use (SLURM_TEST_CTLD_PORT)"
        port_busy "$D_PORT" && die "slurmd port $D_PORT is in use (SLURM_TEST_D_PORT)"
        return 0
    fi
    for ((k = 0; k < 50; k++)); do
        CTLD_PORT=$((6817 + 2 * k)) D_PORT=$((6818 + 2 * k))
        if ! port_busy "$CTLD_PORT" && ! port_busy "$D_PORT"; then
            ((k == 0)) || log "ports 6817/6818 busy, using $CTLD_PORT/$D_PORT"
            return 0
        fi
    done
    die "no free port pair in 6817..6916; set SLURM_TEST_CTLD_PORT/SLURM_TEST_D_PORT"
}

# show_logs DIR: tails of all daemon logs, to stderr
show_logs() {
    local dir=$1 f
    for f in "$dir"/munge/munged.log "$dir"/log/slurmctld.log "$dir"/log/slurmctld.out \
        "$dir"/log/slurmd.log "$dir"/log/slurmd.out; do
        [[ -s $f ]] || continue
        printf '%s\n' "----- tail -n 25 $f" >&2
        tail -n 25 "$f" >&2
    done
    printf '%s\n' "-----" >&2
}

# first_error DIR: first fatal (else error) line of the daemon logs, for the
# one-line message; skips the errors every fresh start logs (no state files yet).
first_error() {
    local dir=$1 f line pat
    for pat in 'fatal' 'error'; do
        for f in "$dir"/log/slurmctld.out "$dir"/log/slurmctld.log "$dir"/log/slurmd.out \
            "$dir"/log/slurmd.log "$dir"/munge/munged.log; do
            [[ -s $f ]] || continue
            line=$(grep -iE "$pat" "$f" 2>/dev/null |
                grep -vE 'state file|Trying backup state|No such file or directory$' |
                head -n1 || true)
            [[ -z $line ]] || { printf '%s: %s' "${f##*/}" "$line"; return 0; }
        done
    done
    printf 'no error line in the logs'
}

# fail_start DIR MSG: show log tails, stop what was started, die with MSG and
# the first error line of the logs.
fail_start() {
    local dir=$1 err; shift
    show_logs "$dir"
    err=$(first_error "$dir")
    cmd_stop "$dir" || true
    die "$* [$err]"
}

# ------------------------------------------------------------------ stop -----

cmd_stop() {
    local dir conf pid i
    dir=$(abs_dir "$1")
    [[ -d $dir ]] || return 0
    conf=$dir/slurm.conf
    # Cancel jobs first so no slurmstepd outlives its slurmd.
    pid=$(pidfile_pid "$dir/run/slurmctld.pid")
    if [[ -f $conf && -n $pid ]] && pid_alive "$pid" slurmctld "$dir"; then
        local ids
        ids=$(SLURM_CONF=$conf timeout 10 squeue -h -o %A 2>/dev/null || true)
        if [[ -n $ids ]]; then
            log "cancelling jobs: ${ids//$'\n'/ }"
            # shellcheck disable=SC2086
            SLURM_CONF=$conf timeout 10 scancel $ids 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -t R,CG,S -o %A 2>/dev/null) ]] && break
                sleep 0.1
            done
        fi
    fi
    stop_daemon slurmd "$dir/run/slurmd.pid" "$dir"
    stop_daemon slurmctld "$dir/run/slurmctld.pid" "$dir"
    stop_daemon munged "$dir/munge/munged.pid" "$dir"
}

# ----------------------------------------------------------------- start -----

cmd_start() {
    local dir node conf hw key sock i state pid timeout
    [[ $(id -u) == 0 ]] || die "must run as root (SlurmUser=root, slurmd needs root)"
    for b in munged slurmctld slurmd sinfo; do
        command -v "$b" >/dev/null 2>&1 || die "$b not found in PATH (apt-get install slurm-wlm munge)"
    done
    dir=$(abs_dir "$1")
    [[ $dir != / ]] || die "refusing to use / as cluster dir"
    [[ ${#dir} -le 80 ]] || die "cluster dir path too long for a unix socket (${#dir} > 80 chars): $dir"
    timeout=${SLURM_TEST_TIMEOUT:-60}

    # A previous run in the same DIR (maybe killed): stop what is still alive.
    cmd_stop "$dir"

    mkdir -p "$dir"
    # Fresh cluster state every start; the munge key is kept if present.
    rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge"
    chmod 0755 "$dir/munge"
    rm -f "$dir/munge/munge.socket.2" "$dir/munge/munge.socket.2.lock" "$dir/munge/munged.log"
    conf=$dir/slurm.conf
    key=$dir/munge/munge.key
    sock=$dir/munge/munge.socket.2

    node=$(hostname -s)
    hw=$(slurmd -C 2>/dev/null | head -n1) || true
    [[ $hw == NodeName=* ]] || die "'slurmd -C' gave no node line: $hw"
    hw=${hw#NodeName=* }   # CPUs=.. Boards=.. SocketsPerBoard=.. CoresPerSocket=.. ThreadsPerCore=.. RealMemory=..
    choose_ports

    # --- munged
    if [[ ! -s $key ]]; then
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile="$key" --force 2>/dev/null ||
                die "mungekey --create --keyfile=$key failed"
        else
            dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
        fi
    fi
    chmod 0600 "$key"
    local merr
    if ! merr=$(munged --force --socket="$sock" --key-file="$key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed" 2>&1); then
        fail_start "$dir" "munged failed to start: $merr"
    fi
    if ! merr=$(munge -n -S "$sock" 2>&1 | unmunge -S "$sock" 2>&1 >/dev/null); then
        fail_start "$dir" "munge round trip through $sock failed: $merr"
    fi

    # --- slurm.conf
    : >"$dir/plugstack.conf"
    cat >"$conf" <<EOF
# Generated by $SELF start $dir
ClusterName=bnnbench-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$D_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.slurm.pid
SlurmdPidFile=$dir/run/slurmd.slurm.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node $hw State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

    # --- slurmctld, slurmd (foreground daemons in their own session). The pid files this script
    # reads are its own: a daemon truncates and rewrites its SlurmctldPidFile/SlurmdPidFile while
    # starting, and a check that read one then took a running daemon for an exited one.
    setsid slurmctld -D -c -f "$conf" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/run/slurmctld.pid"
    # slurmd before the controller answers is fine: it retries registration.
    setsid slurmd -D -f "$conf" </dev/null >"$dir/log/slurmd.out" 2>&1 &
    echo $! >"$dir/run/slurmd.pid"

    # --- wait for the node to be idle
    state=
    for ((i = 0; i < timeout * 5; i++)); do
        for d in slurmctld slurmd; do
            pid=$(pidfile_pid "$dir/run/$d.pid")
            pid_running "$pid" || fail_start "$dir" "$d exited during startup"
        done
        state=$(SLURM_CONF=$conf timeout 5 sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
        [[ $state == idle ]] && break
        sleep 0.2
    done
    [[ $state == idle ]] ||
        fail_start "$dir" "node $node not idle after ${timeout}s (sinfo state: '${state:-no answer}')"
    log "cluster up in $dir: node $node idle, slurmctld :$CTLD_PORT, slurmd :$D_PORT, munge $sock"
    printf 'export SLURM_CONF=%q\n' "$conf"
}

# -------------------------------------------------------------- selftest -----

ST_DIR=
ST_OK=0
selftest_cleanup() {
    local rc=$?
    set +e
    if [[ -n $ST_DIR ]]; then
        "$SELF" stop "$ST_DIR/cluster"
        if [[ $ST_OK == 1 && ${SLURM_TEST_KEEP:-0} != 1 ]]; then
            rm -rf "$ST_DIR"
        else
            log "kept $ST_DIR for inspection"
        fi
    fi
    exit "$rc"
}

# st_submit ARGS... -> prints job id
st_submit() {
    local out
    out=$(sbatch --parsable "$@" 2>&1) || die "sbatch $* failed: $out"
    out=${out%%;*}
    [[ $out =~ ^[0-9]+$ ]] || die "sbatch $* gave no job id: $out"
    printf '%s\n' "$out"
}

# st_wait TIMEOUT ID... : wait until every job (array tasks included) is in a
# final state; dies on timeout or on a dependency that can never be satisfied.
st_wait() {
    local timeout=$1; shift
    local t0=$SECONDS id lines pending
    while :; do
        pending=0
        for id in "$@"; do
            lines=$(scontrol show job -o "$id" 2>&1) || die "scontrol show job $id failed: $lines"
            if grep -q 'Reason=DependencyNeverSatisfied' <<<"$lines"; then
                die "job $id: dependency never satisfied: $(grep -o 'JobState=[^ ]* Reason=[^ ]*' <<<"$lines" | head -n1)"
            fi
            if grep -qE 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)' <<<"$lines"; then
                pending=1
            fi
        done
        ((pending)) || return 0
        ((SECONDS - t0 < timeout)) || {
            squeue >&2 || true
            die "jobs $* not finished after ${timeout}s"
        }
        sleep 0.2
    done
}

# st_check_completed ID [N]: every record of ID is COMPLETED with ExitCode=0:0
# (and there are N records, for arrays).
st_check_completed() {
    local id=$1 want=${2:-1} lines n bad
    lines=$(scontrol show job -o "$id")
    n=$(grep -c 'JobState=' <<<"$lines" || true)
    [[ $n == "$want" ]] || die "job $id: expected $want job record(s), got $n"
    bad=$(grep -vE 'JobState=COMPLETED .*ExitCode=0:0' <<<"$lines" || true)
    [[ -z $bad ]] || die "job $id not COMPLETED/0:0: $(grep -oE 'JobId=[^ ]+|JobState=[^ ]+|Reason=[^ ]+|ExitCode=[^ ]+' <<<"$bad" | tr '\n' ' ')"
}

# st_expect FILE PATTERN [COUNT]: grep -F PATTERN in FILE (at least COUNT lines)
st_expect() {
    local f=$1 pat=$2 want=${3:-1} n
    [[ -f $f ]] || die "missing job output $f"
    n=$(grep -cF -- "$pat" "$f" || true)
    ((n >= want)) || die "$f: expected '$pat' at least $want time(s), found $n; content: $(tr '\n' '|' <"$f")"
}

cmd_selftest() {
    local t0=$SECONDS w host j_hello j_two j_arr j_dep j_mpi j_a j_b i
    command -v mpicc >/dev/null 2>&1 || die "mpicc not found (apt-get install libopenmpi-dev openmpi-bin)"
    ST_DIR=$(mktemp -d /tmp/local-slurm.XXXXXX)
    trap selftest_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP
    w=$ST_DIR/work
    mkdir -p "$w"
    host=$(hostname -s)

    local env_line
    env_line=$("$SELF" start "$ST_DIR/cluster") || die "start failed"
    eval "$env_line"
    [[ ${SLURM_CONF:-} == "$ST_DIR/cluster/slurm.conf" ]] || die "start printed '$env_line'"
    log "selftest: cluster up after $((SECONDS - t0))s"

    # MPI program, compiled while the first jobs run.
    cat >"$w/mpi_hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
EOF

    cd "$w"
    j_hello=$(st_submit -J hello -o "$w/hello.out" --wrap 'hostname; echo ok')
    j_two=$(st_submit -J two -n 2 -o "$w/two.out" --wrap 'srun hostname')
    # shellcheck disable=SC2016  # expanded by the job's shell
    j_arr=$(st_submit -J arr -a 0-2 -o "$w/arr_%A_%a.out" --wrap 'echo "task $SLURM_ARRAY_TASK_ID"')
    j_dep=$(st_submit -J dep --dependency="afterok:$j_arr" -o "$w/dep.out" --wrap 'echo dep ran')
    # Two 1-cpu jobs that each wait for the other: completes only if CR_Core lets
    # them run at the same time.
    j_a=$(st_submit -J concA -n 1 -c 1 -o "$w/concA.out" \
        --wrap "touch $w/A.started; for i in \$(seq 300); do [ -e $w/B.started ] && { echo both; exit 0; }; sleep 0.1; done; exit 1")
    j_b=$(st_submit -J concB -n 1 -c 1 -o "$w/concB.out" \
        --wrap "touch $w/B.started; for i in \$(seq 300); do [ -e $w/A.started ] && { echo both; exit 0; }; sleep 0.1; done; exit 1")

    local merr
    merr=$(mpicc -O0 -o "$w/mpi_hello" "$w/mpi_hello.c" 2>&1) || die "mpicc failed: $merr"
    cat >"$w/mpi.sbatch" <<EOF
#!/bin/bash
#SBATCH -J mpi
#SBATCH -n 2
#SBATCH -o $w/mpi.out
srun -n 2 --mpi=$MPI_SRUN_PLUGIN $w/mpi_hello
EOF
    j_mpi=$(st_submit "$w/mpi.sbatch")

    st_wait 120 "$j_hello" "$j_two" "$j_arr" "$j_dep" "$j_a" "$j_b" "$j_mpi"

    st_check_completed "$j_hello"
    st_expect "$w/hello.out" "$host"
    st_expect "$w/hello.out" ok
    st_check_completed "$j_two"
    st_expect "$w/two.out" "$host" 2
    st_check_completed "$j_arr" 3
    for i in 0 1 2; do st_expect "$w/arr_${j_arr}_$i.out" "task $i"; done
    st_check_completed "$j_dep"
    st_expect "$w/dep.out" "dep ran"
    st_check_completed "$j_a"
    st_check_completed "$j_b"
    st_expect "$w/concA.out" both
    st_expect "$w/concB.out" both
    st_check_completed "$j_mpi"
    st_expect "$w/mpi.out" "rank 0 of 2"
    st_expect "$w/mpi.out" "rank 1 of 2"
    log "selftest: jobs checked after $((SECONDS - t0))s"

    cd /
    "$SELF" stop "$ST_DIR/cluster" || die "stop failed"
    for f in slurmd slurmctld; do
        [[ ! -e $ST_DIR/cluster/run/$f.pid ]] || die "$f pid file left after stop"
    done
    "$SELF" stop "$ST_DIR/cluster" || die "second stop (idempotence) failed"
    ST_OK=1
    log "selftest: OK in $((SECONDS - t0))s"
}

# ------------------------------------------------------------------ main -----

case ${1:-} in
start) [[ $# == 2 ]] || usage; cmd_start "$2" ;;
stop) [[ $# == 2 ]] || usage; cmd_stop "$2" ;;
selftest) [[ $# == 1 ]] || usage; cmd_selftest ;;
-h | --help | help) usage ;;
*) usage ;;
esac
