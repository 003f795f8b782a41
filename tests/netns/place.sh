# Placement across 3 emulated hosts: --host lists with and without counts,
# host files in both formats, -ppn, -n, --map-by node; every rank runs on the host it was
# placed on, sees exactly its host's ranks as its node (SMARTMAP between
# them, MPI messages around each node's ring), and leaves no file behind.
NHOSTS=3
source "$SMAP_SRC/tests/netns/lib.sh"

# 2 hosts x 2 ranks.
run_job $MH --host h1:2,h2:2 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 2 0" "1 h1 2 1" "2 h2 2 0" "3 h2 2 1"
expect_ring "0 2" "2 2"
expect_sessions_gone

# 3 hosts with 1, 2 and 3 ranks (uneven), -hosts spelling.
run_job $MH -hosts h1:1,h2:2,h3:3 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 1 0" "1 h2 2 0" "2 h2 2 1" "3 h3 3 0" "4 h3 3 1" "5 h3 3 2"
expect_ring "0 1" "1 2" "3 3"
expect_sessions_gone

# --map-by node: one rank per host in turn (node ranks follow); each
# agent maps and binds over its own host and reports it by name.
run_job $MH --host h1:2,h2:2 --map-by node --report-bindings --bind-to none -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 2 0" "1 h2 2 0" "2 h1 2 1" "3 h2 2 1"
expect_out "[0] rank 0 of 4 host h1 node_size 2 node_rank 0 got 2"
expect_out "[3] rank 3 of 4 host h2 node_size 2 node_rank 1 got 1"
expect_err "rank 1 (pid"
expect_err "on h2: not bound (--bind-to none)"
expect_sessions_gone

# The emulated hosts are one machine (one boot id): by default their ranks
# are bound as the machine's ranks, each host's on CPUs of their own (both
# local ranks 0 pinned to CPU 0 made a ping-pong 100 times slower, issue
# 38); with more ranks than cores none is bound.
SMRUN_BIND_TO= run_job $MH -H h1,h2 --report-bindings -l "$HOSTINFO"
expect_rc 0
c1=$(sed -n 's/.* on h1: bound to CPUs\{0,1\} \([0-9,-]*\) .*/\1/p' "$WORK/err")
c2=$(sed -n 's/.* on h2: bound to CPUs\{0,1\} \([0-9,-]*\) .*/\1/p' "$WORK/err")
if [ -n "$c1" ] || [ -n "$c2" ]; then
    [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ] ||
        fail "hosts of one machine bound to the same CPUs (h1: '$c1', h2: '$c2')"
else
    expect_err "on h1: not bound (2 ranks on this machine's hosts"
fi
SMRUN_BIND_TO= run_job $MH --host h1:3,h2:3 --report-bindings -l "$HOSTINFO"
expect_rc 0
if [ "$(grep -c ': bound to CPU' "$WORK/err")" != 0 ]; then
    [ "$(sort -u <(sed -n 's/.*: bound to CPUs\{0,1\} \([0-9,-]*\) .*/\1/p' "$WORK/err") | wc -l)" = 6 ] ||
        fail "6 ranks of one machine not on 6 distinct CPU sets"
else
    expect_err "on h2: not bound (6 ranks on this machine's hosts"
fi

# Plain names mean one slot each; -n beyond the slots wraps around (hydra).
run_job $MH -H h1,h2 -n 2 -l "$RANKPROG" print:host={rank} env:SMAP_NODE_NAME
expect_rc 0
expect_out "[0] SMAP_NODE_NAME=h1"
expect_out "[1] SMAP_NODE_NAME=h2"

# -genvnone across hosts: neither smrun's nor the agent's environment, but
# -genv and smrun's own variables (the node's name).
DROP_ME=d run_job $MH -H h1,h2 -genvnone -genv G g -l "$RANKPROG" env:DROP_ME env:G env:SMAP_NODE_NAME env:FI_TCP_IFACE
expect_rc 0
expect_out "[1] DROP_ME unset"; expect_out "[1] G=g"; expect_out "[1] SMAP_NODE_NAME=h2"
expect_out "[1] FI_TCP_IFACE unset"

# -iface: the head listens on the bridge's address without --head-addr,
# and the ranks get the interface (over the hosts' own FI_TCP_IFACE).
run_job --launcher "$SMAP_NETNS_LAUNCHER" -iface br0 -H h1,h2 -l "$RANKPROG" env:FI_TCP_IFACE
expect_rc 0
expect_out "[0] FI_TCP_IFACE=br0"; expect_out "[1] FI_TCP_IFACE=br0"

# Host file, "host:N" and "host slots=N" lines, comments, blank lines.
cat >"$WORK/hosts" <<HOSTS
# the first host
h3:2   # two here

h1 slots=1 max_slots=4
HOSTS
run_job $MH --hostfile "$WORK/hosts" -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h3 2 0" "1 h3 2 1" "2 h1 1 0"
expect_sessions_gone
run_job $MH -machinefile "$WORK/hosts" -n 2 -l "$RANKPROG" env:SMAP_NODE_NAME
expect_rc 0
expect_out "[0] SMAP_NODE_NAME=h3"
expect_out "[1] SMAP_NODE_NAME=h3"
grep -q "^\[2\]" "$WORK/out" && fail "-n 2 started a third rank"

# -ppn overrides the slots: 2 per host on 3 hosts is 6 ranks.
run_job $MH -f "$WORK/hosts" -hosts h2 -ppn 2 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h2 2 0" "1 h2 2 1" "2 h3 2 0" "3 h3 2 1" "4 h1 2 0" "5 h1 2 1"

# Two "hosts" on one machine (same host name, same /dev/shm) are two nodes.
run_job --launcher "$HERE_LAUNCHER" --head-addr 127.0.0.1 --host a:2,b:2 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 $(hostname) 2 0" "1 $(hostname) 2 1" "2 $(hostname) 2 0" "3 $(hostname) 2 1"
expect_ring "0 2" "2 2"
expect_sessions_gone

# Bad host lists are usage errors, and nothing starts.
run_job $MH --host h1:0 "$RANKPROG"
expect_rc 2
run_job $MH --host 'h1;rm' "$RANKPROG"
expect_rc 2
run_job $MH --hostfile "$WORK/none" "$RANKPROG"
expect_rc 2

# A missing program on the hosts: 127, like on one node.
run_job $MH --host h1,h2 "$WORK/no-such-program"
expect_rc 127
echo "PASS"
