#!/usr/bin/env python3
"""Fusion of sensors on their own clocks, scored on BROAD.

Each BROAD trial is made multi-clock: the gyroscope averaged over windows of KG raw samples, the
accelerometer over windows of KA samples starting OA samples later, the magnetometer over windows
of KM samples starting OM samples later (each window stamped with its last raw sample's time).
The result is written as an OpenCoreMotion CSV with one sensor per row (rows of sensors that
share a time merged), replayed with `motionctl replay --frame magnetic-north` (one update per
gyroscope sample, with the latest accelerometer and magnetometer samples) and scored against the
reference with the BROAD metrics (real-time 9D total, heading, inclination RMS, degrees).

    python3 Benchmarks/fusion-comparison/multiclock.py [--spec KG,KA,KM,OA,OM] [--offline] [--per-trial] [FILES...]

Default spec 14,28,28,5,11 (gyroscope 20 Hz, accelerometer and magnetometer 10 Hz). `$MOTIONCTL`
names the binary (as for compare.py); without it a release build of this checkout is used.
"""

import os
import subprocess
import sys
import tempfile

import compare  # noqa: E402  (also creates and enters the virtual environment)
import numpy as np  # noqa: E402


def multiclock(trial, kg, ka, km, oa, om):
    """(rows, times): CSV rows 't,acc,gyr,mag' with empty cells for sensors that did not tick."""
    t = trial["t"]

    def windows(x, k, offset):
        n = (len(t) - offset) // k
        last = offset + np.arange(n) * k + k - 1
        return last, x[offset:offset + n * k].reshape(n, k, -1).mean(axis=1)

    events = {}
    for key, (last, values) in (("g", windows(trial["gyr"], kg, 0)), ("a", windows(trial["acc"], ka, oa)),
                                ("m", windows(trial["mag"], km, om))):
        for i, v in zip(last, values):
            events.setdefault(int(i), {})[key] = v
    cells = lambda v: ",".join("%.9g" % x for x in v) if v is not None else ",,"
    rows = ["%.6f,%s,%s,%s" % (t[i], cells(e.get("a")), cells(e.get("g")), cells(e.get("m")))
            for i, e in sorted(events.items())]
    return rows


def score(trial, replay_csv):
    out = np.loadtxt(replay_csv, delimiter=",", skiprows=1, usecols=range(5), ndmin=2)
    index = np.searchsorted(trial["t"], out[:, 0] - 1e-7)
    q = compare.qmul(compare.ENU_FROM_NWU[None, :], out[:, 1:5])
    return compare.metrics(q, trial["ref"][index], trial["movement"][index], False)


def main():
    args = sys.argv[1:]
    spec = [14, 28, 28, 5, 11]
    if "--spec" in args:
        spec = [int(x) for x in args[args.index("--spec") + 1].split(",")]
    per_trial = "--per-trial" in args
    offline = ["--offline"] if "--offline" in args else []
    paths = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--spec")]
    if not paths:
        paths = [os.path.join(compare.REPO, "..", "shared", "data", "broad")]
    files = []
    for p in paths:
        files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".csv")) if os.path.isdir(p) else [p]
    cmd = compare.ours_command()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for f in files:
            trial = compare.load(f)
            recording = os.path.join(folder, "multiclock.csv")
            with open(recording, "w") as out:
                out.write("# OpenCoreMotion CSV\n# version: 1\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z\n")
                out.write("\n".join(multiclock(trial, *spec)) + "\n")
            replayed = os.path.join(folder, "replay.csv")
            subprocess.run(cmd + ["replay", recording, "--frame", "magnetic-north", "--out", replayed] + offline,
                           check=True, capture_output=True)
            total, heading, inclination = score(trial, replayed)
            results.append((total, heading, inclination))
            if per_trial:
                print(f"{trial['name']:48}{total:8.2f}{heading:8.2f}{inclination:8.2f}")
    mean = np.mean(results, axis=0)
    print(f"{'offline ' if offline else ''}spec {','.join(map(str, spec))} (gyroscope, accelerometer, magnetometer window; offsets): "
          f"mean of {len(results)} trials, 9D total {mean[0]:.2f}, heading {mean[1]:.2f}, inclination {mean[2]:.2f}")


if __name__ == "__main__":
    main()
