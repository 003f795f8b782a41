# tools_mpicxx: mpicxx compiles and links a C++17 program that includes mpi.h,
# and smrun -n 2 runs it.
. "$(dirname "$0")/lib.sh"

src=$(dirname "$0")/mpicxx_prog.cpp
for name in mpicxx mpic++; do
    "$BIN/$name" -std=c++17 -Wall -Wextra -Werror "$src" -o "$TMP/prog" ||
        fail "$name could not build a C++17 program that includes mpi.h"
done
[ -x "$BIN/smrun" ] || fail "$BIN/smrun is not built"
out=$(cd "$TMP" && run_job 60 "$BIN/smrun" -n 2 ./prog) || fail "smrun -n 2 ./prog failed: $out"
got=$(printf '%s\n' "$out" | sort)
want=$(printf 'rank 0 sum 45\nrank 1 sum 55')
[ "$got" = "$want" ] || fail "expected '$want', got '$out'"
echo "PASS tools_mpicxx"
