# The head's default listen address on a multi-homed head (issue 37): the
# head's first interface (mgmt0, 198.19.0.1) reaches no host, the second
# (br0, 198.18.0.1) reaches them all.  Without --head-addr smrun must listen
# on the address from which the first remote host is routed, not on the
# first interface's: hosts given by address, then by names that only
# /etc/hosts knows (a private mount namespace puts a file there).  The
# agents could not connect back to 198.19.0.1: such a job fails.
NHOSTS=2
export SMAP_NETNS_MULTIHOMED=1
source "$SMAP_SRC/tests/netns/lib.sh"

first=$(ip -4 -o addr show | awk '$2 != "lo" { print $4; exit }')
[ "$first" = 198.19.0.1/24 ] || fail "set-up: the head's first address is '$first', not mgmt0's"
L=(--launcher "$SMAP_NETNS_LAUNCHER")   # and no --head-addr

run_job "${L[@]}" -v --host 198.18.0.11:1,198.18.0.12:1 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 1 0" "1 h2 1 0"
expect_err "head listens on 198.18.0.1 port"
expect_sessions_gone

# Names from /etc/hosts, read by smrun itself (never through the resolver).
printf '127.0.0.1 localhost\n198.18.0.11 h1 # first\n198.18.0.12\th2\n' >"$WORK/etc_hosts"
cat >"$WORK/smrun_etc_hosts" <<SH
#!/bin/sh
exec unshare --mount sh -c 'mount --bind "\$0" /etc/hosts && exec "\$@"' "$WORK/etc_hosts" "$SMRUN" "\$@"
SH
chmod +x "$WORK/smrun_etc_hosts"
SMRUN="$WORK/smrun_etc_hosts" run_job "${L[@]}" -v --host h2:1,h1:1 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h2 1 0" "1 h1 1 0"
expect_err "head listens on 198.18.0.1 port"
expect_sessions_gone
echo PASS
