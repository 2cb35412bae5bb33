#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Agreement with Apple's own device motion on iPhone recordings (MotionSense layout).

Usage: python3 Benchmarks/fusion-comparison/apple_agreement.py [DIR_OR_FILES...] [--decimate K]
       [--per-trial]

For each recording (default: ../shared/data/activity/motionsense): the angle between the gravity
direction of a real-time 6D filter and Apple's `CMDeviceMotion.gravity` recorded beside it, at
every sample from the first on (both filters start from their own state); median and 95th
percentile per trial, then per activity the median over its trials of those figures, and the
paired view (per file, ours minus VQF: the median difference with a seeded bootstrap 95 % interval
and a sign test), since the two medians over files can fall on different files. Ours runs
through `motionctl evaluate --apple-agreement` (release build), VQF (`vqf` package, 6D) here on
the same inputs (acceleration converted from Apple's g to specific force in m/s²). There is no
magnetometer in these files. Apple's filter is not ground truth (both differ from it by degrees
while walking): this catches regressions and pocket-motion failures.

A second table compares all three gravities (ours, VQF's, Apple's) with the direction each
recording implies by itself after the fact: the mean specific force over 5 s centred on each
sample, carried into that sample's frame by the integrated (bias-corrected) gyroscope, at the
recording's own rate whatever the decimation. Over a window of T seconds that mean is gravity
plus the velocity change over T, near zero for standing, sitting and steady walking; `CentredGravityReference` in MotionEvaluation computes it for ours
(`referenceMedian`) and Apple's (`appleReferenceMedian`), `centred_reference` below the same way
for VQF.

A third table shows Apple's own gravity against the mean acceleration over the first and the last
5 s of each standing and sitting trial, where that mean is gravity: how far Apple's filter stands
from a still accelerometer, and whether that grows during the trial.

