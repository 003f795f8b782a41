#!/usr/bin/env python3
"""A minimal PMI-2 server that frames its answers as Slurm's does: the 6-byte
length field padded with spaces ("114   ").  Starts N ranks of a program on
socketpairs (PMI_FD, PMI_RANK, PMI_SIZE, PMI_JOBID as srun --mpi=pmi2 sets
them), serves init, fullinit, job-getid, kvs-put/get/fence, info-getjobattr,
finalize and abort, and exits with the first non-zero rank status.
Usage: pmi2_server.py N program [args...]"""
import os, socket, subprocess, sys

nranks = int(sys.argv[1])
prog = sys.argv[2:]
kvs = {}
pending = {}  # fence waiters


def frame(body):
    b = body.encode()
    return ("%-6d" % len(b)).encode() + b


def parse(text):
    out = {}
    for pair in text.split(";"):
        if "=" in pair:
            k, v = pair.split("=", 1)
            out[k] = v
    return out


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


socks, procs = [], []
for r in range(nranks):
    mine, theirs = socket.socketpair()
    env = dict(os.environ, PMI_FD=str(theirs.fileno()), PMI_RANK=str(r),
               PMI_SIZE=str(nranks), PMI_JOBID="padded.0", SMAP_LOCAL_RANK=str(r))
    for k in ("PMI_PORT", "PMI_ID", "SMAP_SESSION_DIR"):
        env.pop(k, None)
    procs.append(subprocess.Popen(prog, env=env, pass_fds=(theirs.fileno(),)))
    theirs.close()
    socks.append(mine)

import selectors
sel = selectors.DefaultSelector()
state = {}
for r, s in enumerate(socks):
    sel.register(s, selectors.EVENT_READ, r)
    state[r] = "init"
live = set(range(nranks))
fenced = []
while live:
    for key, _ in sel.select():
        r, s = key.data, key.fileobj
        if state[r] == "init":  # one PMI-1 line, byte by byte
            line = b""
            while not line.endswith(b"\n"):
                c = s.recv(1)
                if not c:
                    break
                line += c
            if not line:
                sel.unregister(s); live.discard(r); continue
            s.sendall(b"cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n")
            state[r] = "pmi2"
            continue
        head = recv_exact(s, 6)
        if head is None:
            sel.unregister(s); live.discard(r); continue
        body = recv_exact(s, int(head.decode().strip()))
        m = parse(body.decode())
        cmd = m.get("cmd")
        if cmd == "fullinit":
            s.sendall(frame("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;"
                            "rank=%d;size=%d;appnum=0;debugged=FALSE;pmiverbose=FALSE;"
                            % (r, nranks)))
        elif cmd == "job-getid":
            s.sendall(frame("cmd=job-getid-response;rc=0;jobid=padded.0;"))
        elif cmd == "kvs-put":
            kvs[m["key"]] = m["value"]
            s.sendall(frame("cmd=kvs-put-response;rc=0;"))
        elif cmd == "kvs-get":
            if m["key"] in kvs:
                s.sendall(frame("cmd=kvs-get-response;rc=0;found=TRUE;value=%s;" % kvs[m["key"]]))
            else:
                s.sendall(frame("cmd=kvs-get-response;rc=0;found=FALSE;"))
        elif cmd == "info-getjobattr":
            if m["key"] == "PMI_process_mapping":
                s.sendall(frame("cmd=info-getjobattr-response;rc=0;found=TRUE;"
                                "value=(vector,(0,1,%d));" % nranks))
            else:
                s.sendall(frame("cmd=info-getjobattr-response;rc=0;found=FALSE;"))
        elif cmd == "kvs-fence":
            fenced.append(s)
            if len(fenced) == len(live):
                for f in fenced:
                    f.sendall(frame("cmd=kvs-fence-response;rc=0;"))
                fenced = []
        elif cmd == "finalize":
            s.sendall(frame("cmd=finalize-response;rc=0;"))
        elif cmd == "abort":
            sys.stderr.write("pmi2_server: rank %d aborted: %s\n" % (r, m.get("msg")))
            for p in procs:
                p.kill()
            sys.exit(1)
        else:
            sys.stderr.write("pmi2_server: unexpected %r from rank %d\n" % (body, r))
            for p in procs:
                p.kill()
            sys.exit(1)

status = 0
for p in procs:
    rc = p.wait(timeout=60)
    if rc and not status:
        status = rc if rc > 0 else 128 - rc
sys.exit(status)
