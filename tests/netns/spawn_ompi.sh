# MPI_Comm_spawn under Open MPI's mpirun across 2 emulated hosts (PMIx_Spawn,
# src/boot/pmix_client.c): the children go where mpirun maps them (the
# parents fill h1's slots, so h2), or to an info host; they reach their
# parents through src/net; names through mpirun's data server across the
# hosts.  Skipped where Open MPI's mpirun, libpmix or namespaces are
# missing.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
source "$SMAP_SRC/tests/pmi/ompi_mpirun.sh"
# the daemons' out-of-band channel stays on the emulated network
O=(--bind-to none --mca plm_rsh_agent "$SMAP_NETNS_LAUNCHER" --mca oob_tcp_if_include 198.18.0.0/24)

run_job "${O[@]}" --host h1:2,h2:2 -n 2 "$SPAWN_HOSTS" 2
expect_rc 0
expect_out "child 0 host h2"
expect_out "child 1 host h2"
expect_out "lookup ok"

run_job "${O[@]}" --oversubscribe --host h1:2,h2:2 -n 2 "$SPAWN_HOSTS" 2 host=h1
expect_rc 0
expect_out "child 0 host h1"
expect_out "child 1 host h1"

# 1 parent on h1, 3 children on h2: p2p, collectives, merge, disconnect
run_job "${O[@]}" --host h1:1,h2:3 -n 1 "$SPAWN_BASIC" 3
expect_rc 0
echo PASS
