#!/bin/bash
# Emulated hosts for tests of jobs across hosts: network namespaces on one
# machine, each with its own host name (a UTS namespace per command), a veth
# pair to a bridge, and addresses in 198.18.0.0/15 only (the benchmarking
# range, RFC 2544) -- no route leads anywhere else.
#
#   hosts.sh run N CMD [ARGS...]
#       Brings up N hosts, runs CMD in the "head" namespace (the bridge's,
#       198.18.0.1, where mpiexec runs; HOSTS_BRIDGE=root: the root
#       namespace, below), tears everything down however CMD ends (trap),
#       and exits with CMD's status.  CMD's environment:
#         SMAP_NETNS_ID        the set's name (unique per run)
#         SMAP_NETNS_HOSTS     "h1 h2 ... hN"
#         SMAP_NETNS_HEAD      198.18.0.1
#         SMAP_NETNS_LAUNCHER  the launcher: "<dir>/hostexec" (one word, for
#                              smrun --launcher, hydra -launcher-exec and
#                              Open MPI --mca plm_rsh_agent)
#         SMAP_NETNS_BRIDGE    "root" in the root layout, else empty
#   hosts.sh exec HOST CMD [ARGS...]
#       Runs CMD on emulated host HOST (h1..hN, or its address) of set
#       $SMAP_NETNS_ID, with
#       host name HOST, FI_PROVIDER=tcp (or $SMAP_NETNS_PROVIDER; "default":
#       unset) and FI_TCP_IFACE=FI_NET_IFACE=eth0 (its veth).
#       Like ssh, the words of CMD are joined by spaces into one shell
#       command line.
#       This is what the launcher calls: LAUNCHER HOST COMMAND...
#   hosts.sh up N / hosts.sh down
#       The two halves of run, for interactive use:
#       eval "$(hosts.sh up 2)"; ...; hosts.sh down
#
# Host hI has address 198.18.0.(10+I) on eth0.  With HOSTS_BRIDGE=root in
# up's (or run's) environment the bridge and the head are the root network
# namespace instead of a namespace of their own (the layout issue 38 also
# measured): a bridge smb<N> with 198.18.0.1/24 in the root namespace, the
# hosts' veths attached to it, CMD run there (no IPv6 on the bridge and the
# veths' root ends); one such set at a time on the machine (another live
# one: exit 2), removed with the set.  With SMAP_NETNS_MULTIHOMED=1
# in up's environment the head has a first interface that reaches no host:
# mgmt0, 198.19.0.1/24 (one end of a veth pair whose other end, mgmt1, is
# in the head too), listed before br0.  Exit status 77 (CTest's
# SKIP_RETURN_CODE) when namespaces cannot be made here (not root, no ip,
# no unshare, a container that forbids them): such tests are skipped, never
# passed.  Sets of runs whose owner process is gone are removed by the next
# "up", so a killed test leaves nothing for long.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HEAD_ADDR=198.18.0.1
SKIP=77

skip() { echo "SKIPPED: emulated hosts unavailable: $*" >&2; exit $SKIP; }

ns_of() { echo "$1-$2"; }      # set, host -> namespace name

