"""Prototype of the gyroscope's strides (StepDetector+Strides.swift, GyroscopeStrideTracker.swift):
steps that |a| missed, added where a limb's rotation shows more strides than |a| found steps for.

    python3 strides.py            # MotionSense stairs and walks against gyrostrides.py's estimate
    python3 strides.py --sweep    # the bounds one at a time (docs/Steps.md)

Close to the Swift code but not operation by operation (the |a| band RMS is read at the stretch's
end, not at each stride). Needs numpy and scipy; reads ../shared/data/activity/motionsense.
"""
import glob, os, sys
import numpy as np, scipy.signal as ss
import det4, gyrostrides as gs
from det4 import biquad

Q = dict(lo=0.35, hi=1.6, tau=4.0, h=0.25, K=4, dmin=2, nmin=0.5, sigmin=0.7, rmsmin=2.0,
         pmin=0.6, pmax=2.0, pquick=0.4, like=4 / 3)


def strides(t, gyro, q=Q, fs=50.0):
    """Causal stride marks (time, RMS of the stride signal) as GyroscopeStrideTracker finds them."""
    g = np.arange(t[0], t[-1] + 1e-12, 1 / fs)
    w = np.stack([np.interp(g, t, gyro[:, i]) for i in range(3)], 1)
    bh, ah = biquad('hp', q['lo'], fs); bl, al = biquad('lp', q['hi'], fs)
    x = ss.lfilter(bl, al, ss.lfilter(bh, ah, w - w[0], axis=0), axis=0)
    f = 1 / (q['tau'] * fs)
    C = np.zeros((3, 3)); v = np.ones(3) / np.sqrt(3); var = 0.0; state = 0; marks = []
    for n in range(len(g)):
        C += (np.outer(x[n], x[n]) - C) * f
        u = C @ v; nu = np.linalg.norm(u)
        if nu > 1e-12: v = u / nu
        y = x[n] @ v; var += (y * y - var) * f; s = np.sqrt(var)
        if state <= 0 and y > q['h'] * s: state = 1; marks.append((g[n], s))
        elif state >= 0 and y < -q['h'] * s: state = -1
    return marks


def band_rms(t, acc):
    g, y = det4.chain(t, acc, det4.P)
    f = 1 / (det4.P['tau_e'] * det4.P['rate'])
    e = np.sqrt(ss.lfilter([f], [1, -(1 - f)], y * y))
    return lambda x: np.interp(x, g, e)


def add_hidden(steps, marks, rms, q=Q):
    """Every K strides: add the steps missing from 2 per stride when the bounds hold."""
    steps = np.sort(np.asarray(steps)); add = []; K = q['K']; i = 0
    while i + K < len(marks):
        block = marks[i:i + K + 1]; a, b = block[0][0], block[-1][0]
        periods = np.diff([m[0] for m in block])
        # Strides under pmin count only in a run of like ones (a quick descent), down to pquick.
        ok = (all(q['pquick'] <= p <= q['pmax'] for p in periods)
              and (min(periods) >= q['pmin'] or max(periods) <= q['like'] * min(periods))
              and min(m[1] for m in block) >= q['sigmin'] and rms(b) >= q['rmsmin'])
        if not ok: i += 1; continue
        n = int(((steps > a) & (steps <= b)).sum()); missing = 2 * K - n
        if n >= q['nmin'] * K and missing >= q['dmin']:
            add += list(np.linspace(a, b, missing + 2)[1:-1])
        i += K
    return np.sort(np.concatenate([steps, add]))


def run(q=Q):
    for kind in ('wlk', 'jog', 'ups', 'dws'):
        ref = before = after = 0
        for path in sorted(glob.glob(os.path.join(gs.DATA, f'sub*_{kind}_*.csv'))):
            t, acc, gyro = gs.load(path)
            steps = det4.detect(t, acc)
            ref += 2 * gs.stride_count(t, gyro); before += len(steps)
            after += len(add_hidden(steps, strides(t, gyro, q), band_rms(t, acc), q))
        print(f'  {kind}: gyroscope x 2 {ref}  |a| alone {before} ({(before - ref) / ref * 100:+.1f} %)'
              f'  with the strides {after} ({(after - ref) / ref * 100:+.1f} %)')


if __name__ == '__main__':
    run()
    if '--sweep' in sys.argv:
        for key, value in (('pmin', 0.5), ('pquick', 0.6), ('like', 1.5), ('sigmin', 0.5),
                           ('rmsmin', 1.5), ('nmin', 0.25)):
            print(f'{key} = {value}:'); run(dict(Q, **{key: value}))
