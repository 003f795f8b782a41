# A rank of a one-node MPI job killed by SIGSEGV (issue 37): smrun exits
# 139 and says "killed by signal 11", and where the core pattern writes a
# file into the rank's working directory, a core of a sane size appears.
# It failed while libmpi linked libfabric: libpsm_infinipath's SIGSEGV
# handler printed a backtrace and exited 1, and no core was written.
source "$SMAP_SRC/tests/launcher/lib.sh"

# The sanitizers' own SIGSEGV handler would report and exit 1 as well:
# this test is about the libraries' handlers, so the sanitizer stays out.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}handle_segv=0"

run_job -n 3 "$SEGV_CORE_PROG" 1
expect_rc 139
expect_err "smrun: rank 1 (pid "
expect_err "killed by signal 11 (SIGSEGV)"
expect_within 15
expect_clean

# The core: only where the kernel writes it as a file named by a pattern
# without a directory or a pipe (e.g. "core", "core.%p"), in the rank's
# working directory.  Bounded at 1 GiB so that a regression (a core that
# holds peers' mappings or the whole one-sided region, 24 GB before) costs
# a second, not minutes of disk writes.
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo "|unknown")
prefix=${pattern%%%*}
case $pattern in
*/* | "|"*) echo "core: not checked (core_pattern '$pattern' does not write into the working directory)" ;;
*) if [ -z "$prefix" ]; then
       echo "core: not checked (core_pattern '$pattern' starts with a % specifier)"
   elif ! ulimit -S -c 1048576 2>/dev/null; then
       echo "core: not checked (the hard core size limit is $(ulimit -Hc) blocks)"
   elif "$SMAP_STAGE/bin/smartmap_info" | grep -q "sanitize=ON"; then
       echo "core: not checked (AddressSanitizer turns core dumps off)"
   else
       mkdir "$WORK/cwd"
       run_job -n 2 -wdir "$WORK/cwd" "$SEGV_CORE_PROG" 0
       ulimit -S -c 0
       expect_rc 139
       expect_err "core dumped"
       core=$(find "$WORK/cwd" -maxdepth 1 -name "$prefix*" -type f | head -1)
       [ -n "$core" ] || fail "no core file ($pattern) in the rank's working directory"
       size=$(stat -c %s "$core")
       [ "$size" -lt $((512 << 20)) ] || fail "the core is $size bytes (not the rank's memory alone)"
       echo "core: $(basename "$core"), $size bytes"
   fi ;;
esac
echo PASS
