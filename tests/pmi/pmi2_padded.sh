#!/usr/bin/env bash
# srun --mpi=pmi2 pads PMI-2's 6-byte length field with spaces ("114   ");
# every rank used to stop in MPI_Init with "PMI-2: malformed length".  Here
# pmi2_server.py frames its answers the same way and starts 2 ranks of
# init_basic (MPI_Init, collectives over WORLD, Finalize).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
SMAP_VERBOSE=2 timeout 60 python3 "$here/pmi2_server.py" 2 "${INIT_BASIC:?}" 2 >"$out" 2>&1
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: job under the padded PMI-2 server exited $rc"; cat "$out"; exit 1; fi
n=$(grep -c "boot: PMI-2 wire protocol" "$out")
[ "$n" = 2 ] || { echo "FAIL: $n of 2 ranks report PMI-2"; cat "$out"; exit 1; }
if grep -q "malformed" "$out"; then echo "FAIL: malformed"; cat "$out"; exit 1; fi
echo "pmi2_padded: ok"
