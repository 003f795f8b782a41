#!/bin/bash
L=$SMAP_NETNS_LAUNCHER
w=$1
if [ $w = s ]; then
  /work/main/build/bin/mpiexec --launcher $L --head-addr $SMAP_NETNS_HEAD --bind-to none --host h1:1,h2:1 -x SMAP_NET_ENGINE=ucx -x UCX_TLS=tcp -x UCX_NET_DEVICES=eth0 /tmp/cg/ppt_s 8 > /tmp/cg/perf_$w.out &
else
  mpiexec.mpich -launcher-exec $L -localhost $SMAP_NETNS_HEAD -hosts h1:1,h2:1 -n 2 -bind-to none -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 /tmp/cg/ppt_m 8 > /tmp/cg/perf_$w.out &
fi
sleep 1.5
pids=$(pgrep -d, -f "ppt_$w 8" | head -1)
perf record -q -o /tmp/cg/perf_$w.data -e syscalls:sys_enter_sendto,syscalls:sys_exit_recvfrom,syscalls:sys_enter_recvfrom,syscalls:sys_enter_epoll_wait -p $pids -- sleep 0.5 2>/dev/null
wait
