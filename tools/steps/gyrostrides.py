"""Steps counted against the gyroscope's strides on MotionSense (iPhone in a trouser pocket).

MotionSense has no step truth, but its phone sits in a front trouser pocket, where it turns with
the thigh: the rotation rate about the thigh's flexion axis goes through one cycle per stride (two
steps). Counting those cycles gives a step estimate that shares nothing with the detector (which
reads |a| only). Figures in docs/Steps.md, "Stairs with the phone in a pocket, against the
gyroscope".

    python3 gyrostrides.py [--per-file]

Needs numpy and scipy; reads ../shared/data/activity/motionsense (MOTIONSENSE_DATA moves it).
"""
import glob, os, sys
import numpy as np, scipy.signal as ss
import det4

DATA = os.environ.get('MOTIONSENSE_DATA', os.path.join(os.path.dirname(__file__),
                                                      '../../../shared/data/activity/motionsense'))
G = 9.80665


def stride_count(t, gyro, band=(0.35, 1.6), hysteresis=0.25):
    """Cycles of the rotation rate about its principal axis: band-passed (zero phase) to the
    stride band, projected on the first principal direction, counted as upward crossings of
    +hysteresis x its standard deviation after a crossing below -hysteresis x it."""
    rate = 1 / np.median(np.diff(t))
    b, a = ss.butter(2, [band[0] / (rate / 2), band[1] / (rate / 2)], 'band')
    x = ss.filtfilt(b, a, gyro, axis=0)
    axis = np.linalg.svd(x - x.mean(0), full_matrices=False)[2][0]
    y = x @ axis
    level = hysteresis * np.std(y)
    state, cycles = 0, 0
    for v in y:
        if state <= 0 and v > level:
            state, cycles = 1, cycles + 1
        elif state >= 0 and v < -level:
            state = -1
    return cycles


def load(path):
    a = np.loadtxt(path, delimiter=',', skiprows=1, usecols=range(7))
    # Columns: t, ax, ay, az (g, Apple's sign), gx, gy, gz (rad/s). |a| does not depend on the
    # sign, so the specific force's magnitude is |a| x g.
    return a[:, 0], a[:, 1:4] * G, a[:, 4:7]


def compare(kinds, per_file=False, **proxy):
    rows = []
    for kind in kinds:
        for path in sorted(glob.glob(os.path.join(DATA, f'sub*_{kind}_*.csv'))):
            t, acc, gyro = load(path)
            rows.append((os.path.basename(path), 2 * stride_count(t, gyro, **proxy),
                         len(det4.detect(t, acc))))
    ours = np.array([r[2] for r in rows], float)
    gyro = np.array([r[1] for r in rows], float)
    error = (ours - gyro) / gyro * 100
    if per_file:
        for (name, g, o), e in sorted(zip(rows, error), key=lambda x: x[1]):
            print(f'  {name:18s} gyro {g:4d}  ours {o:4d}  {e:+6.1f} %')
    p10, p90 = np.percentile(error, [10, 90])
    print(f'{"+".join(kinds):8s} files {len(rows):3d}  gyro x 2 {int(gyro.sum()):5d}  ours {int(ours.sum()):5d}'
          f'  total {(ours.sum() - gyro.sum()) / gyro.sum() * 100:+6.1f} %  median {np.median(error):+5.1f} %'
          f'  10th/90th {p10:+6.1f} / {p90:+5.1f} %  under -10 %: {int((error < -10).sum())}')


if __name__ == '__main__':
    per_file = '--per-file' in sys.argv
    for kinds in (('wlk',), ('jog',), ('ups', 'dws'), ('ups',), ('dws',)):
        compare(kinds, per_file and kinds == ('ups', 'dws'))
    print('proxy settings (stairs):')
    for band, hysteresis in (((0.3, 2.0), 0.25), ((0.35, 1.6), 0.15), ((0.35, 1.6), 0.4)):
        print(f'  band {band} Hz, hysteresis {hysteresis}: ', end='')
        compare(('wlk',), band=band, hysteresis=hysteresis)
        print(f'  {"":32s}', end='')
        compare(('ups', 'dws'), band=band, hysteresis=hysteresis)
