#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare OpenCoreMotion's attitude estimator with VQF, Fusion and Madgwick on BROAD trials.

Usage: python3 Benchmarks/fusion-comparison/compare.py [TRIAL_DIR_OR_FILES...] [--rates K,K,...]
       [--per-trial] [--others] [--rounds N] [--no-throughput]

Creates Benchmarks/.venv (gitignored) with vqf, imufusion, ahrs and numpy on first use and re-runs
itself there. For each decimation factor K (default 1,3,6,14: 286, 95, 48 and 20 Hz on BROAD) the
trials are decimated (gyroscope, accelerometer and magnetometer averaged over each window of K
samples; time, reference and movement flag from the window's last sample), ours is run through
`motionctl evaluate --decimate K` (the same decimation in Swift) and VQF on the decimated arrays
here; RMS errors in degrees (BROAD metrics), ours next to VQF (real-time 9D/6D and offline 9D), and
with --others Fusion and Madgwick. Then single-thread throughput of our release build next to VQF's
C++ core (updateBatch) at the native rate, measured interleaved in the same run.

BROAD: D. Laidig, M. Caruso, A. Cereatti, T. Seel, "BROAD - A Benchmark for Robust Inertial
Orientation Estimation", Data 6(7), 2021, doi:10.3390/data6070072 (CC BY 4.0).
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(REPO, "Benchmarks", ".venv")
WORK = os.path.join(REPO, "Benchmarks", ".work")
PACKAGES = ["vqf", "imufusion", "ahrs", "numpy"]


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(python):
        print("creating", VENV, file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "-q"] + PACKAGES)
    os.execv(python, [python] + sys.argv)


ensure_venv()

import numpy as np  # noqa: E402


# ---------------------------------------------------------------- quaternions (w, x, y, z)
def qmul(a, b):
    w1, x1, y1, z1 = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    w2, x2, y2, z2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=-1)


def qconj(q):
    return q * np.array([1, -1, -1, -1])


def about_z(angle):
    return np.array([np.cos(angle / 2), 0, 0, np.sin(angle / 2)])


ENU_FROM_NWU = about_z(np.pi / 2)
ENU_FROM_NED = np.array([0, np.sqrt(0.5), np.sqrt(0.5), 0])  # N->y, E->x, D->-z


def metrics(q_est, q_ref, movement, remove_heading):
    """BROAD metrics in degrees: d = q_est * conj(q_ref) in the earth frame."""
    valid = movement & np.all(np.isfinite(q_ref), axis=1) & np.all(np.isfinite(q_est), axis=1)
    e = q_est[valid]
    r = q_ref[valid]
    d = qmul(e, qconj(r))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    if remove_heading:
        angle = 2 * np.arctan2(d[:, 3], d[:, 0])
        mean = np.arctan2(np.sin(angle).sum(), np.cos(angle).sum())
        d = qmul(about_z(-mean)[None, :], d)
    w = np.abs(d[:, 0])
    total = 2 * np.arccos(np.clip(w, 0, 1))
    heading = 2 * np.arctan(np.abs(d[:, 3] / d[:, 0]))
    incl = 2 * np.arccos(np.clip(np.sqrt(d[:, 0] ** 2 + d[:, 3] ** 2), 0, 1))
    rms = lambda x: float(np.degrees(np.sqrt(np.mean(x ** 2))))
    return rms(total), rms(heading), rms(incl)


def load(path):
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    c = lambda a, b: np.ascontiguousarray(d[:, a:b])
    return dict(name=os.path.splitext(os.path.basename(path))[0], t=d[:, 0], gyr=c(1, 4), acc=c(4, 7),
                mag=c(7, 10), ref=c(10, 14), movement=d[:, 14] > 0.5)


def decimate(trial, k):
    """Averages gyroscope, accelerometer and magnetometer over each window of k samples (windows
    from the first sample, an incomplete last window dropped); time, reference and movement flag
    from the window's last sample. Matches EvaluationTrial.decimated(by:) in MotionEvaluation."""
    if k <= 1:
        return trial
    n = len(trial["t"]) // k
    mean = lambda x: np.ascontiguousarray(x[:n * k].reshape(n, k, -1).mean(axis=1))
    last = slice(k - 1, n * k, k)
    return dict(name=trial["name"], t=trial["t"][last], gyr=mean(trial["gyr"]), acc=mean(trial["acc"]),
                mag=mean(trial["mag"]), ref=np.ascontiguousarray(trial["ref"][last]),
                movement=trial["movement"][last])


# ---------------------------------------------------------------- the other estimators
def run_vqf(trial, Ts):
    import vqf
    out = {}
    v = vqf.VQF(Ts)
    out["vqf9"] = v.updateBatch(trial["gyr"], trial["acc"], trial["mag"])["quat9D"]
    v = vqf.VQF(Ts)
    out["vqf6"] = v.updateBatch(trial["gyr"], trial["acc"])["quat6D"]
    out["vqfoff9"] = vqf.offlineVQF(trial["gyr"], trial["acc"], trial["mag"], Ts)["quat9D"]
    return out


