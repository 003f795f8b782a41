# Start-up grows with the rank count, not its square (issue 37): a rank's
# PMI gets at MPI_Init do not grow with the job.  The node layout is read
# by rank 0 alone and published (src/boot/job.c), the node peers'
# descriptions and verdicts go through a file of the session directory
# (src/smap/peers.c); before, each of n ranks made about 3n gets to
# smrun's single thread (35 per rank at 12 ranks).  smrun -v logs every
# PMI reply it sends.
source "$SMAP_SRC/tests/launcher/lib.sh"

for np in 12 16; do
    run_job -v -n $np "$STARTUP_PMI_PROG"
    expect_rc 0
    for r in 1 $((np - 1)); do
        gets=$(grep -c "rank $r <- cmd=get_result" "$WORK/err")
        [ "$gets" -le 4 ] || fail "rank $r of $np made $gets PMI gets at start-up (at most 4 expected)"
    done
    eval "gets_$np=$gets"
done
[ "$gets_12" = "$gets_16" ] || fail "a rank's PMI gets grew with the job: $gets_12 at 12 ranks, $gets_16 at 16"
expect_clean
