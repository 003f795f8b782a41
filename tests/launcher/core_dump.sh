# A crashing rank's core file is of a sane size and usable (issue 37): it
# holds the rank's own memory, not its node peers' views (heap slots, the
# one-sided and collective regions) nor the unused part of its own sparse
# regions, which a dump would read, and so allocate: the 64 GiB heap slot,
# the one-sided region as large as the machine's memory (24 GiB here made a
# 24 GB core in 4 minutes).  gdb must then print a backtrace naming main.
# Skipped (77) where the kernel does not write a core into the current
# directory (core_pattern is a pipe or a path), or gdb is missing.
source "$SMAP_SRC/tests/launcher/lib.sh"

pattern=$(cat /proc/sys/kernel/core_pattern)
case "$pattern" in
    '|'* | */*)
        echo "SKIP: core_pattern '$pattern' does not write cores into the working directory"
        exit 77 ;;
esac
command -v gdb >/dev/null || { echo "SKIP: gdb is not installed"; exit 77; }

# The limit bounds the damage when cores are too large: the kernel stops
# writing at RLIMIT_CORE, so such a core is at least the limit and fails.
LIMIT_MB=256 MAX_MB=200
ulimit -S -c $(( LIMIT_MB * 1024 )) 2>/dev/null ||
    { echo "SKIP: cannot raise the core size limit (hard limit $(ulimit -Hc))"; exit 77; }

mkdir "$WORK/cwd"
cd "$WORK/cwd"
run_job -n 2 "$CORE_DUMP_PROG"
[ "$RC" = 134 ] || fail "exit code $RC, expected 134 (SIGABRT)"
expect_err "killed by signal 6"
expect_err "core dumped"
core=$(ls -t "$WORK/cwd" | grep '^core' | head -1)
[ -n "$core" ] || fail "no core file in $WORK/cwd (core_pattern '$pattern')"
bytes=$(stat -c %s "$core")
echo "core: $core, $(( bytes >> 20 )) MiB"
[ "$bytes" -lt $(( MAX_MB << 20 )) ] ||
    fail "the core is $(( bytes >> 20 )) MiB, not below $MAX_MB MiB (peers' views or unused regions dumped)"
bt=$(gdb -nx -batch -ex bt "$CORE_DUMP_PROG" "$core" 2>&1)
echo "$bt" | grep -E '^#[0-9]+ ' | head -12
echo "$bt" | grep -qE '^#[0-9]+ .* in crash_here ' || fail "gdb's backtrace lacks crash_here: $bt"
echo "$bt" | grep -qE '^#[0-9]+ .* in main ' || fail "gdb's backtrace lacks main: $bt"
rm -f "$core"
expect_clean
echo PASS
