import subprocess, os, sys, collections, itertools
objroot = sys.argv[1] if len(sys.argv) > 1 else 'build/native/obj'
defs = {}; refs = collections.defaultdict(set)
objs = []
for d in ['base','core','collectors','storage','analysis','forward','import','web','app']:
    p = os.path.join(objroot, d)
    if not os.path.isdir(p): continue
    for f in sorted(os.listdir(p)):
        if f.endswith('.o') and os.path.exists(os.path.join(d, f[:-2] + '.c')): objs.append(os.path.join(d, f[:-2] + '.c'))
for o in objs:
    out = subprocess.check_output(['nm', os.path.join(objroot, o[:-2] + '.o')]).decode()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBR': defs[parts[2]] = o
        elif len(parts) == 2 and parts[0] == 'U': refs[o].add(parts[1])
g = collections.defaultdict(set)
for o, rs in refs.items():
    for s in rs:
        if s in defs and defs[s] != o: g[o].add(defs[s])
# strongly connected components (Tarjan)
index = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    index[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in g[v]:
        if w not in index: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
for v in list(objs):
    if v not in index: sc(v)
for comp in sccs: print('circle:', ' <-> '.join(comp))
sys.exit(1 if sccs else 0)
