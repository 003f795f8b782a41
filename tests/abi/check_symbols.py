#!/usr/bin/env python3
"""abi_symbols: libmpi.so exports every C function of MPI 5.0 twice, as
MPI_<name> and PMPI_<name>.

The list comes straight from mpi-standard-5.0-apis.json (independently of
scripts/gen_mpi.py): every procedure that is C-expressible, not a callback
type and not a predefined callback (MPI_COMM_DUP_FN & co. are constants in
the ABI), plus its large-count twin <name>_c when any parameter has a
POLY* kind (the MPI-4 "embiggened" binding).

Usage: check_symbols.py --std DIR --lib PATH/libmpi.so
"""

import argparse
import json
import os
import subprocess
import sys


def standard_functions(apis):
    names = set()
    for proc in apis.values():
        a = proc["attributes"]
        if not a["c_expressible"] or a["callback"] or a["predefined_function"]:
            continue
        names.add(proc["name"])
        kinds = [p["kind"] for p in proc["parameters"]] + [proc["return_kind"]]
        if any(k.startswith("POLY") for k in kinds):
            names.add(proc["name"] + "_c")
    return names


def exported(lib):
    r = subprocess.run(["nm", "-D", "--defined-only", lib], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode != 0:
        raise RuntimeError("nm failed on %s: %s" % (lib, r.stdout))
    syms = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3:
            syms[parts[2].split("@")[0]] = parts[1]
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--std", required=True)
    ap.add_argument("--lib", required=True)
    args = ap.parse_args()
    with open(os.path.join(args.std, "mpi-standard-5.0-apis.json")) as f:
        names = standard_functions(json.load(f))
    if len(names) < 600:
        print("FAIL: only %d functions in the JSON" % len(names))
        return 1
    if not os.path.exists(args.lib):
        print("FAIL: %s does not exist (build the library first)" % args.lib)
        return 1
    syms = exported(args.lib)
    missing, wrong = [], []
    for name in sorted(names):
        for sym in (name, "P" + name):
            kind = syms.get(sym)
            if kind is None:
                missing.append(sym)
            elif kind not in ("T", "W", "i"):
                wrong.append("%s (%s)" % (sym, kind))
    for sym in missing[:50]:
        print("FAIL missing: %s" % sym)
    if len(missing) > 50:
        print("FAIL ... and %d more missing" % (len(missing) - 50))
    for sym in wrong:
        print("FAIL not a function: %s" % sym)
    print("%d functions, %d symbols expected, %d missing, %d not functions"
          % (len(names), 2 * len(names), len(missing), len(wrong)))
    if missing or wrong:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
