#!/usr/bin/env python3
"""abi_constants: every C constant of the MPI 5.0 ABI has its standard value
and type in include/mpi.h.

Written independently of scripts/gen_mpi.py (it shares no code with it):
reads mpi-standard-5.0-abi.json, writes a C11 program with one check per
constant, compiles it against the header and runs it.

  - integer constants: value, and type int (via _Generic);
  - C_PREPROCESSOR_CONSTANTS (MPI_VERSION...): usable in #if as well;
  - handles, addresses, function pointers: the exact C type (via _Generic)
    and the value of the pointer converted to intptr_t;
  - Fortran-only names that must NOT be C macros (MPI_SOURCE, MPI_TAG,
    MPI_ERROR, MPI_STATUS_SIZE would break status.MPI_SOURCE & co.).

Usage: check_constants.py --std DIR --include DIR [--cc CC] [--workdir DIR]
Exit 0 when every check passes, 1 otherwise (each failure is printed).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def c_ident_ok(name):
    return name.replace("_", "").isalnum()


def normalise_type(t):
    # "MPI_Status*" -> "MPI_Status *", "char***" -> "char ***"
    t = t.strip()
    base = t.rstrip("* ").strip()
    stars = t.count("*")
    return base + (" " + "*" * stars if stars else "")


def build_program(constants):
    lines = [
        "#include <mpi.h>",
        "#include <stdint.h>",
        "#include <stdio.h>",
        "",
        "static int failures;",
        "static int checks;",
        "",
        "static void fail(const char *name, const char *what)",
        "{",
        '    printf("FAIL %s: %s\\n", name, what);',
        "    failures++;",
        "}",
        "",
        "int main(void)",
        "{",
    ]
    add = lines.append
    n_c = 0
    for key in sorted(constants):
        k = constants[key]
        name = k["name"]
        value = k.get("abi_value")
        ctype = ((k.get("handle_types") or {}).get("c") or {}).get("type")
        if not c_ident_ok(name):
            continue
        if ctype is None:
            # Fortran-only: must not hijack a C identifier
            add("#ifdef %s" % name)
            add('    fail("%s", "Fortran-only constant defined as a C macro");' % name)
            add("#endif")
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            add('    fail("%s", "JSON value is not an integer: %s");' % (name, value))
            continue
        n_c += 1
        ctype = normalise_type(ctype)
        add("#ifndef %s" % name)
        add('    fail("%s", "missing");' % name)
        add("#else")
        add("    checks++;")
        if ctype == "int":
            add("    if (!_Generic((%s), int: 1, default: 0))" % name)
            add('        fail("%s", "type is not int");' % name)
            add("    if ((%s) != %d)" % (name, value))
            add('        fail("%s", "value differs from %d");' % (name, value))
            if k.get("category") == "C_PREPROCESSOR_CONSTANTS_FORTRAN_PARAMETERS":
                add("#if (%s) != %d" % (name, value))
                add('    fail("%s", "preprocessor value differs");' % name)
                add("#endif")
        else:
            add("    if (!_Generic((%s), %s: 1, default: 0))" % (name, ctype))
            add('        fail("%s", "type is not %s");' % (name, ctype))
            if "*" in ctype or ctype.startswith("MPI_"):
                expr = "(intptr_t)(%s)" % name
            else:
                expr = "(%s)" % name
            add("    if (%s != (intptr_t)%d)" % (expr, value))
            add('        fail("%s", "value differs from %d");' % (name, value))
        add("#endif")
    add('    printf("%d of %d C constants checked, %d failure(s)\\n", checks, '
        + str(n_c) + ", failures);")
    add("    return failures != 0 || checks != %d;" % n_c)
    add("}")
    return "\n".join(lines) + "\n", n_c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--std", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()

    with open(os.path.join(args.std, "mpi-standard-5.0-abi.json")) as f:
        abi = json.load(f)
    src, n = build_program(abi["constants"])
    if n < 300:
        print("FAIL: only %d C constants found in the JSON" % n)
        return 1
    work = args.workdir or tempfile.mkdtemp(prefix="abi_constants.")
    os.makedirs(work, exist_ok=True)
    csrc = os.path.join(work, "abi_constants.c")
    exe = os.path.join(work, "abi_constants")
    with open(csrc, "w") as f:
        f.write(src)
    cc = [args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror",
          "-I", args.include, csrc, "-o", exe]
    r = subprocess.run(cc, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        print("FAIL: the check program does not compile against %s/mpi.h:" % args.include)
        print(r.stdout[-6000:])
        return 1
    r = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        print("FAIL: %s exited %d" % (exe, r.returncode))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
