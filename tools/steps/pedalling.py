"""Can the thigh's rotation tell pocket pedalling from pocket stairs? (docs/MotionActivity.md)

With the phone in a trouser pocket, the thigh turns once per pedal revolution and once per
stride. |a| shows one peak per revolution while pedalling, and two per stride while walking,
but on stairs one leg's step often hides in |a| (docs/Steps.md), leaving one per stride there
too. For every stretch of 4 regular strides (the bounds of strides.py: 0.6-2 s each, stride
signal RMS >= 0.7 rad/s) this prints the steps |a| found per stride and |a|'s step-band RMS, on
MotionSense (iPhone, front pocket) and on a simulated recording (`motionctl simulate cycle F`).

    python3 pedalling.py [SIMULATED.csv]

Needs numpy and scipy; reads ../shared/data/activity/motionsense.
"""
import glob, os, sys
import numpy as np
import det4, gyrostrides as gs, strides as st


def load_simulated(path):
    """t, specific force (m/s^2), gyroscope (rad/s) of an OpenCoreMotion CSV."""
    rows = [line for line in open(path) if not line.startswith('#')]
    a = np.genfromtxt(rows[1:], delimiter=',', usecols=range(7))
    return a[:, 0], a[:, 1:4], a[:, 4:7]


def stretches(t, acc, gyro, q=st.Q):
    """(steps per stride, |a| band RMS m/s^2, smallest stride RMS rad/s) per stretch of K strides."""
    if abs(1 / np.median(np.diff(t)) - 50) > 1:  # the mirror runs at 50 Hz
        g = np.arange(t[0], t[-1], 0.02)
        acc = np.stack([np.interp(g, t, acc[:, i]) for i in range(3)], 1)
        gyro = np.stack([np.interp(g, t, gyro[:, i]) for i in range(3)], 1)
        t = g
    steps = np.sort(np.asarray(det4.detect(t, acc)))
    marks, rms = st.strides(t, gyro, q), st.band_rms(t, acc)
    out, K, i = [], q['K'], 0
    while i + K < len(marks):
        block = marks[i:i + K + 1]
        a, b = block[0][0], block[-1][0]
        periods = np.diff([m[0] for m in block])
        sigma = min(m[1] for m in block)
        if all(q['pmin'] <= p <= q['pmax'] for p in periods) and sigma >= q['sigmin']:
            found = int(((steps > a) & (steps <= b)).sum())
            out.append((found / K, float(rms(b)), sigma))
            i += K
        else:
            i += 1
    return out


def main():
    for kind in ('wlk', 'jog', 'ups', 'dws', 'sit', 'std'):
        rows = []
        for path in sorted(glob.glob(os.path.join(gs.DATA, f'sub*_{kind}_*.csv'))):
            t, acc, gyro = gs.load(path)
            rows += [(os.path.basename(path),) + r for r in stretches(t, acc, gyro)]
        single = [r for r in rows if r[1] <= 1.25]
        line = f'{kind}: {len(rows)} stretches, {len(single)} with <= 1.25 steps per stride'
        if single:
            p = np.percentile([r[2] for r in single], [0, 10, 50])
            line += f'; their |a| RMS min {p[0]:.2f}, 10th pct {p[1]:.2f}, median {p[2]:.2f} m/s^2'
        print(line)
        for name, ratio, rms, sigma in single:
            if rms < 1.6:
                print(f'    {name}: {ratio:.2f} steps per stride, |a| RMS {rms:.2f}, stride RMS {sigma:.2f}')
    for path in sys.argv[1:]:
        rows = stretches(*load_simulated(path))
        if not rows:
            print(f'{os.path.basename(path)}: no stretch of regular thigh cycles')
            continue
        r = np.array(rows)
        print(f'{os.path.basename(path)}: {len(rows)} stretches, steps per stride {r[:, 0].min():.2f}-'
              f'{r[:, 0].max():.2f}, |a| RMS {r[:, 1].min():.2f}-{r[:, 1].max():.2f} m/s^2, '
              f'stride RMS {r[:, 2].min():.2f}-{r[:, 2].max():.2f} rad/s')


if __name__ == '__main__':
    main()
