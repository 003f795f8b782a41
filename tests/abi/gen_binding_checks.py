#!/usr/bin/env python3
"""abi_gen_binding: the generated thin binding (scripts/gen_binding.py)
derives its checks from the parameters' kinds, and refuses what would make
two definitions or a stub for no function.  Each assertion can fail:

1. stubs written from the JSON carry the kind-derived checks: a group
   handle (MPI_Group_incl: group valid, n >= 0, ranks non-NULL when n > 0,
   newgroup non-NULL), an element count (MPI_Reduce_local: MPI_ERR_COUNT), a
   status (MPI_Get_count: not MPI_STATUS_IGNORE), an inout handle pointer
   (MPI_Info_free: the pointer, then *info), the error communicator checked
   before anything raised on it (MPI_Pack: comm first); the error target
   of windows' and sessions' functions is the window or session (checked
   first; MPI_Win_free's through its pointer), a window's creation raises
   on the communicator;
2. a row naming no MPI 5.0 function is an error;
3. a function both generated and hand-written is an error (two
   definitions would not link, or one would silently win).

Usage: gen_binding_checks.py ROOT (the source tree; nothing is written)."""
import os
import re
import shutil
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(root, "scripts"))
import gen_binding  # noqa: E402
import gen_mpi  # noqa: E402

failures = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failures.append(what)


def stub(text, name):
    m = re.search(r"^[^\n]* P%s\(.*?\n\}\n" % re.escape(name), text, re.S | re.M)
    return m.group(0) if m else ""


abi, apis = gen_mpi.load_standard(os.path.join(root, "std"))
functions, _ = gen_mpi.split_procedures(apis)
out = gen_binding.generate(functions, gen_mpi.wrap_comment, "note")
group = out["src/binding/gen/group.c"]
s = stub(group, "MPI_Group_incl")
check('SMAP_CHECK_GROUP(F, MPI_COMM_NULL, group, "group", group_o);' in s,
      "MPI_Group_incl checks its group handle")
check('SMAP_CHECK_NNI(F, MPI_COMM_NULL, n, "n");' in s, "MPI_Group_incl checks n >= 0")
check('SMAP_CHECK_ARRAY(F, MPI_COMM_NULL, ranks, n, "ranks", "n");' in s,
      "MPI_Group_incl checks ranks against n")
check('SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, newgroup, "newgroup");' in s,
      "MPI_Group_incl checks its output pointer")
check(s.index("SMAP_CHECK_RUNNING") < s.index("SMAP_CHECK_GROUP") < s.index("smap_group_incl("),
      "MPI_Group_incl: running, then checks, then one call below")
s = stub(out["src/binding/gen/op.c"], "MPI_Reduce_local")
check('SMAP_CHECK_COUNT(F, MPI_COMM_NULL, count, "count");' in s,
      "MPI_Reduce_local checks its element count")
s = stub(out["src/binding/gen/status.c"], "MPI_Get_count")
check('SMAP_CHECK_STATUS_ARG(F, MPI_COMM_NULL, status, "status");' in s,
      "MPI_Get_count refuses MPI_STATUS_IGNORE")
s = stub(out["src/binding/gen/info.c"], "MPI_Info_free")
check(0 <= s.find('SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, info, "info");') <
      s.find('SMAP_CHECK_INFO(F, MPI_COMM_NULL, *info, "*info", info_o);'),
      "MPI_Info_free checks the pointer, then the handle it points to")
s = stub(out["src/binding/gen/pack.c"], "MPI_Pack")
check(0 <= s.find("SMAP_CHECK_COMM_OBJ(F, comm, comm") < s.find("SMAP_CHECK_COUNT"),
      "MPI_Pack checks its communicator before raising anything on it")
s = stub(out["src/binding/gen/win_sync.c"], "MPI_Win_test")
check(0 <= s.find('SMAP_CHECK_WIN_OBJ(F, win, win, "win", win_o);') <
      s.find('SMAP_CHECK_NONNULL(F, win, flag, "flag");') <
      s.find("SMAP_RAISE_RC(F, win, smap_win_test("),
      "MPI_Win_test: the window is the error target, checked first")
s = stub(out["src/binding/gen/win.c"], "MPI_Win_free")
check(0 <= s.find('SMAP_CHECK_NONNULL(F, MPI_COMM_NULL, win, "win");') <
      s.find("MPI_Win win_t = *win;") < s.find('SMAP_CHECK_WIN_OBJ(F, win_t, *win') <
      s.find("SMAP_RAISE_RC(F, win_t, "),
      "MPI_Win_free: the pointer, then the window it points to, errors raised on it")
s = stub(out["src/binding/gen/win.c"], "MPI_Win_create")
check(0 <= s.find("SMAP_CHECK_COMM_OBJ(F, comm, comm") < s.find("SMAP_RAISE_RC(F, comm, "),
      "MPI_Win_create: no window yet, errors on the communicator")
s = stub(out["src/binding/gen/session.c"], "MPI_Session_get_info")
check(0 <= s.find('SMAP_CHECK_SESSION_OBJ(F, session, session, "session", session_o);') <
      s.find('SMAP_CHECK_NONNULL(F, session, info_used, "info_used");') and
      "SMAP_CHECK_RUNNING" not in s,
      "MPI_Session_get_info: the session is the target, no MPI_Init needed")
for name in ("MPI_Bcast", "MPI_Allreduce"):
    s = stub(out["src/binding/gen/coll.c"], name)
    check(s and "SMAP_CHECK" not in s,
          "%s checks nothing itself: coll/entry checks once, on the hot path" % name)
by_name = {f.name: f for f in functions}
fam = [f for f in gen_binding.families(functions) if f.name == "coll"][0]
s = "\n".join(gen_binding.gen_stub(by_name["MPI_Allgatherv"], fam, gen_binding.Row("x()")))
check('SMAP_CHECK_COUNT(F, comm, recvcounts' not in s and
      'SMAP_CHECK_COUNT(F, comm, sendcount, "sendcount");' in s,
      "an array of counts gets no scalar count check (a scalar count does)")

# 2. a row for no function
bogus = gen_binding.Family("bogus", "doc", [], {"MPI_No_such_function": gen_binding.Row("x()")})
try:
    gen_binding.gen_family(bogus, functions, gen_mpi.wrap_comment, "note")
    check(False, "a row naming no MPI function is refused")
except ValueError as e:
    check("MPI_No_such_function" in str(e), "a row naming no MPI function is refused")

# 3. generated and hand-written at once
tmp = tempfile.mkdtemp()
try:
    os.makedirs(os.path.join(tmp, "src", "binding"))
    with open(os.path.join(tmp, "src", "binding", "dup.c"), "w") as f:
        f.write("int PMPI_Group_size(MPI_Group group, int *size)\n{\n    return 0;\n}\n")
    try:
        gen_mpi.generate(tmp, os.path.join(root, "std"))
        check(False, "a generated function defined by hand too is refused")
    except gen_mpi.GenError as e:
        check("MPI_Group_size" in str(e) and "dup.c" in str(e),
              "a generated function defined by hand too is refused")
finally:
    shutil.rmtree(tmp)

print("FAIL: %d check(s)" % len(failures) if failures else "PASS")
sys.exit(1 if failures else 0)
