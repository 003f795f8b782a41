# The UCX network engine (src/net/ucx) across emulated hosts: UCX over tcp
# on each host's own interface (SMAP_NET_ENGINE=ucx, UCX_TLS=tcp,
# UCX_NET_DEVICES=eth0, addresses in 198.18.0.0/15), jobs started by
# smrun's agents.  A representative subset of what the libfabric engine
# runs across hosts (transport.sh, suites.sh, failures.sh):
#   - the engine is loaded, libfabric is not, SMAP_VERBOSE names it;
#   - two ranks bound to one CPU by their hosts' agents know it (their
#     waits yield at once: base/wait.h);
#   - the cross-transport rules (net_rules: eager, rendezvous by ucp_get
#     of the sender's buffer, SMAP_NET_RMA=1 since over tcp alone the
#     default is pipelined tagged sends, its rkey pushed by the sender
#     ahead of the RTS, sizes around the eager limit) at 2x2, with a small
#     eager limit and chunk (many reads per message) at 2,1, and by
#     pipelined tagged sends (SMAP_NET_RMA=0);
#   - collectives at 1,2,3 (non-blocking) and 2x2 (reductions);
#   - one-sided communication (net_rma: flush, accumulates, locks, dynamic
#     windows; net_rma_rdma: sizes past the chunk, Rput/Rget, remote
#     completion seen by a third rank) by ucp_put/ucp_get, and net_rma
#     over messages (SMAP_RMA_NET_RMA=0);
#   - a rank killed on the second host stops the job with its signal;
#   - a job started by Open MPI's mpirun (PMIx key-value store).
# Skipped (77) where namespaces cannot be made or the engine is not built.
NHOSTS=3
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1     # the CI machine's few CPUs are shared by every host
# GCC 12's LeakSanitizer misreads the dynamic TLS of UCX's dlopen'ed
# libraries at exit (tests/net/multinode.sh): sanitizer builds only.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0"
[ -e "$SMAP_STAGE/lib/smartmap/libsmartmap_net_ucx.so" ] ||
    { echo "SKIPPED: the UCX engine is not built (libucx-dev)"; exit 77; }
U=(-x SMAP_NET_ENGINE=ucx -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0)

job() {   # job EXPECTED_RC SMRUN_ARGS...
    local want=$1
    shift
    run_job "$@"
    expect_rc "$want"
}

# The engine: its plugin and UCX mapped, libfabric not; SMAP_VERBOSE says
# which engine and why.
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --host h1:1,h2:2 "$TESTS_BIN/net/net_engine" ucx
expect_out "net_engine: 3 ranks OK (UCX engine mapped)"
expect_err "endpoint errors: peer (noted)"
expect_err "network engine ucx (SMAP_NET_ENGINE=ucx) loaded from"
expect_err "inter-node transport: ucx"
# over tcp alone the rendezvous defaults to pipelined tagged sends
expect_err "rendezvous by pipelined tagged sends, one-sided by ucp_put/ucp_get"

# Two hosts of one machine whose ranks are bound to one CPU: smrun binds
# the hosts of one machine over distinct cores, so it is given one CPU
# (taskset) and --bind-to core wraps both ranks onto it.  The ranks find
# that they share a CPU (src/boot) and their waits yield at once instead
# of spinning (base/wait.h); unbound, they do not.
printf '#!/bin/sh\nexec taskset -c 0 "%s" "$@"\n' "$SMRUN" >"$WORK/smrun_cpu0"
chmod +x "$WORK/smrun_cpu0"
SMRUN_ALL=$SMRUN SMRUN=$WORK/smrun_cpu0
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --bind-to core --host h1:1,h2:1 \
    "$TESTS_BIN/net/net_engine" ucx
SMRUN=$SMRUN_ALL
expect_err "job rank 0: another rank of this machine is bound to its CPU"
expect_err "job rank 1: another rank of this machine is bound to its CPU"
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --bind-to none --host h1:1,h2:1 \
    "$TESTS_BIN/net/net_engine" ucx
expect_no_err "bound to its CPU"

