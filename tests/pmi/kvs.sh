# The PMI-1 service across 4 ranks: init handshake, maxes, appnum,
# universe size, kvsname, put/get of every rank's key after a barrier,
# missing key (rc=-1), wrong kvsname, PMI_process_mapping, the job's
# name service (publish, lookup, unpublish; twice is an error), a PMI-2 init refused without killing the rank, finalize.
source "$SMAP_SRC/tests/launcher/lib.sh"

cpus=$(nproc)   # the universe: the CPUs smrun may run on, at least the job
run_job -n 4 "$PMI_CLIENT" \
    "send:cmd=init pmi_version=2 pmi_subversion=0" "expect:cmd=response_to_init rc=-1" \
    init \
    send:cmd=get_maxes "expect:cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024" \
    send:cmd=get_appnum "expect:cmd=appnum rc=0 appnum=0" \
    send:cmd=get_universe_size "expect:cmd=universe_size rc=0 size=$(( cpus > 4 ? cpus : 4 ))" \
    exchange barrier exchange \
    "send:cmd=get kvsname=wrong key=k0" "expect:cmd=get_result rc=-1" \
    "send:cmd=put kvsname=wrong key=k0 value=x" "expect:cmd=put_result rc=-1" \
    "send:cmd=lookup_name service=s{rank}" "expect:cmd=lookup_result rc=-1" \
    "send:cmd=publish_name service=s{rank} port=p{rank}" "expect:cmd=publish_result rc=0" \
    "send:cmd=publish_name service=s{rank} port=q" "expect:cmd=publish_result rc=-1" \
    "send:cmd=lookup_name service=s{rank}" "expect:cmd=lookup_result rc=0 port=p{rank}" \
    "send:cmd=unpublish_name service=s{rank}" "expect:cmd=unpublish_result rc=0" \
    "send:cmd=unpublish_name service=s{rank}" "expect:cmd=unpublish_result rc=-1" \
    "send:cmd=lookup_name service=s{rank}" "expect:cmd=lookup_result rc=-1" \
    "send:cmd=put kvsname={kvs} key=eq{rank} value=a=b=c" "expect:cmd=put_result rc=0" \
    "send:cmd=get kvsname={kvs} key=eq{rank}" "expect:cmd=get_result rc=0 value=a=b=c" \
    barrier finalize
expect_rc 0
[ -s "$WORK/err" ] && fail "unexpected stderr"
expect_clean

# The kvsname names this launcher, then a random part: the library names
# its abstract sockets after it, which other local users must not guess.
run_job -n 1 "$PMI_CLIENT" init "print:kvs={kvs}" finalize
expect_rc 0
grep -qE "^kvs=smap-$SMRUN_PID-[0-9a-f]{16}\$" "$WORK/out" || fail "kvsname: $(cat "$WORK/out")"
first=$(sed 's/.*-//' "$WORK/out")
run_job -n 1 "$PMI_CLIENT" init "print:kvs={kvs}" finalize
[ "$(sed 's/.*-//' "$WORK/out")" != "$first" ] || fail "two jobs drew the same random part $first"

# Many ranks (oversubscribed on purpose): the barrier and the N^2 gets.
run_job -n 16 "$PMI_CLIENT" init exchange finalize
expect_rc 0
expect_clean
echo PASS
