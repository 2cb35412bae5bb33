"""Mirror of Sources/MotionDetectors/StepDetector.swift (same order of operations), for tuning."""
import numpy as np, scipy.signal as ss
import cache, data

P = dict(rate=50.0, lo=0.6, hi=3.5, tau_e=2.0, tau_r=4.0, minlag=0.4, maxlag=2.5, near=0.9, rmin=0.2,
         theta=-0.1, rho=0.5, hmin=0.5, k=0.6, hmin2=0.2, k2=0.15, rlo=0.7, rhi=1.4, tmin=0.2, c=0.55,
         blo=0.5, bhi=1.7, nbout=3, trim=0.2, delay=0.08, cap=16, hfc=6.0, hfmax=3.0, fill=0.0, tfloor=0.25,
         nbout2=4, rho2=0.3, e2=2.0, tfast=0.42, thfastrel=0.35, erun=4.0,
         gapmin=0.25, gapmax=1.0, bridgemax=3, bridgetol=0.25)

def biquad(kind, fc, fs):
    k = np.tan(np.pi * fc / fs); n = 1 / (1 + np.sqrt(2) * k + k * k)
    if kind == 'lp': b = [k*k*n, 2*k*k*n, k*k*n]
    else: b = [n, -2*n, n]
    a = [1, 2*(k*k-1)*n, (1-np.sqrt(2)*k+k*k)*n]
    return np.array(b), np.array(a)

def signal(t, acc, p):
    """|a| (the Swift code), or variants: 'vert' = projection on a first-order low-pass gravity
    estimate (cut-off `gfc` Hz), 'hv' = vertical + `hw` x horizontal magnitude."""
    mode = p.get('mode', 'mag')
    if mode == 'mag': return np.linalg.norm(acc, axis=1)
    tau = 1 / (2 * np.pi * p.get('gfc', 0.3)); gr = np.zeros_like(acc); s = acc[0].copy()
    alpha = 1 - np.exp(-np.clip(np.diff(t, prepend=t[0]), 0, 1) / tau)
    for i in range(len(t)):
        s += (acc[i] - s) * alpha[i]; gr[i] = s
    v = (acc * (gr / np.linalg.norm(gr, axis=1)[:, None])).sum(1)
    if mode == 'vert': return v
    return v + p.get('hw', 0) * np.sqrt(np.maximum((acc * acc).sum(1) - v * v, 0))

def chain(t, acc, p):
    fs = p['rate']
    g = np.arange(t[0], t[-1] + 1e-12, 1 / fs)
    m = np.interp(g, t, signal(t, acc, p))
    bh, ah = biquad('hp', p['lo'], fs); bl, al = biquad('lp', p['hi'], fs)
    y = ss.lfilter(bh, ah, m - m[0])   # settled at the first magnitude: same as filtering m - m0 from rest
    y = ss.lfilter(bl, al, y)
    return g, y

def acf(x, f, n):
    R = np.zeros((len(x), n + 1))
    for L in range(n + 1):
        pr = np.zeros(len(x)); pr[L:] = x[L:] * x[:len(x) - L]
        R[:, L] = ss.lfilter([f], [1, -(1 - f)], pr)
    return R

