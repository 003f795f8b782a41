# Pitfall §3.7: a rank SIGKILLed while its peers map it.  smrun must name it,
# stop the others (no hang), and nothing may be left behind: the memory
# files are memfds (never in /dev/shm) and every rank process is gone.
source "$SMAP_SRC/tests/launcher/lib.sh"

shm_before=$(ls /dev/shm | grep -c 'memfd\|smartmap-ctl\|smartmap-heap' || true)
start_job -n 4 "$DEAD_PROG" 2 "$WORK"
finish_job
expect_rc 137
for r in 0 1 2 3; do [ -s "$WORK/ready.$r" ] || fail "rank $r did not get through MPI_Init"; done
victim=$(rank_pid 2)
expect_err "rank 2 (pid $victim) killed by signal 9 (SIGKILL)"
expect_within 20
expect_gone $(rank_pid 0) $(rank_pid 1) $(rank_pid 2) $(rank_pid 3)
expect_clean
shm_after=$(ls /dev/shm | grep -c 'memfd\|smartmap-ctl\|smartmap-heap' || true)
[ "$shm_after" -le "$shm_before" ] || fail "memory files appeared in /dev/shm"
echo PASS