def run_fusion(trial, Ts):
    """x-io Fusion (imufusion 1.3.x API): its gyroscope bias (offset) correction, then the AHRS in
    ENU with the settings of Fusion's own examples (gain 0.5, gyroscope range 2000 deg/s,
    acceleration and magnetic rejection 10 deg, rejection timeout 5 s in samples)."""
    import imufusion
    rate = 1 / Ts
    bias_settings = imufusion.BiasSettings()
    bias_settings.sample_rate = rate
    bias = imufusion.Bias()
    bias.set_settings(bias_settings)
    settings = imufusion.AhrsSettings()
    settings.convention = imufusion.CONVENTION_ENU
    settings.sample_rate = rate
    settings.gain = 0.5
    settings.gyroscope_range = 2000
    settings.acceleration_rejection = 10
    settings.magnetic_rejection = 10
    settings.rejection_timeout = int(round(5 * rate))
    ahrs = imufusion.Ahrs()
    ahrs.set_settings(settings)
    gyr = np.degrees(trial["gyr"])
    acc = trial["acc"] / 9.80665
    mag = trial["mag"]
    q = np.empty((len(gyr), 4))
    for i in range(len(gyr)):
        g = bias.update(gyr[i])
        ahrs.update(g, acc[i], mag[i])
        q[i] = ahrs.get_quaternion()
    return q


def run_madgwick(trial, Ts):
    from ahrs.filters import Madgwick
    return Madgwick(gyr=trial["gyr"], acc=trial["acc"], mag=trial["mag"], frequency=1 / Ts).Q


def best_frame(q, trial):
    """The constant earth-frame convention (ENU/NWU/NED, q or its conjugate) of a package whose
    output convention is not documented precisely enough; chosen once, on the first trial."""
    candidates = {}
    for name, f in [("ENU", np.array([1.0, 0, 0, 0])), ("NWU", ENU_FROM_NWU), ("NED", ENU_FROM_NED)]:
        for conj in (False, True):
            qq = qconj(q) if conj else q
            candidates[(name, conj)] = qmul(f[None, :], qq)
    scores = {k: metrics(v, trial["ref"], trial["movement"], False)[0] for k, v in candidates.items()}
    return min(scores, key=scores.get)


def apply_frame(q, key):
    f = {"ENU": np.array([1.0, 0, 0, 0]), "NWU": ENU_FROM_NWU, "NED": ENU_FROM_NED}[key[0]]
    return qmul(f[None, :], qconj(q) if key[1] else q)


