import numpy as np, cache, data
def diag(f, det, p, tol=0.3):
    r = [x for x in data.index() if x['file'] == f][0]
    t, a = data.load(f)
    d, Ts = det(t, a, p, debug=True)
    st, w = cache.gt(f)
    lo, hi = float(r['gt_window_start_s']), float(r['gt_window_end_s'])
    st = st[w == 1]
    dd = d[(d >= lo) & (d <= hi)]
    lags = np.array([x - s for s in st for x in d if abs(x - s) < 0.3])
    off = np.median(lags) if len(lags) else 0
    used = set(); missed = []
    for s in st:
        c = [j for j in range(len(d)) if j not in used and abs(d[j] - off - s) < tol]
        if c: used.add(min(c, key=lambda j: abs(d[j] - off - s)))
        else: missed.append(round(float(s), 2))
    extra = [round(float(x), 2) for k, x in enumerate(d) if k not in used and lo <= x <= hi]
    print(f'{f} win {lo}-{hi} n {len(dd)} gt {len(st)} off {off:.3f} Tmed {np.median(Ts):.2f}\n   missed {missed}\n   extra {extra}')
