# A program linked with another MPI (Debian Open MPI's libmpi.so.40) runs
# under smrun as N unconnected singletons that all "succeed"; smrun must
# say so on stderr, once, with the exit code unchanged.  Programs that use
# no MPI (hostname) and smartmap's own programs get no warning.
source "$SMAP_SRC/tests/launcher/lib.sh"

triplet=$(cc -print-multiarch 2>/dev/null || true)
sysdir=/usr/lib/${triplet:-x86_64-linux-gnu}
[ -e "$sysdir/libmpi.so" ] ||
    fail "$sysdir/libmpi.so (Open MPI's, package libopenmpi-dev) is missing: run scripts/install-deps.sh build"
# The program never calls MPI: only its dependency matters, so the test does
# not depend on Open MPI's singleton start.
printf 'int main(void) { return 0; }\n' >"$WORK/noop.c"
cc "$WORK/noop.c" -o "$WORK/other_mpi" -Wl,--no-as-needed -L"$sysdir" -lmpi ||
    fail "cannot link a program with $sysdir/libmpi.so"

run_job -n 2 "$WORK/other_mpi"
expect_rc 0
expect_err "never initialized through smartmap"
expect_err "is linked with libmpi.so.40"
[ "$(grep -c 'never initialized' "$WORK/err")" = 1 ] || fail "warned more than once: $(cat "$WORK/err")"

run_job -n 2 hostname
expect_rc 0
expect_no_err "never initialized"
run_job -n 2 "${INIT_BASIC:?}" 2
expect_rc 0
expect_no_err "never initialized"
echo PASS