sweep_stale() {
    local f id owner
    for f in /run/netns/smapnet-*; do
        [ -e "$f" ] || continue
        id=${f#/run/netns/}; id=${id%-*}        # smapnet-<pid>-<rand>
        owner=${id#smapnet-}; owner=${owner%%-*}
        kill -0 "$owner" 2>/dev/null && continue
        down_set "$id"
    done
}

# The root layout's bridge of set $1 (HOSTS_BRIDGE=root): smb and the last
# 6 digits of the set's random part (its veths, <bridge>v<i>, stay within
# the 15 characters of an interface name up to 200 hosts).
root_bridge() { local r=000000${1##*-}; echo "smb${r: -6}"; }

down_set() {
    local id=$1 f ns p br
    br=$(root_bridge "$id")
    # The set's root bridge, if any (its veths go with the namespaces).
    ip link show "$br" >/dev/null 2>&1 && ip link del "$br" 2>/dev/null
    for f in /run/netns/"$id"-*; do
        [ -e "$f" ] || continue
        ns=${f#/run/netns/}
        # Whatever still runs in our namespaces is ours.
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
}

# Not even IPv6 link-local chatter: 198.18.0.0/15 and loopback only.
no_ipv6() {
    ip netns exec "$1" sh -c 'for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 \
        /proc/sys/net/ipv6/conf/default/disable_ipv6; do [ -e "$f" ] && echo 1 >"$f"; done; true'
}

# up N OWNER_PID: prints the assignments for eval.
up() {
    local n=$1 owner=$2
    [ "$n" -ge 1 ] && [ "$n" -le 200 ] 2>/dev/null || { echo "hosts.sh: 1..200 hosts" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || skip "not root"
    command -v ip >/dev/null || skip "no ip command"
    command -v unshare >/dev/null || skip "no unshare command"
    sweep_stale
    local id="smapnet-$owner-$RANDOM$RANDOM" head i hosts="" br=""
    head=$(ns_of "$id" head)
    case ${HOSTS_BRIDGE:-ns} in
    ns) ;;
    root) up_root_bridge "$id"; br=$(root_bridge "$id") ;;
    *) echo "hosts.sh: HOSTS_BRIDGE must be 'ns' (default) or 'root', got '$HOSTS_BRIDGE'" >&2; exit 2 ;;
    esac
    ip netns add "$head" 2>/dev/null || skip "ip netns add failed"
    no_ipv6 "$head"
    if ! ip netns exec "$head" unshare --uts true 2>/dev/null; then
        down_set "$id"; skip "unshare --uts failed"
    fi
    # Made before br0: interfaces are listed by index.
    if [ "${SMAP_NETNS_MULTIHOMED:-0}" = 1 ]; then
        {
            ip -n "$head" link add mgmt0 type veth peer name mgmt1 &&
            ip -n "$head" addr add 198.19.0.1/24 dev mgmt0 &&
            ip -n "$head" link set mgmt1 up && ip -n "$head" link set mgmt0 up
        } || { down_set "$id"; skip "cannot make the head's second interface"; }
    fi
    if [ -z "$br" ]; then
        {
            ip -n "$head" link set lo up &&
            ip -n "$head" link add br0 type bridge &&
            ip -n "$head" addr add "$HEAD_ADDR/24" dev br0 &&
            ip -n "$head" link set br0 up
        } || { down_set "$id"; skip "cannot make a bridge"; }
    fi
    for i in $(seq 1 "$n"); do
        local ns; ns=$(ns_of "$id" "h$i")
        # The bridge's side of host i's link: v<i> in the head, or
        # <bridge>v<i> in the root namespace (names there are global).
        local vn=(-n "$head") v="v$i" master=br0
        [ -n "$br" ] && vn=() && v="${br}v$i" && master=$br
        {
            ip netns add "$ns" && no_ipv6 "$ns" &&
            ip "${vn[@]}" link add "$v" type veth peer name eth0 netns "$ns" &&
            { [ -z "$br" ] || no_ipv6_root "$v"; } &&
            ip "${vn[@]}" link set "$v" master "$master" &&
            ip "${vn[@]}" link set "$v" up &&
            ip -n "$ns" link set lo up &&
            ip -n "$ns" addr add "198.18.0.$((10 + i))/24" dev eth0 &&
            ip -n "$ns" link set eth0 up
        } || { down_set "$id"; skip "cannot make host h$i"; }
        hosts="$hosts${hosts:+ }h$i"
    done
    # The links come up asynchronously: wait until every host answers.
    local inhead=(ip netns exec "$head")
    [ -n "$br" ] && inhead=()
    for i in $(seq 1 "$n"); do
        local k
        for k in $(seq 1 100); do
            # "Connection refused": the host answered (nothing listens on port 1).
            "${inhead[@]}" bash -c "exec 3<>/dev/tcp/198.18.0.$((10 + i))/1" 2>&1 |
                grep -q refused && break
            sleep 0.05
        done
    done
    echo "export SMAP_NETNS_ID=$id SMAP_NETNS_HOSTS='$hosts' SMAP_NETNS_HEAD=$HEAD_ADDR" \
         "SMAP_NETNS_LAUNCHER=$HERE/hostexec SMAP_NETNS_BRIDGE=${br:+root}"
}

# IPv6 off on root-namespace interface $1 before it is up (no link-local
# address, no chatter): the root's own settings are left alone.
no_ipv6_root() {
    local f=/proc/sys/net/ipv6/conf/$1/disable_ipv6
    [ ! -e "$f" ] || echo 1 >"$f"
}

# HOSTS_BRIDGE=root: the set's bridge in the root namespace with the head's
# address.  One set at a time: the address would clash (a lock makes the
# check and the creation one step; stale sets were swept just before).
up_root_bridge() {
    local id=$1 br
    br=$(root_bridge "$id")
    exec 8>/run/smapnet-root.lock && flock 8 || skip "cannot lock /run/smapnet-root.lock"
    if ip -o addr show to "$HEAD_ADDR" 2>/dev/null | grep -q .; then
        echo "hosts.sh: HOSTS_BRIDGE=root: $HEAD_ADDR is already on a root interface" \
             "($(ip -o addr show to "$HEAD_ADDR" | awk '{print $2}')): another set in the root layout is up" >&2
        exit 2
    fi
    {
        ip link add "$br" type bridge && no_ipv6_root "$br" &&
        ip addr add "$HEAD_ADDR/24" dev "$br" && ip link set "$br" up
    } || { down_set "$id"; skip "cannot make the root bridge $br"; }
    exec 8>&-
}

cmd=${1:-}
shift || true
case "$cmd" in
run)
    [ $# -ge 2 ] || { echo "usage: hosts.sh run N CMD [ARGS...]" >&2; exit 2; }
    n=$1; shift
    settings=$(up "$n" $$) || exit $?
    eval "$settings"
    trap 'down_set "$SMAP_NETNS_ID"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [ "$SMAP_NETNS_BRIDGE" = root ]; then "$@"; else ip netns exec "$SMAP_NETNS_ID-head" "$@"; fi
    exit $?
    ;;
exec)
    [ $# -ge 2 ] || { echo "usage: hosts.sh exec HOST CMD [ARGS...]" >&2; exit 2; }
    host=$1; shift
    case $host in   # by address, as a launcher given numeric hosts calls it
    198.18.0.*) i=${host#198.18.0.}; [ "$i" -gt 10 ] 2>/dev/null && host=h$((i - 10)) ;;
    esac
    [ -n "${SMAP_NETNS_ID:-}" ] || { echo "hosts.sh exec: SMAP_NETNS_ID is not set" >&2; exit 255; }
    [ -e "/run/netns/$SMAP_NETNS_ID-$host" ] || { echo "hosts.sh: no emulated host '$host'" >&2; exit 255; }
    # SMAP_NETNS_PROVIDER: another FI_PROVIDER ("default": none, the MPI's
    # own choice -- smartmap's net, else tcp;ofi_rxm).
    case ${SMAP_NETNS_PROVIDER:-tcp} in
    default) unset FI_PROVIDER ;;
    *) export FI_PROVIDER=${SMAP_NETNS_PROVIDER:-tcp} ;;
    esac
    export FI_TCP_IFACE=eth0 FI_NET_IFACE=eth0
    # Like ssh: the words are joined into one command line for the shell
    # (hydra quotes its proxy's path inside it).
    exec ip netns exec "$SMAP_NETNS_ID-$host" unshare --uts -- \
        sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
    ;;
up)
    # Interactive: the set outlives this shell; the owner is the caller.
    up "${1:-2}" "$PPID"
    ;;
down)
    [ -n "${SMAP_NETNS_ID:-}" ] || { echo "hosts.sh down: SMAP_NETNS_ID is not set" >&2; exit 2; }
    down_set "$SMAP_NETNS_ID"
    ;;
*)
    sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d' >&2
    exit 2
    ;;
esac
