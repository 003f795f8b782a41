# tools_hydra: a program built with smartmap's mpicc runs under MPICH's Hydra
# launcher (smartmap speaks the PMI-1 wire protocol, DESIGN.md D8).
. "$(dirname "$0")/lib.sh"

hydra=$(command -v mpiexec.hydra) ||
    fail "mpiexec.hydra not found: install MPICH's launcher (Debian package 'mpich'; 'make check' installs it via scripts/install-deps.sh)"

"$BIN/mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello" || fail "mpicc could not build hello.c"
# -launcher fork: start the ranks locally, never through ssh.
out=$(cd "$TMP" && run_job 60 "$hydra" -launcher fork -n 3 ./hello) ||
    fail "mpiexec.hydra -n 3 ./hello failed: $out"
expect_hello_lines "$out" 3
echo "PASS tools_hydra"