# Point-to-point: the rules at the default sizes, then many small chunks
# and a small eager limit (rendezvous at 2 KiB, 8 KiB transfers).
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 -x SMAP_NET_RMA=1 --host h1:2,h2:2 "$NET_RULES"
# the rendezvous reads took the rkeys their senders pushed with the RTS
grep -q "[1-9][0-9]* reads (ucp_get), 0 writes (ucp_put), 0 memory keys fetched, " "$WORK/err" ||
    fail "no rank read by ucp_get with pushed keys alone"
! grep -q " [1-9][0-9]* memory keys fetched" "$WORK/err" || fail "a rendezvous asked for a key"
job 0 $MH "${U[@]}" --host h1:2,h2:1 -x SMAP_NET_RMA=1 -x SMAP_NET_CHUNK=8K \
    -x SMAP_NET_EAGER_LIMIT=2K -x SMAP_COPY=bounce "$NET_RULES"
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --host h1:1,h2:2 -x SMAP_NET_RMA=0 -x SMAP_NET_CHUNK=8K \
    -x SMAP_NET_EAGER_LIMIT=2K "$NET_RULES"
expect_err "rendezvous by pipelined tagged sends, one-sided by ucp_put/ucp_get"

# Collectives across three uneven hosts and at 2x2.
job 0 $MH "${U[@]}" --host h1:1,h2:2,h3:3 "$TESTS_BIN/coll_nbc/nbc_coll" quick
job 0 $MH "${U[@]}" --host h1:2,h2:2 "$TESTS_BIN/coll/coll_reduce" quick

# One-sided across hosts: by ucp_put/ucp_get (many pieces with a small
# chunk), then by messages served by the target's progress.
job 0 $MH "${U[@]}" --host h1:2,h2:2 "$TESTS_BIN/net/net_rma"
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --host h1:1,h2:2 -x SMAP_NET_CHUNK=4K \
    "$TESTS_BIN/net/net_rma_rdma"
expect_err "writes (ucp_put), "
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 --host h1:2,h2:1 -x SMAP_RMA_NET_RMA=0 \
    "$TESTS_BIN/net/net_rma"
expect_err "one-sided by messages"

# Endpoints without error handling (SMAP_NET_UCX_ERRORS=none).
job 0 $MH "${U[@]}" -x SMAP_VERBOSE=2 -x SMAP_NET_UCX_ERRORS=none --host h1:1,h2:2 "$NET_RULES"
expect_err "endpoint errors: none (the launcher's)"

# A rank killed in the middle of a ping-pong with a rank of another host,
# in either mode: the launcher names it and stops the job at once; the
# survivor neither hangs nor dies first of the lost connection.
for mode in none peer; do
    run_job $MH "${U[@]}" -x SMAP_NET_UCX_ERRORS=$mode --host h1:2,h2:1 "$TESTS_BIN/net/net_die" 2000
    expect_rc 137
    expect_err "rank 2 (pid "
    expect_err "killed by signal 9 (SIGKILL)"
    expect_no_err "rank 0 (pid "
    expect_no_err "rank 1 (pid "
    expect_within 10
done

# kill -9 of rank 3 (second host) while the job runs: 137, all gone.
start_job $MH "${U[@]}" --host h1:2,h2:2 "$RANKPROG" "ready:$WORK" "waitfile:$NEVER"
wait_ready 4
pids=$(cat "$WORK"/ready.*)
T0=$(now_ms)
kill -KILL "$(rank_pid 3)"
finish_job
expect_rc 137
expect_err "rank 3 (pid $(rank_pid 3)) killed by signal 9 (SIGKILL)"
expect_within 5
expect_gone $pids
# Started by Open MPI's mpirun (PMIx: boot asks a key's last part, the
# rank that put it, so the address parts must name theirs), when there.
OMPI=$(command -v mpirun.openmpi || true)
if [ -n "$OMPI" ] && ldconfig -p 2>/dev/null | grep -q 'libpmix\.so'; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # CI runs as root
    export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SMAP_SRC/tests/pmi/lsan-libpmix.supp"
    SMRUN=$OMPI
    job 0 --host h1:1,h2:2 -n 3 --bind-to none --mca plm_rsh_agent "$SMAP_NETNS_LAUNCHER" \
        --mca oob_tcp_if_include 198.18.0.0/24 "${U[@]}" "$TESTS_BIN/net/net_engine" ucx
    expect_out "net_engine: 3 ranks OK (UCX engine mapped)"
fi
echo "UCX engine across emulated hosts: ok"
