import subprocess,sys,re,collections,statistics
for w in ['s','m']:
    out=subprocess.run(['perf','script','-i',f'perf_{w}.data','-F','pid,time,event,trace','--ns'],capture_output=True,text=True).stdout
    last=collections.defaultdict(dict); turn=collections.defaultdict(list); rt=collections.defaultdict(list)
    polls=collections.defaultdict(int); nsend=collections.defaultdict(int)
    for line in out.splitlines():
        m=re.match(r'\s*(\d+)\s+([\d.]+):\s+syscalls:(\S+):\s*(.*)',line)
        if not m: continue
        pid,t,ev,tr=int(m.group(1)),float(m.group(2)),m.group(3),m.group(4)
        L=last[pid]
        if ev=='sys_exit_recvfrom':
            ret=int(tr.split('0x')[-1],16) if '0x' in tr else 0
            if ret>0 and ret<1000: L['rx']=t
        elif ev=='sys_enter_sendto':
            if 'rx' in L: turn[pid].append((t-L['rx'])*1e6); del L['rx']
            if 'tx' in L: rt[pid].append((t-L['tx'])*1e6)
            L['tx']=t; nsend[pid]+=1
        elif ev=='sys_enter_epoll_wait':
            polls[pid]+=1
    for pid in turn:
        print(w,pid,'sends',nsend[pid],'polls/send %.2f'%(polls[pid]/max(1,nsend[pid])),'turnaround median %.3f us mean %.3f'%(statistics.median(turn[pid]),statistics.mean([x for x in turn[pid] if x<50])),'send-to-send median %.2f'%statistics.median(rt[pid]))
