# MPI_UNIVERSE_SIZE as smrun's PMI get_universe_size answers it: the slots
# smrun was given (-usize; the hosts' slots, here localhost's through an
# agent; on one node without hosts the CPUs smrun may run on), never less
# than the job's size.
source "$SMAP_SRC/tests/launcher/lib.sh"

universe() {   # universe WANT SMRUN-OPTIONS...: every rank is told WANT
    local want=$1
    shift
    run_job "$@" "$PMI_CLIENT" init send:cmd=get_universe_size \
        "expect:cmd=universe_size rc=0 size=$want" finalize
    expect_rc 0
    [ -s "$WORK/err" ] && fail "universe $want ($*): $(cat "$WORK/err")"
    expect_clean
}

cpus=$(nproc)
universe $(( cpus > 2 ? cpus : 2 )) -n 2
universe $(( cpus > 5 ? cpus : 5 )) -n 5          # oversubscribed: the job's size at least
universe 7 -usize 7 -n 2
universe 3 --universe-size 1 -n 3                 # never below the job
universe 5 --host localhost:5 -n 2 -launcher fork # the hosts' slots (through an agent)
universe 6 --host localhost:2,127.0.0.1:4 -n 1 -launcher fork
echo "universe size: ok"
