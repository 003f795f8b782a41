# tools_bare_clone: the repository needs nothing outside itself (DESIGN.md D1).
# A copy of the checkout's tracked files, in a directory with nothing beside
# it (no ../shared), regenerates its bindings from its own std/ (the
# generator's default, --check: the committed outputs are current) and
# configures with CMake.  No build: the main build already compiles the same
# sources; this only proves that no build or test input lies outside the tree.
. "$(dirname "$0")/lib.sh"

copy=$TMP/alone/smartmap
mkdir -p "$copy"
if git -C "$SMAP_SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked and not-ignored files of the working tree: what a clone of the
    # next commit holds (CI runs on a clean checkout, where the two agree).
    (cd "$SMAP_SRC" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 cp --parents -t "$copy" 2>"$TMP/cp.log") || true
    # Files deleted in the working tree but still in the index are not copied.
else
    (cd "$SMAP_SRC" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$copy"
fi
[ -f "$copy/scripts/gen_mpi.py" ] || fail "the copy lacks scripts/gen_mpi.py"
[ ! -e "$TMP/alone/shared" ] || fail "test set-up: $TMP/alone/shared exists"
[ -f "$copy/std/mpi-standard-5.0-abi.json" ] && [ -f "$copy/std/mpi-standard-5.0-apis.json" ] ||
    fail "the repository does not carry std/mpi-standard-5.0-{abi,apis}.json"

# Nothing in the build or the tests may name ../shared.
refs=$(cd "$copy" && grep -rIl -e '\.\./shared' -- CMakeLists.txt Makefile src tools tests scripts include std 2>/dev/null |
       grep -v '^tests/tools/bare_clone\.sh$' || true)
[ -z "$refs" ] || fail "build or test files refer to ../shared: $refs"

python3 "$copy/scripts/gen_mpi.py" --check >"$TMP/gen.log" 2>&1 ||
    { cat "$TMP/gen.log" >&2; fail "gen_mpi.py --check (default std/) fails in a bare copy"; }
echo "ok   generator reads std/ and the committed outputs are current"

cmake -S "$copy" -B "$copy/build" -DCMAKE_BUILD_TYPE=Release >"$TMP/cmake.log" 2>&1 ||
    { tail -30 "$TMP/cmake.log" >&2; fail "cmake cannot configure a bare copy"; }
n=$(cd "$copy/build" && ctest -N | sed -n 's/^Total Tests: //p')
[ "${n:-0}" -gt 100 ] || fail "a bare copy registers only '${n:-0}' tests"
echo "ok   a bare copy configures ($n tests registered)"

# The ABI tests that read the standard's JSON run there too (they need no
# build): the three that failed in a bare clone before std/ existed read
# the same files; abi_symbols needs the library, built by the main build.
(cd "$copy/build" && ctest -R '^(abi_constants|abi_generated_current)$' --output-on-failure \
    >"$TMP/ctest.log" 2>&1) || { tail -30 "$TMP/ctest.log" >&2; fail "ABI tests fail in a bare copy"; }
grep -q "100% tests passed, 0 tests failed out of 2" "$TMP/ctest.log" ||
    { cat "$TMP/ctest.log" >&2; fail "the bare copy did not run both ABI tests"; }
echo "ok   abi_constants and abi_generated_current pass in a bare copy"
echo "PASS tools_bare_clone"
