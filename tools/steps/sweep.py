import sys, json, det3, data, numpy as np
base = dict(det3.P)
for spec in sys.argv[1:]:
    p = dict(base); p.update(json.loads(spec))
    res, s = data.evaluate(lambda t, a: det3.detect(t, a, p))
    worst = max(abs(r[5]) for r in res)
    print(spec, ' '.join(f'{k[:9]} {v[0]:.2f}/{v[1]:.1f}' for k, v in s.items()), f'worst {worst:.1f}', flush=True)
