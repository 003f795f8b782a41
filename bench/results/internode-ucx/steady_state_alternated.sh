#!/bin/bash
# Steady-state 8-byte ping-pong (steady_state_pingpong.c: 12 blocks of
# 20000 round trips, one line per block), variants launched alternately,
# one line per launch: round, variant, fastest block and median block
# (one-way usec).  Run inside `tests/netns/hosts.sh run 2`:
#   steady_state_alternated.sh LAUNCHES VARIANT...
# Variants: s = smartmap (SMARTMAP build tree, default /work/main/build;
# UCX over tcp), d = s with UCX's default tcp segments, e = s with
# SMAP_EXPOSE=none, m = MPICH (mpiexec.mpich, UCX over tcp).  PP_S and
# PP_M: the program built with each MPI's mpicc.
L=$SMAP_NETNS_LAUNCHER; N=$1; shift
B=${SMARTMAP:-/work/main/build}
UCX="-x SMAP_NET_ENGINE=ucx -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0"
run() {
  case $1 in
  s) $B/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host h1:1,h2:1 $UCX $PP_S;;
  d) $B/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host h1:1,h2:1 $UCX -x UCX_TCP_TX_SEG_SIZE=8K -x UCX_TCP_RX_SEG_SIZE=64K $PP_S;;
  e) $B/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host h1:1,h2:1 $UCX -x SMAP_EXPOSE=none $PP_S;;
  m) mpiexec.mpich -launcher-exec $L -localhost $SMAP_NETNS_HEAD -hosts h1:1,h2:1 -n 2 -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 $PP_M;;
  esac
}
for k in $(seq "$N"); do
  vs=("$@"); [ $((k % 2)) = 0 ] && vs=($(printf '%s\n' "$@" | tac))
  for v in "${vs[@]}"; do
    t=$(run "$v" | awk '{print $(NF-1)}' | sort -n | awk '{a[NR]=$1} END{printf "%s %s", a[1], a[int((NR+1)/2)]}')
    echo "$k $v $t"
  done
done
