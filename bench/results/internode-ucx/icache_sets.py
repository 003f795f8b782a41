# Which instruction-cache sets the code of a round trip piles into, from
# two callgrind runs of the same ping-pong that differ only in the number
# of round trips (valgrind --tool=callgrind --cache-sim=yes --dump-instr=yes,
# e.g. bench/latency --min-size 8 --max-size 8 --iters 1000 and 11000):
#   python3 icache_sets.py SHORT.out LONG.out [ROUND_TRIPS_BETWEEN]
# The difference is the steady state.  Instructions run at least once per
# round trip are "hot"; their 64-byte lines are grouped by set (64 sets of
# a 32 KiB 8-way L1i, callgrind's model of this machine's CPU, indexed by
# address bits 6-11, as the hardware's VIPT cache is).  A set holding more
# hot lines than its 8 ways misses on every round trip.  (A line's name is
# that of the first instruction seen in it: approximate where callgrind
# switches objects.)
import collections, re, sys


def parse(path):
    """Self cost per instruction address, and its object and function."""
    cost = collections.defaultdict(lambda: [0] * 9)
    where = {}
    names = {}
    ob = fn = None
    last = [0, 0]
    skip = False
    for line in open(path):
        line = line.rstrip('\n')
        if not line:
            continue
        c = line[0]
        if c.isdigit() or c in '+-*':
            toks = line.split()
            pos = []
            for i in range(2):
                t = toks[i]
                v = last[i] if t == '*' else last[i] + int(t, 0) if t[0] in '+-' else int(t, 0)
                pos.append(v)
            last = pos
            if skip:            # the inclusive cost of a call: not this line's own
                skip = False
                continue
            e = cost[pos[0]]
            for i, v in enumerate(int(x) for x in toks[2:]):
                e[i] += v
            where[pos[0]] = (ob, fn)
            continue
        if line.startswith('calls='):
            skip = True
            continue
        m = re.match(r'(ob|fn|cob|cfn|fl|fi|fe|cfi|cfl)=\((\d+)\)(?: (.*))?', line)
        if m:
            kind, idx, name = m.groups()
            table = names.setdefault({'ob': 'ob', 'cob': 'ob', 'fn': 'fn', 'cfn': 'fn'}.get(kind, 'fl'), {})
            if name:
                table[idx] = name
            if kind == 'ob':
                ob = table[idx]
            elif kind == 'fn':
                fn = table[idx]
    return cost, where


short, _ = parse(sys.argv[1])
long_, where = parse(sys.argv[2])
n = float(sys.argv[3]) if len(sys.argv) > 3 else 10000.0
hot = {}
for a, v in long_.items():
    u = short.get(a, [0] * 9)
    if (v[0] - u[0]) / n >= 0.5:
        hot[a] = (v[3] - u[3]) / n          # I1 misses per round trip
lines = collections.defaultdict(list)
for a in hot:
    lines[a >> 6].append(a)
sets = collections.defaultdict(list)
for line in lines:
    sets[line & 63].append(line)
misses = collections.Counter()
for a, m in hot.items():
    misses[(a >> 6) & 63] += m
print('hot lines %d, L1i misses per round trip %.2f' % (len(lines), sum(misses.values())))
for s in sorted(sets, key=lambda s: -len(sets[s])):
    if len(sets[s]) < 7 and misses[s] < 0.1:
        continue
    print('set %2d: %d hot lines, %.2f misses' % (s, len(sets[s]), misses[s]))
    for line in sorted(sets[s]):
        ob, fn = where[lines[line][0]]
        print('    %#x %s %s' % (line << 6, (ob or '?').split('/')[-1], fn))
