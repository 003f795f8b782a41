# -iface IF (hydra): the head listens on IF's address, and the ranks'
# network engines get IF (FI_TCP_IFACE, FI_NET_IFACE, FI_SOCKETS_IFACE,
# UCX_NET_DEVICES) unless the user set one; an unknown interface is a
# clear error before anything starts.
source "$SMAP_SRC/tests/launcher/lib.sh"
unset FI_TCP_IFACE FI_NET_IFACE FI_SOCKETS_IFACE UCX_NET_DEVICES

run_job -iface lo "$RANKPROG" env:FI_TCP_IFACE env:FI_NET_IFACE env:FI_SOCKETS_IFACE env:UCX_NET_DEVICES
expect_rc 0
for v in FI_TCP_IFACE FI_NET_IFACE FI_SOCKETS_IFACE UCX_NET_DEVICES; do expect_out "$v=lo"; done

# The user's own settings win.
FI_TCP_IFACE=mine run_job --iface lo -genv UCX_NET_DEVICES theirs "$RANKPROG" env:FI_TCP_IFACE env:UCX_NET_DEVICES env:FI_SOCKETS_IFACE
expect_rc 0
expect_out "FI_TCP_IFACE=mine"; expect_out "UCX_NET_DEVICES=theirs"; expect_out "FI_SOCKETS_IFACE=lo"

# Across hosts (two agents of this machine, no --head-addr): the head
# listens on lo's address, and the agents' ranks get the variables too.
WORK_HERE="$WORK/here"
printf '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nshift\nexec sh -c "$*"\n' >"$WORK_HERE"
chmod +x "$WORK_HERE"
run_job -v -iface lo --launcher "$WORK_HERE" --host a,b -l "$RANKPROG" env:FI_TCP_IFACE
expect_rc 0
expect_err "head listens on 127.0.0.1 port"
expect_out "[1] FI_TCP_IFACE=lo"

run_job -iface nosuch0 "$RANKPROG" print:started
expect_rc 2
expect_err "-iface nosuch0: no such network interface here (there are: lo"
grep -q started "$WORK/out" && fail "a rank started"
echo PASS
