#!/usr/bin/env bash
# smrun's head address in IPv6 (tools/smrun/head.c, agent.c): a job of 2
# hosts (agents started by a local "remote shell" that runs the command
# here; the hosts are 2 nodes by placement) whose agents connect back to
# the head over ::1, given as "::1", "[::1]", "[::1]:PORT" and through
# SMRUN_HEAD_ADDR; a malformed one is refused.  Loopback ::1 only (the
# netns hosts have IPv6 off on purpose).  Skipped (77) without ::1.
set -uo pipefail
bin=${SMAP_TEST_BIN:?}
smrun=${SMAP_STAGE:?}/bin/smrun
ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 ::1/128' ||
    { echo "SKIPPED: no IPv6 loopback address ::1"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ipv6-head.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\n# CMD HOST COMMAND...: runs COMMAND here\nshift\nexec "$@"\n' >"$work/localexec"
chmod +x "$work/localexec"
export FI_PROVIDER=tcp FI_TCP_IFACE=lo SMRUN_BIND_TO=none SMAP_NODE_CPUS=1
fail() { echo "FAIL: $*"; cat "$work/out"; exit 1; }
run() {
    timeout 90 "$smrun" --host h1:1,h2:1 --launcher "$work/localexec" "$@" \
        "$bin/net_cancel" >"$work/out" 2>&1
}

for form in "::1" "[::1]"; do
    run --head-addr "$form" || fail "--head-addr $form: exit $?"
    grep -q "net_cancel: ok" "$work/out" || fail "--head-addr $form: the job did not run"
done

# A given port: the head listens there (its debug line says where).
for try in 1 2 3; do
    port=$((20000 + RANDOM % 20000))
    run -v --head-addr "[::1]:$port" && break
    grep -q "cannot listen" "$work/out" || fail "--head-addr [::1]:$port: exit $?"
done
grep -q "head listens on \[::1\] port $port" "$work/out" ||
    fail "--head-addr [::1]:$port: not listening there"
grep -q "net_cancel: ok" "$work/out" || fail "--head-addr [::1]:$port: the job did not run"

SMRUN_HEAD_ADDR=::1 run || fail "SMRUN_HEAD_ADDR=::1: exit $?"
grep -q "net_cancel: ok" "$work/out" || fail "SMRUN_HEAD_ADDR=::1: the job did not run"

for bad in "[::1" "[::1]x" "[::1]:0" "[]:5"; do
    run --head-addr "$bad" && fail "--head-addr '$bad' was accepted"
    grep -qF "head address '$bad'" "$work/out" || fail "--head-addr '$bad': no clear message"
done
echo "ipv6_head: ok"
