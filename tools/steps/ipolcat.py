import numpy as np, cache, data, det4, sys, json
def cats(p):
    C = dict(first=0, last=0, mid=0, extra_start=0, extra_end=0, extra_mid=0)
    for r in data.index():
        if r['source'] != 'ipol': continue
        t, a = data.load(r['file']); d = det4.detect(t, a, p)
        st, w = cache.gt(r['file']); st = st[w == 1]
        lo, hi = float(r['gt_window_start_s']), float(r['gt_window_end_s'])
        used = set()
        for k, s in enumerate(st):
            c = [j for j in range(len(d)) if j not in used and abs(d[j] - s) < 0.25 and lo <= d[j] <= hi]
            if c: used.add(min(c, key=lambda j: abs(d[j] - s)))
            else: C['first' if k == 0 else 'last' if k == len(st) - 1 else 'mid'] += 1
        for j, x in enumerate(d):
            if j in used or not (lo <= x <= hi): continue
            C['extra_start' if x < st[0] else 'extra_end' if x > st[-1] else 'extra_mid'] += 1
    return C
if __name__ == '__main__':
    p = dict(det4.P); p.update(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})
    print(cats(p))
