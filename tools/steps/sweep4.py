import sys, json, det4, data, numpy as np
for spec in sys.argv[1:]:
    p = dict(det4.P); p.update(json.loads(spec))
    res, s = data.evaluate(lambda t, a: det4.detect(t, a, p))
    worst = sorted(res, key=lambda r: -abs(r[5]))[:3]
    over5 = sum(abs(r[5]) > 5 for r in res)
    print(spec, ' '.join(f'{k[7:10] or k}:{v[0]:.2f}/{v[1]:.1f}/{v[2]:+.2f}' for k, v in s.items()), f'>5%: {over5}', [f'{r[0][:-4]} {r[5]:+.1f}' for r in worst], flush=True)
