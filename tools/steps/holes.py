"""Samples lost inside a walk: every recording with holes punched in (seeded), scored with the
mirror's gap bridging on and off. Figures in docs/Steps.md, "Samples lost inside a walk".

    python3 holes.py
"""
import numpy as np
import data, det4


def with_holes(seed, every, length, p):
    def detect(t, acc):
        rng = np.random.default_rng(seed + int(t[-1] * 1000) % 100000)
        keep = np.ones(len(t), bool)
        start = t[0] + rng.uniform(*every)
        while start < t[-1]:
            size = rng.uniform(*length)
            keep &= ~((t > start) & (t < start + size))
            start += size + rng.uniform(*every)
        return det4.detect(t[keep], acc[keep], p)
    return detect


if __name__ == '__main__':
    off = dict(det4.P, gapmin=np.inf)
    _, intact = data.evaluate(lambda t, a: det4.detect(t, a, det4.P))
    print('as recorded  ' + '  '.join(f'{k} {m:.2f} %' for k, (m, w, sg) in intact.items()))
    for label, seed, every, length in (('0.25-0.6 s every 15-30 s', 11, (15, 30), (0.25, 0.6)),
                                       ('0.3-0.8 s every 6-10 s', 7, (6, 10), (0.3, 0.8))):
        for name, p in (('without bridging', off), ('with bridging', det4.P)):
            _, s = data.evaluate(with_holes(seed, every, length, p))
            print(f'{label:26s} {name:17s} ' + '  '.join(
                f'{k} {m:.2f} % ({sg:+.2f} %, worst {w:.1f} %)' for k, (m, w, sg) in s.items()))