# ---------------------------------------------------------------- ours
def ours_command():
    """Our evaluation: `motionctl evaluate` from a release build of this checkout, or the binary
    named by $MOTIONCTL (e.g. a build in another build folder)."""
    if os.environ.get("MOTIONCTL"):
        return [os.environ["MOTIONCTL"]]
    subprocess.run(["swift", "build", "-c", "release", "--product", "motionctl"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    return [os.path.join(REPO, ".build", "release", "motionctl")]


def ours_start(cmd, mode, paths, k):
    """Starts `motionctl evaluate` in the background (it runs while VQF runs here)."""
    return subprocess.Popen(cmd + ["evaluate", "--mode", mode, "--json", "--decimate", str(k)] + paths,
                            stdout=subprocess.PIPE, text=True)


def ours_result(process):
    out, _ = process.communicate()
    if process.returncode != 0:
        sys.exit("motionctl evaluate failed")
    return {t["name"]: (t["total"], t["heading"], t["inclination"]) for t in json.loads(out)["trials"]}


def ours_throughput(cmd, path):
    out = subprocess.run(cmd + ["evaluate", "--mode", "realtime9d", "--json", "--throughput", path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["throughput"]


def vqf_throughput(trial, Ts, repetitions=5):
    import vqf
    best = float("inf")
    for _ in range(repetitions):
        v = vqf.VQF(Ts)
        start = time.perf_counter()
        v.updateBatch(trial["gyr"], trial["acc"], trial["mag"])
        best = min(best, time.perf_counter() - start)
    return len(trial["gyr"]) / best


COLUMNS = ["ours9", "ours9i", "vqf9", "vqf9i", "ours6", "vqf6", "oursoff9", "vqfoff9"]
HEADER = ["ours 9D", "incl", "VQF 9D", "incl", "ours 6D*", "VQF 6D*", "ours off 9D", "VQF off 9D"]
# The four columns where ours must be below VQF's: (ours, VQF).
PAIRS = [("ours9", "vqf9"), ("ours9i", "vqf9i"), ("ours6", "vqf6"), ("oursoff9", "vqfoff9")]


def run_rate(cmd, files, trials, k, others, madgwick_frame):
    processes = {m: ours_start(cmd, m, files, k) for m in ["realtime9d", "realtime6d", "offline9d"]}
    rows = {}
    for full in trials:
        trial = decimate(full, k)
        Ts = float(np.median(np.diff(trial["t"][:1000])))
        ref, mv = trial["ref"], trial["movement"]
        v = run_vqf(trial, Ts)
        row = {}
        row["vqf9"], _, row["vqf9i"] = metrics(v["vqf9"], ref, mv, False)
        row["vqf6"] = metrics(v["vqf6"], ref, mv, True)[0]
        row["vqfoff9"] = metrics(v["vqfoff9"], ref, mv, False)[0]
        if others:
            row["fusion9"] = metrics(run_fusion(trial, Ts), ref, mv, False)[0]
            q = run_madgwick(trial, Ts)
            if madgwick_frame[0] is None:
                madgwick_frame[0] = best_frame(q, trial)
            row["madg9"] = metrics(apply_frame(q, madgwick_frame[0]), ref, mv, False)[0]
        rows[trial["name"]] = row
    ours = {m: ours_result(p) for m, p in processes.items()}
    for name, row in rows.items():
        row["ours9"], _, row["ours9i"] = ours["realtime9d"][name]
        row["ours6"] = ours["realtime6d"][name][0]
        row["oursoff9"] = ours["offline9d"][name][0]
    return rows


def main():
    args = sys.argv[1:]
    per_trial = "--per-trial" in args
    others = "--others" in args
    throughput = "--no-throughput" not in args
    rounds, rates = 3, [1, 3, 6, 14]
    valued = ("--rounds", "--rates")
    if "--rounds" in args:
        rounds = int(args[args.index("--rounds") + 1])
    if "--rates" in args:
        rates = [int(k) for k in args[args.index("--rates") + 1].split(",")]
    paths = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in valued)]
    if not paths:
        paths = [os.path.join(REPO, "..", "shared", "data", "broad")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".csv"))
        else:
            files.append(p)
    cmd = ours_command()
    trials = [load(f) for f in files]
    native = float(np.median(np.diff(trials[0]["t"][:1000])))
    columns = COLUMNS + (["fusion9", "madg9"] if others else [])
    header = HEADER + (["Fusion 9D", "Madgwick 9D"] if others else [])
    madgwick_frame = [None]
    summary = []
    print(f"RMS errors in degrees on BROAD (Laidig et al. 2021, CC BY 4.0), {len(files)} trials; "
          "* = heading offset removed")
    for k in rates:
        rows = run_rate(cmd, files, trials, k, others, madgwick_frame)
        rate = 1 / (native * k)
        means = {c: float(np.mean([r[c] for r in rows.values()])) for c in columns}
        summary.append((k, rate, means))
        if per_trial:
            width = max(len(n) for n in rows) + 2
            print(f"\n{rate:.0f} Hz (k = {k})")
            print("trial".ljust(width) + "".join(h.rjust(12) for h in header))
            for name, row in rows.items():
                print(name.ljust(width) + "".join(f"{row[c]:12.2f}" for c in columns))
            print("mean".ljust(width) + "".join(f"{means[c]:12.2f}" for c in columns))
            excess = max(r["ours9"] - r["vqf9"] for r in rows.values())
            print(f"largest real-time 9D excess over VQF on one trial: {excess:+.2f} deg")
        print(f"done {rate:.0f} Hz", file=sys.stderr)

    print("\nmean of the trials per rate")
    print("rate".ljust(16) + "".join(h.rjust(12) for h in header) + "  below VQF")
    for k, rate, means in summary:
        wins = sum(means[a] < means[b] for a, b in PAIRS)
        label = f"{rate:.0f} Hz (k={k})"
        print(label.ljust(16) + "".join(f"{means[c]:12.2f}" for c in columns) + f"  {wins}/{len(PAIRS)}")
    if madgwick_frame[0] is not None:
        f = madgwick_frame[0]
        print(f"(Madgwick output read as sensor-to-{f[0]}{' conjugated' if f[1] else ''})")

    if not throughput:
        return
    # Throughput: interleave ours and VQF, best of `rounds` each, on the first trial (native rate).
    trial = trials[0]
    ours_rate, vqf_rate = 0.0, 0.0
    for _ in range(rounds):
        ours_rate = max(ours_rate, ours_throughput(cmd, files[0]))
        vqf_rate = max(vqf_rate, vqf_throughput(trial, native))
    print(f"throughput (single thread, {trial['name']}, best of {rounds} rounds x 5 runs):")
    print(f"  ours (release, real-time 9D, attitude read every sample): {ours_rate:,.0f} samples/s")
    print(f"  VQF C++ updateBatch (9D):                                 {vqf_rate:,.0f} samples/s")
    print(f"  ratio: {ours_rate / vqf_rate:.2f}x")


if __name__ == "__main__":
    main()
