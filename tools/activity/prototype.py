"""Prototype of the activity classifier's features and model (numpy only).

Mirrors Sources/MotionDetectors/ActivityFeatures*.swift: lowpass + resample to 20 Hz, 5 s windows
every 1 s, features of |a| and the gravity-direction components. Used to choose features and the
model; the shipped coefficients are produced by the Swift trainer (MotionEvaluation).
"""
import csv, glob, os, sys
import numpy as np

ROOT = os.environ.get("ACT", "/work/shared/data/activity")
R = 20.0; N = 100; H = 20; FC = 6.0
CLASSES = ["stationary", "walking", "running", "cycling", "automotive"]

def load(path):
    d = np.loadtxt(path, delimiter=",", skiprows=1, usecols=(0, 1, 2, 3))
    t, a = d[:, 0], d[:, 1:4]
    if np.median(np.linalg.norm(a, axis=1)) > 3:
        a = -a / 9.80665
    return t, a

def resample(t, a):
    # two cascaded one-pole lowpasses, dt-dependent, then linear interpolation on the grid
    y1 = a[0].copy(); y2 = a[0].copy(); out = []
    prev_t = t[0]; prev = a[0].copy(); next_g = t[0]
    for i in range(len(t)):
        dt = t[i] - prev_t
        al = 1 - np.exp(-2 * np.pi * FC * dt) if dt > 0 else 0.0
        y1 = y1 + al * (a[i] - y1); y2 = y2 + al * (y1 - y2)
        while next_g <= t[i]:
            f = 0.0 if t[i] == prev_t else (next_g - prev_t) / (t[i] - prev_t)
            out.append(prev + f * (y2 - prev)); next_g += 1 / R
        prev_t = t[i]; prev = y2.copy()
    return np.array(out)

FREQS = np.arange(0.2, 8.01, 0.2)
HANN = 0.5 - 0.5 * np.cos(2 * np.pi * (np.arange(N) + 0.5) / N)
TT = np.arange(N) / R
COS = np.cos(2 * np.pi * FREQS[:, None] * TT[None]) * HANN
SIN = np.sin(2 * np.pi * FREQS[:, None] * TT[None]) * HANN
BANDS = [(0.2, 0.6), (0.6, 1.2), (1.2, 2.0), (2.0, 3.2), (3.2, 5.0), (5.0, 8.0)]

def features(w):
    m = np.linalg.norm(w, axis=1)
    mu = m.mean(); dm = m - mu
    f = [mu, np.log10(m.std() + 1e-4), np.log10(np.abs(dm).mean() + 1e-4), np.log10(np.abs(np.diff(m)).mean() * R + 1e-4)]
    p = (COS @ dm) ** 2 + (SIN @ dm) ** 2
    tot = p.sum() + 1e-12
    for lo, hi in BANDS:
        s = (FREQS >= lo - 1e-9) & (FREQS < hi - 1e-9)
        f.append(p[s].sum() / tot)
    s = (FREQS >= 0.6) & (FREQS <= 5.0)
    k = np.argmax(np.where(s, p, -1)); f.append(FREQS[k])
    f.append(p[max(k - 1, 0):k + 2].sum() / tot)
    mv = w.mean(0); g = mv / (np.linalg.norm(mv) + 1e-12)
    v = w @ g
    T = ((w - mv) ** 2).sum(1).mean(); Vv = v.var()
    f += [np.log10(np.sqrt(Vv) + 1e-4), np.log10(np.sqrt(max(T - Vv, 0)) + 1e-4)]
    f.append(np.log10(1 - np.linalg.norm(mv) / m.mean() + 1e-5))
    # vertical spectrum fractions
    dv = v - v.mean(); pv = (COS @ dv) ** 2 + (SIN @ dv) ** 2; tv = pv.sum() + 1e-12
    for lo, hi in BANDS:
        s = (FREQS >= lo - 1e-9) & (FREQS < hi - 1e-9)
        f.append(pv[s].sum() / tv)
    return f

def file_windows(path):
    t, a = load(path)
    g = resample(t, a)
    out = []
    for end in range(N, len(g) + 1, H):
        out.append(features(g[end - N:end]))
    return np.array(out)

def dataset():
    cache = "/tmp/act_feats.npz"
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=True); return list(z["rows"])
    rows = []
    for line in csv.DictReader(open(os.path.join(ROOT, "index.csv"))):
        X = file_windows(os.path.join(ROOT, line["file"]))
        if len(X) == 0: continue
        rows.append((line["file"], line["source"], line["subject"], CLASSES.index(line["label"]), X))
    np.savez(cache, rows=np.array(rows, dtype=object)); return rows

if __name__ == "__main__":
    rows = dataset()
    print(len(rows), rows[0][4].shape)