MotionSense: M. Malekzadeh, R. G. Clegg, A. Cavallaro, H. Haddadi, "Mobile Sensor Data
Anonymization", IoTDI 2019 (MIT licence).
"""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (creates/uses Benchmarks/.venv)
import numpy as np  # noqa: E402

ACTIVITIES = {"wlk": "walk", "jog": "jog", "ups": "upstairs", "dws": "downstairs", "sit": "sit",
              "std": "stand"}


def load(path):
    with open(path) as f:
        names = f.readline().strip().split(",")
    d = np.genfromtxt(path, delimiter=",", skip_header=1)
    d = d[np.all(np.isfinite(d), axis=1)]
    col = lambda *c: np.ascontiguousarray(d[:, [names.index(x) for x in c]])
    return dict(t=d[:, 0], acc=col("ax", "ay", "az") * -9.80665, gyr=col("gx", "gy", "gz"),
                apple=col("apple_gravity_x", "apple_gravity_y", "apple_gravity_z"))


def vqf_angles(r, k):
    import vqf
    n = len(r["t"]) // k
    mean = lambda x: np.ascontiguousarray(x[:n * k].reshape(n, k, 3).mean(axis=1))
    gyr, acc = mean(r["gyr"]), mean(r["acc"])
    apple = r["apple"][k - 1:n * k:k]
    Ts = float(np.median(np.diff(r["t"][k - 1:n * k:k])))
    q = vqf.VQF(Ts).updateBatch(gyr, acc)["quat6D"]  # sensor to earth (z up)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    # Third row of R(q): the earth's up axis in the sensor frame; gravity points the other way.
    down = -np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)
    # The centred reference at the recording's own rate (as our evaluation computes it); each
    # decimated estimate describes its window's last row.
    t = r["t"]
    index, reference = centred_reference(r["gyr"], r["acc"], (t[-1] - t[0]) / max(1, len(t) - 1))
    rows = np.arange(n) * k + k - 1
    position = np.searchsorted(index, rows)
    found = (position < len(index)) & (index[np.minimum(position, len(index) - 1)] == rows)
    return angles(down, apple), angles(down[found], reference[position[found]])


def centred_reference(gyr, acc, period, window=5.0):
    """Down direction (sensor frame) from the mean specific force over `window` s centred on each
    sample, and the indices it exists for (the first and last half windows have none).
    `gyr` rad/s (instants), `acc` specific force; the orientation is integrated from one sample to
    the next with the mean of their rates over `period`, as in CentredGravityReference."""
    n = len(gyr)
    h = max(1, int(round(min(window / 2 / period, 4096))))
    rotation = np.empty((n, 3, 3))
    w, x, y, z = 1.0, 0.0, 0.0, 0.0
    for i in range(n):
        if i > 0:  # trapezoidal rule: the mean of the two instants' rates over the interval
            v = (gyr[i - 1] + gyr[i]) * (0.5 * period)
            angle = float(np.linalg.norm(v))
            if angle > 1e-12:
                c, s = np.cos(angle / 2), np.sin(angle / 2) / angle
                dw, dx, dy, dz = c, v[0] * s, v[1] * s, v[2] * s
            else:
                dw, dx, dy, dz = 1.0, 0.5 * v[0], 0.5 * v[1], 0.5 * v[2]
            w, x, y, z = (w * dw - x * dx - y * dy - z * dz, w * dx + x * dw + y * dz - z * dy,
                          w * dy - x * dz + y * dw + z * dx, w * dz + x * dy - y * dx + z * dw)
            norm = (w * w + x * x + y * y + z * z) ** 0.5
            w, x, y, z = w / norm, x / norm, y / norm, z / norm
        rotation[i] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                       [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                       [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    inertial = np.einsum("nij,nj->ni", rotation, acc)
    sums = np.cumsum(np.vstack([np.zeros(3), inertial]), axis=0)
    index = np.arange(h, n - h)
    window_sum = sums[index + h + 1] - sums[index - h]
    return index, -np.einsum("nji,nj->ni", rotation[index], window_sum)


def apple_drift(r, seconds=5.0):
    """Angle (degrees) between Apple's gravity and the mean acceleration over the first and over
    the last `seconds` of a recording, at its own rate.

    For a person standing or sitting, the mean specific force over a few seconds is gravity (the
    body's velocity change over the window is near zero) and the device barely turns, so the
    angle is how far Apple's gravity stands from the accelerometer's."""
    period = float(np.median(np.diff(r["t"])))
    n = max(1, int(round(seconds / period)))
    def angle(rows):
        a = -r["acc"][rows].mean(axis=0)  # specific force back to Apple's sign: along gravity
        g = r["apple"][rows].mean(axis=0)
        c = float(a @ g / (np.linalg.norm(a) * np.linalg.norm(g)))
        return math.degrees(math.acos(max(-1.0, min(1.0, c))))
    return angle(slice(0, n)), angle(slice(len(r["t"]) - n, len(r["t"])))


def angles(a, b):
    cos = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    return np.degrees(np.arccos(np.clip(cos, -1, 1)))


def sign_test_p(lower, n):
    """Two-sided exact sign test: the chance of a split at least this uneven if each file were
    equally likely to favour either filter (ties are not counted in `n`)."""
    if n == 0:
        return 1.0
    k = min(lower, n - lower)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def paired_median_interval(differences, seed=20261127, resamples=4000):
    """Median of per-file differences (ours − VQF) and its 95 % bootstrap interval: the paired
    comparison, file against file, which the difference of the two medians over files is not."""
    d = np.asarray(differences)
    generator = np.random.default_rng(seed)
    medians = np.median(d[generator.integers(0, len(d), size=(resamples, len(d)))], axis=1)
    return float(np.median(d)), float(np.percentile(medians, 2.5)), float(np.percentile(medians, 97.5))


def main():
    args = sys.argv[1:]
    k = int(args[args.index("--decimate") + 1]) if "--decimate" in args else 1
    per_trial = "--per-trial" in args
    paths = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--decimate")]
    if not paths:
        paths = [os.path.join(compare.REPO, "..", "shared", "data", "activity", "motionsense")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".csv"))
        else:
            files.append(p)
    cmd = compare.ours_command()
    ours_process = subprocess.Popen(cmd + ["evaluate", "--apple-agreement", "--json", "--decimate", str(k)] + files,
                                    stdout=subprocess.PIPE, text=True)
    vqf = {}
    vqf_reference = {}
    drift = {}
    for f in files:
        recording = load(f)
        a, b = vqf_angles(recording, k)
        name = os.path.splitext(os.path.basename(f))[0]
        drift[name] = apple_drift(recording)
        vqf[name] = (float(np.median(a)), float(np.percentile(a, 95)))
        vqf_reference[name] = float(np.median(b)) if len(b) else float("nan")
    out, _ = ours_process.communicate()
    if ours_process.returncode != 0:
        sys.exit("motionctl evaluate --apple-agreement failed")
    trials = json.loads(out)["trials"]
    ours = {t["name"]: (t["median"], t["p95"]) for t in trials}
    nan = float("nan")
    ours_reference = {t["name"]: (t.get("referenceMedian", nan), t.get("appleReferenceMedian", nan))
                      for t in trials}

    rate = 50 / k
    print(f"Angle between each filter's gravity and Apple's CMDeviceMotion.gravity, degrees "
          f"(MotionSense, {len(files)} recordings, {rate:.0f} Hz)")
    if per_trial:
        print(f"{'trial':24}{'ours med':>10}{'VQF med':>10}{'ours p95':>10}{'VQF p95':>10}")
        for name in ours:
            o, v = ours[name], vqf[name]
            print(f"{name:24}{o[0]:10.2f}{v[0]:10.2f}{o[1]:10.2f}{v[1]:10.2f}")
    print(f"{'activity':12}{'trials':>7}{'ours med':>10}{'VQF med':>10}{'ours p95':>10}{'VQF p95':>10}  ours <= VQF"
          f"  {'ours lower':>10}")
    for code, label in ACTIVITIES.items():
        names = [n for n in ours if f"_{code}_" in n]
        if not names:
            continue
        om = float(np.median([ours[n][0] for n in names]))
        vm = float(np.median([vqf[n][0] for n in names]))
        op = float(np.median([ours[n][1] for n in names]))
        vp = float(np.median([vqf[n][1] for n in names]))
        # Trial by trial: on how many of the activity's files our median is below VQF's (the
        # medians over trials can fall on different files for the two filters).
        lower = sum(ours[n][0] < vqf[n][0] for n in names)
        print(f"{label:12}{len(names):7d}{om:10.2f}{vm:10.2f}{op:10.2f}{vp:10.2f}  {'yes' if om <= vm else 'NO':11}"
              f"  {lower:>3d} of {len(names):<3d}")
    # The paired view of the same medians: file against file. A difference whose interval holds 0
    # and whose sign test is far from significant is not one the data can tell from chance.
    print("Paired, file against file: median of (ours − VQF) per-file medians, degrees, 95 % bootstrap "
          "interval (seeded), sign test")
    print(f"{'activity':12}{'trials':>7}{'median diff':>13}{'95 % interval':>20}{'ours lower':>12}{'sign p':>9}")
    for code, label in ACTIVITIES.items():
        names = [n for n in ours if f"_{code}_" in n]
        if not names:
            continue
        differences = [ours[n][0] - vqf[n][0] for n in names]
        median, low, high = paired_median_interval(differences)
        untied = [d for d in differences if d != 0]
        lower = sum(d < 0 for d in untied)
        interval = f"[{low:+.3f}, {high:+.3f}]"
        print(f"{label:12}{len(names):7d}{median:+13.3f}{interval:>20}{lower:>6d} of {len(untied):<3d}"
              f"{sign_test_p(lower, len(untied)):9.2f}")
    print(f"Angle to each recording's own centred gravity reference (5 s mean specific force in the gyroscope's "
          f"frame), degrees; median over trials of each trial's median ({rate:.0f} Hz)")
    print(f"{'activity':12}{'trials':>7}{'ours':>8}{'VQF':>8}{'Apple':>8}  ours <= VQF  {'ours lower':>10}")
    for code, label in ACTIVITIES.items():
        names = [n for n in ours if f"_{code}_" in n]
        if not names:
            continue
        o = float(np.median([ours_reference[n][0] for n in names]))
        v = float(np.median([vqf_reference[n] for n in names]))
        a = float(np.median([ours_reference[n][1] for n in names]))
        lower = sum(ours_reference[n][0] < vqf_reference[n] for n in names)
        print(f"{label:12}{len(names):7d}{o:8.2f}{v:8.2f}{a:8.2f}  {'yes' if o <= v else 'NO':11}  "
              f"{lower:>3d} of {len(names):<3d}")
    # Apple's gravity is not the accelerometer's at rest: it moves away from it while a person
    # stands, which no filter that trusts a still accelerometer follows.
    print("Apple's gravity against the mean acceleration over the first and the last 5 s of each trial "
          "(standing and sitting: that mean is gravity), degrees; median over trials (recording rate)")
    print(f"{'activity':12}{'trials':>7}{'first 5 s':>11}{'last 5 s':>10}{'last p90':>10}  {'grew':>10}")
    for code in ("std", "sit"):
        names = [n for n in ours if f"_{code}_" in n]
        if not names:
            continue
        first = [drift[n][0] for n in names]
        last = [drift[n][1] for n in names]
        grew = sum(b > a for a, b in zip(first, last))
        print(f"{ACTIVITIES[code]:12}{len(names):7d}{float(np.median(first)):11.2f}{float(np.median(last)):10.2f}"
              f"{float(np.percentile(last, 90)):10.2f}  {grew:>3d} of {len(names):<3d}")


if __name__ == "__main__":
    main()
