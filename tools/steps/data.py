import csv, numpy as np, os, functools
ROOT = os.environ.get('STEPS_DATA', '/work/shared/data/steps')

def index():
    with open(os.path.join(ROOT, 'index.csv')) as f:
        return list(csv.DictReader(f))

@functools.lru_cache(None)
def load(name):
    a = np.genfromtxt(os.path.join(ROOT, name), delimiter=',', names=True)
    return a['t'], np.stack([a['ax'], a['ay'], a['az']], 1)

@functools.lru_cache(None)
def gt_steps(name):
    a = np.genfromtxt(os.path.join(ROOT, name), delimiter=',', names=True, dtype=None, encoding=None)
    return np.atleast_1d(a['t']).astype(float), np.atleast_1d(a['in_window']).astype(int)

def evaluate(detector, rows=None, verbose=False):
    rows = rows or index()
    res = []
    for r in rows:
        t, acc = load(r['file'])
        times = np.asarray(detector(t, acc))
        lo, hi = float(r['gt_window_start_s']), float(r['gt_window_end_s'])
        n = int(((times >= lo) & (times <= hi)).sum())
        gt = int(r['gt_steps'])
        res.append((r['file'], r['source'], r['position'], n, gt, (n - gt) / gt * 100))
    sets = {}
    for f, s, p, n, gt, e in res:
        sets.setdefault(s, []).append(e)
    summary = {s: (np.mean(np.abs(e)), np.max(np.abs(e)), np.mean(e)) for s, e in sets.items()}
    if verbose:
        for s, (m, w, sg) in summary.items():
            print(f'{s:22s} MAPE {m:5.2f}%  worst {w:5.1f}%  signed {sg:+5.2f}%')
    return res, summary