def detect(t, acc, p=P, debug=False):
    fs = p['rate']; dt = 1 / fs
    g, y = chain(t, acc, p)
    shortest = int(round(p['minlag'] * fs)); longest = max(shortest + 2, int(round(p['maxlag'] * fs)))
    R = acf(y, min(1, 1 / (p['tau_r'] * fs)), longest)
    b6, a6 = biquad('hp', p['hfc'], fs); hfs = ss.lfilter(b6, a6, np.interp(g, t, np.linalg.norm(acc, axis=1)) - np.linalg.norm(acc[0]))
    hf = 0.0
    fe = min(1, 1 / (p['tau_e'] * fs)); upd = max(1, int(round(fs / 5)))
    energy = 1.0; T = 0.55; rho = 0.0
    x0 = x1 = x2 = 0.0
    cand = None; candh = 0; last = -np.inf; inbout = False
    pend = []; out = []; Ts = []; lasth = 0.0; lead = None
    # Input holes short enough to interpolate across but long enough to hide a step (Swift:
    # shortestBridgedGap ... longestInputGap); the Swift code remembers the latest one seen.
    dts = np.diff(t); hi_ = np.where((dts >= p['gapmin']) & (dts <= p['gapmax']))[0]
    holes = [(t[i], t[i + 1]) for i in hi_]; used = set(); held_until = -np.inf
    for n in range(len(y)):
        yy = y[n]; tg = g[n]
        energy += (yy * yy - energy) * fe
        hf += (hfs[n] ** 2 - hf) * fe
        for h in holes:  # Swift: periodHeldUntil, set when a gap arrives inside a bout
            if h[1] <= tg < h[1] + dt and inbout: held_until = h[1] + longest * dt
        held = tg < held_until
        if (n + 1) % upd == 0 and not held:
            r = R[n]; r0 = r[0]
            if r0 > 1e-9:
                seg = r[shortest:longest + 1]; best = seg.max(); bl = shortest + int(np.argmax(seg))
                if best >= p['rmin'] * r0:
                    L = bl
                    for c in range(shortest, longest):
                        if (c == shortest or r[c] >= r[c-1]) and r[c] >= r[c+1] and r[c] >= p['near'] * best: L = c; break
                    h = L // 2
                    hv = r[max(1, h - 3):min(h + 3, longest) + 1].max()
                    # A halving into a running cadence (< tfast) needs running's evidence: alike steps
                    # (hv >= thfastrel * r[L]) or running's strength (RMS >= erun).
                    fast_unproven = L * dt / 2 < p['tfast'] and hv < p['thfastrel'] * r[L] and np.sqrt(energy) < p['erun']
                    T = L * dt / (2 if hv / r0 > p['theta'] and not fast_unproven else 1)
                    rho = r[L] / r0
                else: rho = 0
            else: rho = 0
        Ts.append(T)
        minint = max(p['tmin'], p['c'] * T)
        if cand is not None and tg - cand > minint:
            tt = cand; cand = None
            prevt, prevh = last, lasth
            iv = tt - last; last = tt; lasth = candh
            regular = p['blo'] <= iv / T <= p['bhi'] and hf < p['hfmax'] * energy and T >= p['tfloor']
            seen = [h for h in holes if h[1] <= tg]
            hole = seen[-1] if seen and seen[-1] not in used else None
            bridged = None
            if inbout and not regular and hole is not None and hole[1] > prevt and hole[0] < tt \
                    and T >= p['tfloor'] and hf < p['hfmax'] * energy:
                q = iv / T; nq = round(q)
                if 1.5 <= q < p['bridgemax'] + 0.5 and abs(q - nq) <= p['bridgetol']:
                    hid = [prevt + iv * k / nq for k in range(1, nq)]
                    if all(hole[0] - 0.5 * T <= x <= hole[1] + 0.5 * T for x in hid):
                        bridged = hid; used.add(hole)
            if inbout and regular: out.append(tt)
            elif bridged is not None: out.extend(bridged); out.append(tt)
            elif inbout and hf < p['hfmax'] * energy and p['bhi'] < iv / T <= p['fill']:
                out.append(tt - iv / 2); out.append(tt)
            else:
                inbout = False
                if not regular:
                    pend = []; lead = (prevt, prevh) if np.isfinite(prevt) else None
                pend.append((tt, candh))
                if len(pend) > p['cap']: pend.pop(0)
                if (len(pend) >= p['nbout'] and rho >= p['rho']) or (len(pend) >= p.get('nbout2', 99) and rho >= p.get('rho2', 9) and np.sqrt(energy) >= p.get('e2', 0)):
                    inbout = True
                    med = np.median([h for _, h in pend]); k0 = 0
                    while k0 < len(pend) - 1 and pend[k0][1] < p['trim'] * med: k0 += 1
                    if k0 == 0 and lead is not None and p.get('lead', 0) > 0:
                        # Variant (not in the Swift code): also count the peak just before the run
                        # when its interval fits the run's own cadence (the stale period rejected it).
                        m = np.median(np.diff([x for x, _ in pend])); gap = pend[0][0] - lead[0]
                        if (p['lead_lo'] * m <= gap <= p['lead_hi'] * m and lead[1] >= p['lead'] * med
                                and tg - lead[0] + p['delay'] <= p.get('maxlat', np.inf)):
                            out.append(lead[0])
                    lead = None
                    out.extend(x for x, _ in pend[k0:]); pend = []
        x0, x1, x2 = x1, x2, yy
        if x1 > x0 and x1 >= x2:
            pt = tg - dt; rms = np.sqrt(energy)
            thr = max(p['hmin'], p['k'] * rms); since = pt - last
            if inbout and p['rlo'] * T <= since <= p['rhi'] * T: thr = max(p['hmin2'], p['k2'] * rms)
            if x1 > thr:
                if cand is None:
                    if since >= minint: cand, candh = pt, x1
                elif x1 > candh: cand, candh = pt, x1
    res = np.array(out) - p['delay']
    return (res, np.array(Ts)) if debug else res

def report(p=P, n=12):
    res, s = data.evaluate(lambda t, a: detect(t, a, p), verbose=True)
    res.sort(key=lambda r: -abs(r[5]))
    for r in res[:n]: print('  ', r[0], r[3], r[4], f'{r[5]:+.1f}')
    return res, s

if __name__ == '__main__':
    report()
