"""dlopen_python: a Python rank (python3 + ctypes, as an interpreter's MPI
binding does) loads libmpi with dlopen under smrun, without GLIBC_TUNABLES,
and its heap is still exposed: smrun preloaded libsmartmap_heap, so the
buffers Python allocates (bytes, arrays: malloc) live in the rank's slot.

Observed, not assumed: each rank protects one page of its buffer; the peer
reads that buffer with smap_get, which succeeds only on the direct path (a
CMA copy honours the owner's protection).  Then a 1 MiB message between two
Python heap buffers must arrive intact.

Usage: smrun -n 2 python3 python_rank.py LIBMPI MPI_H
"""
import ctypes
import os
import re
import sys

PAGE = 4096
N = 1 << 20


def fail(msg):
    print("FAIL (dlopen_python rank %s): %s" % (os.environ.get("PMI_RANK"), msg), file=sys.stderr)
    sys.exit(1)


def handle(header, name):
    m = re.search(r"#define\s+%s\s+\(\(\w+\)(0x[0-9a-fA-F]+)\)" % name, header)
    if not m:
        fail("%s not found in mpi.h" % name)
    return ctypes.c_void_p(int(m.group(1), 16))


def main():
    libpath, mpi_h = sys.argv[1], sys.argv[2]
    if "GLIBC_TUNABLES" in os.environ:
        fail("GLIBC_TUNABLES is set: the test must run without it")
    header = open(mpi_h).read()
    comm_world = handle(header, "MPI_COMM_WORLD")
    mpi_byte = handle(header, "MPI_BYTE")
    try:
        mpi = ctypes.CDLL(libpath, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    except OSError as e:
        fail("cannot load libmpi: %s" % e)
    libc = ctypes.CDLL(None, use_errno=True)
    vp, i = ctypes.c_void_p, ctypes.c_int
    mpi.MPI_Send.argtypes = [vp, i, vp, i, i, vp]
    mpi.MPI_Recv.argtypes = [vp, i, vp, i, i, vp, vp]
    mpi.MPI_Comm_rank.argtypes = [vp, ctypes.POINTER(i)]
    mpi.MPI_Barrier.argtypes = [vp]
    mpi.MPIX_Comm_remote_ptr.argtypes = [vp, i, vp, ctypes.c_ssize_t, ctypes.POINTER(vp)]
    mpi.smap_get.argtypes = [i, vp, vp, ctypes.c_size_t]
    libc.mprotect.argtypes = [vp, ctypes.c_size_t, i]

    if mpi.MPI_Init(None, None) != 0:
        fail("MPI_Init")
    me = i()
    mpi.MPI_Comm_rank(comm_world, ctypes.byref(me))
    me = me.value
    peer = 1 - me

    # A Python heap object (malloc'd: larger than pymalloc's small blocks).
    raw = ctypes.create_string_buffer(4 * PAGE)
    base = (ctypes.addressof(raw) + PAGE - 1) & ~(PAGE - 1)
    ctypes.memmove(base, bytes((me * 31 + k) & 0xFF for k in range(PAGE)), PAGE)
    mine = ctypes.c_uint64(base)
    theirs = ctypes.c_uint64(0)
    if me == 0:
        mpi.MPI_Send(ctypes.byref(mine), 8, mpi_byte, peer, 1, comm_world)
        mpi.MPI_Recv(ctypes.byref(theirs), 8, mpi_byte, peer, 1, comm_world, None)
    else:
        mpi.MPI_Recv(ctypes.byref(theirs), 8, mpi_byte, peer, 1, comm_world, None)
        mpi.MPI_Send(ctypes.byref(mine), 8, mpi_byte, peer, 1, comm_world)
    if libc.mprotect(base + PAGE, PAGE, 0) != 0:
        fail("mprotect: errno %d" % ctypes.get_errno())
    mpi.MPI_Barrier(comm_world)

    view = vp()
    if mpi.MPIX_Comm_remote_ptr(comm_world, peer, theirs.value, PAGE, ctypes.byref(view)) != 0:
        fail("MPIX_Comm_remote_ptr failed")
    if not view.value:
        fail("the peer's Python heap is not directly reachable (libsmartmap_heap not preloaded?)")
    got = ctypes.create_string_buffer(PAGE)
    if mpi.smap_get(peer, got, theirs.value, PAGE) != 0:
        fail("smap_get of the peer's partly protected heap failed: not the direct path")
    if got.raw != bytes((peer * 31 + k) & 0xFF for k in range(PAGE)):
        fail("the peer's heap read directly holds the wrong bytes")
    mpi.MPI_Barrier(comm_world)
    libc.mprotect(base + PAGE, PAGE, 3)

    msg = ctypes.create_string_buffer(N)
    want = bytes((k * 7 + 3) & 0xFF for k in range(256)) * (N // 256)
    if me == 0:
        ctypes.memmove(msg, want, N)
        mpi.MPI_Send(msg, N, mpi_byte, 1, 2, comm_world)
    else:
        mpi.MPI_Recv(msg, N, mpi_byte, 0, 2, comm_world, None)
        if msg.raw != want:
            fail("the 1 MiB message arrived corrupted")
    if mpi.MPI_Finalize() != 0:
        fail("MPI_Finalize")
    print("rank %d: PASS (Python heap direct)" % me)


main()
