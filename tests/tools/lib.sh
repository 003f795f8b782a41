# Shared by the tests/tools scripts: strict mode, the staged tree's locations,
# a scratch directory removed on exit, and small assertions.
# The test runner (smap_add_script_test) sets SMAP_STAGE and SMAP_SRC.
set -euo pipefail
# With pipefail, never end a pipeline's reader early (head, grep -q, awk
# exit): the writer then dies of SIGPIPE at random and fails the pipeline,
# and set -e ends the test without a word.

: "${SMAP_STAGE:?SMAP_STAGE (the build tree) must be set; run through ctest}"
: "${SMAP_SRC:?SMAP_SRC (the repository) must be set; run through ctest}"
STAGE=$(cd -P -- "$SMAP_STAGE" && pwd -P)
BIN=$STAGE/bin
TEST_NAME=${0##*/}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/smap-${TEST_NAME%.sh}.XXXXXX")
cleanup() { rm -rf -- "$TMP"; }
trap cleanup EXIT

fail() {
    echo "FAIL ($TEST_NAME): $*" >&2
    exit 1
}

# expect_contains TEXT NEEDLE WHAT
expect_contains() {
    case $1 in
    *"$2"*) ;;
    *) fail "$3: expected '$2' in: $1" ;;
    esac
}

# expect_lacks TEXT NEEDLE WHAT
expect_lacks() {
    case $1 in
    *"$2"*) fail "$3: did not expect '$2' in: $1" ;;
    *) ;;
    esac
}

# run_job SECONDS CMD... — runs an MPI job with a hard time limit.
run_job() {
    local secs=$1
    shift
    timeout -k 5 "$secs" "$@"
}

# expect_hello_lines OUTPUT N — OUTPUT holds exactly one line
# "Hello from rank R of N on HOST" for each R in 0..N-1, in any order.
expect_hello_lines() {
    local out=$1 n=$2 want got r
    want=$(for ((r = 0; r < n; r++)); do echo "Hello from rank $r of $n"; done | sort)
    got=$(printf '%s\n' "$out" | sed '/^$/d; s/ on [^ ][^ ]*$//' | sort)
    if [ "$got" != "$want" ]; then
        printf 'expected (hosts stripped):\n%s\ngot:\n%s\n' "$want" "$out" >&2
        fail "hello output of $n ranks is wrong"
    fi
    if printf '%s\n' "$out" | sed '/^$/d' | grep -qv ' on [^ ][^ ]*$'; then
        fail "a hello line lacks ' on HOST': $out"
    fi
    return 0
}

# install_into PREFIX — `cmake --install` of the staged build into PREFIX.
install_into() {
    cmake --install "$STAGE" --prefix "$1" >"$TMP/install.log" 2>&1 ||
        { cat "$TMP/install.log" >&2; fail "cmake --install failed"; }
}

# expect_smartmap_program PROG PREFIX — PROG needs smartmap's libraries from
# PREFIX and no other MPI library.
expect_smartmap_program() {
    local prog=$1 libdir needed
    libdir=$(cd -P "$2/lib" && pwd -P)
    needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
    case $needed in *libmpi_abi.so.1*) ;; *) fail "$prog does not need libmpi_abi.so.1: $needed" ;; esac
    case $needed in *libsmartmap_heap.so.1*) ;; *) fail "$prog does not need libsmartmap_heap.so.1: $needed" ;; esac
    case $needed in *libmpi.so*) fail "$prog needs another MPI's libmpi.so: $needed" ;; esac
    local lib
    lib=$(ldd "$prog" | awk '$1 ~ /^libmpi_abi\.so/ { print $3 }')
    [ "$(readlink -f "$lib")" = "$(readlink -f "$libdir/libmpi_abi.so.1")" ] ||
        fail "$prog loads libmpi_abi from '$lib', not from $libdir"
    ! ldd "$prog" | grep -q openmpi || fail "$prog loads Open MPI: $(ldd "$prog")"
}
