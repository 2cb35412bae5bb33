import numpy as np, os, pickle
import data
P='/tmp/steps_cache.pkl'
if not os.path.exists(P):
    d={}
    for r in data.index():
        d[r['file']] = (data.load(r['file']), data.gt_steps(r['steps_file']))
    pickle.dump(d, open(P,'wb'))
d=pickle.load(open(P,'rb'))
data.load = lambda n: d[n][0]
def gt(n): return d[n][1]
