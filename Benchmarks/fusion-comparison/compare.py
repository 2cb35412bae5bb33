#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare OpenCoreMotion's attitude estimator with VQF, Fusion and Madgwick on BROAD trials.

Usage: python3 Benchmarks/fusion-comparison/compare.py [TRIAL_DIR_OR_FILES...] [--skip-madgwick]
       [--ours motionctl|scratch] [--rounds N]

Creates Benchmarks/.venv (gitignored) with vqf, imufusion, ahrs and numpy on first use and re-runs
itself there. Prints one table: per trial and mean RMS errors in degrees (BROAD metrics), ours vs
VQF (real-time 9D/6D and offline 9D), Fusion and Madgwick, then single-thread throughput of our
release build next to VQF's C++ core (updateBatch) measured in the same run.

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
def ours_command(kind):
    """The command that runs our evaluation: `motionctl evaluate` when it exists, otherwise a
    scratch executable (Benchmarks/.work/fusion-cli) calling MotionEvaluation's command line."""
    if kind in ("auto", "motionctl"):
        try:
            subprocess.run(["swift", "build", "-c", "release", "--product", "motionctl"], cwd=REPO,
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            exe = os.path.join(REPO, ".build", "release", "motionctl")
            probe = subprocess.run([exe, "evaluate", "--help"], capture_output=True)
            if probe.returncode == 0:
                return [exe]
        except subprocess.CalledProcessError:
            pass
        if kind == "motionctl":
            sys.exit("motionctl evaluate is not available")
    pkg = os.path.join(WORK, "fusion-cli")
    os.makedirs(os.path.join(pkg, "Sources", "fusion-cli"), exist_ok=True)
    with open(os.path.join(pkg, "Package.swift"), "w") as f:
        f.write('''// swift-tools-version: 6.0
import PackageDescription
let package = Package(name: "fusion-cli",
  dependencies: [.package(name: "OpenCoreMotion", path: "%s")],
  targets: [.executableTarget(name: "fusion-cli",
    dependencies: [.product(name: "MotionEvaluation", package: "OpenCoreMotion")])],
  swiftLanguageModes: [.v5])
''' % REPO)
    with open(os.path.join(pkg, "Sources", "fusion-cli", "main.swift"), "w") as f:
        f.write('import Foundation\nimport MotionEvaluation\n'
                'exit(FusionEvaluation.runCommandLine(Array(CommandLine.arguments.dropFirst())))\n')
    subprocess.run(["swift", "build", "-c", "release"], cwd=pkg, check=True, stdout=subprocess.DEVNULL)
    return [os.path.join(pkg, ".build", "release", "fusion-cli")]


def ours_evaluate(cmd, mode, paths):
    out = subprocess.run(cmd + ["evaluate", "--mode", mode, "--json"] + paths, check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out)
    return {t["name"]: (t["total"], t["heading"], t["inclination"]) for t in result["trials"]}


def ours_throughput(cmd, path):
    if os.path.basename(cmd[0]) == "motionctl":
        out = subprocess.run(cmd + ["evaluate", "--mode", "realtime9d", "--json", "--throughput", path],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)["throughput"]
    out = subprocess.run(cmd + ["throughput", "--json", "--repetitions", "5", path], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["samplesPerSecond"]


def vqf_throughput(trial, Ts, repetitions=5):
    import vqf
    best = float("inf")
    for _ in range(repetitions):
        v = vqf.VQF(Ts)
        start = time.perf_counter()
        v.updateBatch(trial["gyr"], trial["acc"], trial["mag"])
        best = min(best, time.perf_counter() - start)
    return len(trial["gyr"]) / best


def main():
    args = [a for a in sys.argv[1:]]
    skip_madgwick = "--skip-madgwick" in args
    ours_kind = "auto"
    rounds = 3
    if "--ours" in args:
        ours_kind = args[args.index("--ours") + 1]
    if "--rounds" in args:
        rounds = int(args[args.index("--rounds") + 1])
    paths = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--ours", "--rounds"))]
    if not paths:
        paths = [os.path.join(REPO, "..", "shared", "data", "broad")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".csv"))
        else:
            files.append(p)
    cmd = ours_command(ours_kind)
    ours = {m: ours_evaluate(cmd, m, files) for m in ["realtime9d", "realtime6d", "offline9d"]}

    columns = ["ours9", "ours9i", "vqf9", "vqf9i", "ours6", "vqf6", "oursoff9", "vqfoff9", "fusion9", "madg9"]
    rows = {}
    madgwick_frame = None
    for path in files:
        trial = load(path)
        Ts = float(np.median(np.diff(trial["t"][:1000])))
        ref = trial["ref"]
        mv = trial["movement"]
        name = trial["name"]
        v = run_vqf(trial, Ts)
        row = {}
        row["ours9"], _, row["ours9i"] = ours["realtime9d"][name]
        row["ours6"] = ours["realtime6d"][name][0]
        row["oursoff9"] = ours["offline9d"][name][0]
        row["vqf9"], _, row["vqf9i"] = metrics(v["vqf9"], ref, mv, False)
        row["vqf6"] = metrics(v["vqf6"], ref, mv, True)[0]
        row["vqfoff9"] = metrics(v["vqfoff9"], ref, mv, False)[0]
        row["fusion9"] = metrics(run_fusion(trial, Ts), ref, mv, False)[0]
        if skip_madgwick:
            row["madg9"] = float("nan")
        else:
            q = run_madgwick(trial, Ts)
            if madgwick_frame is None:
                madgwick_frame = best_frame(q, trial)
            row["madg9"] = metrics(apply_frame(q, madgwick_frame), ref, mv, False)[0]
        rows[name] = row
        print("done", name, file=sys.stderr)

    header = ("trial", "ours 9D", "incl", "VQF 9D", "incl", "ours 6D*", "VQF 6D*", "ours off 9D",
              "VQF off 9D", "Fusion 9D", "Madgwick 9D")
    width = max(len(n) for n in rows) + 2
    print("RMS errors in degrees on BROAD (Laidig et al. 2021, CC BY 4.0); * = heading offset removed")
    print(header[0].ljust(width) + "".join(h.rjust(12) for h in header[1:]))
    for name, row in rows.items():
        print(name.ljust(width) + "".join(f"{row[c]:12.2f}" for c in columns))
    means = {c: float(np.nanmean([r[c] for r in rows.values()])) for c in columns}
    print("mean".ljust(width) + "".join(f"{means[c]:12.2f}" for c in columns))
    worst = max(rows.values(), key=lambda r: r["ours9"] - r["vqf9"])
    print(f"largest real-time 9D excess over VQF on one trial: {max(r['ours9'] - r['vqf9'] for r in rows.values()):+.2f} deg")
    if madgwick_frame is not None:
        print(f"(Madgwick output read as sensor-to-{madgwick_frame[0]}{' conjugated' if madgwick_frame[1] else ''})")

    # Throughput: interleave ours and VQF, best of `rounds` each, on the first trial.
    trial = load(files[0])
    Ts = float(np.median(np.diff(trial["t"][:1000])))
    ours_rate, vqf_rate = 0.0, 0.0
    for _ in range(rounds):
        ours_rate = max(ours_rate, ours_throughput(cmd, files[0]))
        vqf_rate = max(vqf_rate, vqf_throughput(trial, Ts))
    print(f"throughput (single thread, {trial['name']}, best of {rounds} rounds x 5 runs):")
    print(f"  ours (release, real-time 9D, attitude read every sample): {ours_rate:,.0f} samples/s")
    print(f"  VQF C++ updateBatch (9D):                                 {vqf_rate:,.0f} samples/s")
    print(f"  ratio: {ours_rate / vqf_rate:.2f}x")


if __name__ == "__main__":
    main()
