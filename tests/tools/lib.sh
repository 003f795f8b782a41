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
