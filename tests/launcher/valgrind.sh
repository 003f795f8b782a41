# `mpiexec -n 2 valgrind --leak-check=full ./a` finishes and checks the
# program (issue 37): under valgrind nothing is exposed by default, malloc
# is glibc's (which valgrind replaces) and the one-sided region is small, so
# memcheck's leak scan no longer reads 64 GiB heap slots and a RAM-sized
# one-sided region per peer.  A clean program exits 0 with no error; a
# program that loses a block is reported (valgrind saw its malloc), and
# --error-exitcode makes the job fail.  Skipped (77) without valgrind.
source "$SMAP_SRC/tests/launcher/lib.sh"
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }

VG=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=3)

run_job -n 2 "${VG[@]}" "$VALGRIND_PROG"
cat "$WORK/err" >&2
expect_rc 0
expect_out "send/recv and allreduce correct on 2 ranks"
expect_no_err "Warning: set address range perms: large range"
expect_clean
echo "clean run: exit 0 in $ELAPSED_MS ms"

run_job -n 2 "${VG[@]}" "$VALGRIND_PROG" leak
expect_rc 3
expect_out "send/recv and allreduce correct on 2 ranks"
expect_err "12,345 bytes in 1 blocks are definitely lost"
expect_err "leak_here"
expect_clean
echo "leaking run: reported, exit 3 in $ELAPSED_MS ms"
echo PASS
