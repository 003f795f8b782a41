#!/bin/bash
# Runs the mainlocals program LOOPS times under smrun -n NP (optionally with
# ASLR off): its placement of main's frame used to fail 1 run in 6.
set -u
np=${NP:-2}; loops=${LOOPS:-20}
prog="$SMAP_TEST_BIN/expose_mainlocals"
pre=()
if [ "${ASLR_OFF:-0}" = 1 ]; then pre=(setarch "$(uname -m)" -R); fi
for i in $(seq "$loops"); do
    if ! "${pre[@]}" "$SMAP_STAGE/bin/smrun" -n "$np" "$prog"; then
        echo "FAIL: run $i of $loops (np $np) failed"
        exit 1
    fi
done
echo "ok: $loops runs of $np ranks"
