# Inside a Slurm allocation of 2 emulated hosts, a plain "mpiexec ./a"
# spreads the ranks over the allocation (slots from SLURM_TASKS_PER_NODE,
# -n defaulting to their sum) and starts each host's agent through srun, as
# hydra's -launcher slurm and Open MPI do.  No Slurm here: the srun first in
# PATH is a fake that checks the step's options and runs the command on the
# emulated host through hostexec.  Also: -launcher CMD still takes the
# allocation's nodes; PBS_NODEFILE goes through the remote shell.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE PBS_NODEFILE

mkdir -p "$WORK/bin"
export SRUN_LOG="$WORK/srun.log"
cat >"$WORK/bin/srun" <<'SH'
#!/bin/bash
# fake srun: one task on one node of the allocation
echo "$*" >>"$SRUN_LOG"
host= nodes= ntasks= kill= mpi=
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
    case $1 in
    --nodelist=*) host=${1#*=} ;;
    --nodes=1) nodes=1 ;;
    --ntasks=1) ntasks=1 ;;
    --kill-on-bad-exit) kill=1 ;;
    --mpi=none) mpi=1 ;;
    --cpu-bind=none|--overlap) ;;
    *) echo "fake srun: unexpected option $1" >&2; exit 99 ;;
    esac
    shift
done
[ -n "$host" ] && [ -n "$nodes" ] && [ -n "$ntasks" ] && [ -n "$kill" ] && [ -n "$mpi" ] ||
    { echo "fake srun: missing --nodelist, --nodes=1, --ntasks=1, --kill-on-bad-exit or --mpi=none" >&2; exit 98; }
[ "${2:-}" = --agent ] || { echo "fake srun: not an agent command: $*" >&2; exit 97; }
exec "$SMAP_NETNS_LAUNCHER" "$host" "$@"
SH
chmod +x "$WORK/bin/srun"
export PATH="$WORK/bin:$PATH"

# Plain mpiexec in the allocation: 2 + 2 ranks, one srun step per host.
export SLURM_JOB_NODELIST='h[1-2]' SLURM_TASKS_PER_NODE='2(x2)'
run_job -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 2 0" "1 h1 2 1" "2 h2 2 0" "3 h2 2 1"
expect_ring "0 2" "2 2"
expect_sessions_gone
[ "$(wc -l <"$SRUN_LOG")" = 2 ] || fail "expected 2 srun steps: $(cat "$SRUN_LOG")"
grep -q -- "--nodelist=h1 " "$SRUN_LOG" && grep -q -- "--nodelist=h2 " "$SRUN_LOG" ||
    fail "srun steps: $(cat "$SRUN_LOG")"

# -n 3 fills h1's slots first; a failing rank under srun fails the job.
: >"$SRUN_LOG"
run_job -n 3 -l "$RANKPROG" env:SMAP_NODE_NAME
expect_rc 0
expect_out "[0] SMAP_NODE_NAME=h1"; expect_out "[1] SMAP_NODE_NAME=h1"
expect_out "[2] SMAP_NODE_NAME=h2"
run_job "$RANKPROG" @3:exit:5 "waitfile:$NEVER"
expect_rc 5
expect_within 15

# -launcher CMD: the allocation's nodes through that remote shell, no srun.
: >"$SRUN_LOG"
run_job -launcher "$SMAP_NETNS_LAUNCHER" -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 2 0" "1 h1 2 1" "2 h2 2 0" "3 h2 2 1"
[ -s "$SRUN_LOG" ] && fail "srun was called under -launcher CMD"
unset SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE

# PBS/Torque: one line per slot, started through the remote shell.
printf 'h2\nh1\nh2\n' >"$WORK/nodes"
PBS_NODEFILE="$WORK/nodes" run_job $MH -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h2 2 0" "1 h2 2 1" "2 h1 1 0"
[ -s "$SRUN_LOG" ] && fail "srun was called for PBS"

# Outside an allocation, -launcher slurm starts --host's hosts through srun.
run_job -launcher slurm --host h1,h2 -l "$RANKPROG" env:SMAP_NODE_NAME
expect_rc 0
expect_out "[0] SMAP_NODE_NAME=h1"; expect_out "[1] SMAP_NODE_NAME=h2"
[ "$(wc -l <"$SRUN_LOG")" = 2 ] || fail "expected 2 srun steps under -launcher slurm"
echo PASS
