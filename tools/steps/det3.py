import numpy as np, scipy.signal as ss
import cache, data
from det import grid, signal, FS
from det2 import acf, stride_lag

P = dict(lo=0.6, hi=4.0, order=2, sig='norm', tau_e=2.0, tau_r=4.0, maxlag=125, minlag=20, near=0.9,
         rmin=0.2, theta=-0.1, e0=1.0,
         hmin=0.5, k=0.6, hmin2=0.3, k2=0.25, c=0.55, tmin=0.2,
         blo=0.5, bhi=1.7, rlo=0.7, rhi=1.4, nbout=4, rho=0.4, trim=0.3, delay=0.08)

def detect(t, acc, p=P, debug=False):
    g, A = grid(t, acc)
    x = signal(g, A, p)
    R = acf(x, p['tau_r'], p['maxlag'])
    ae = 1 / FS / p['tau_e']
    energy = p['e0']
    T = 0.55; rho = 0
    cand_t = None; cand_v = 0
    pending = []; heights = []; inbout = False; last = -1e9
    out = []; Ts = []
    for i in range(1, len(x) - 1):
        energy += (x[i]**2 - energy) * ae
        if i % 10 == 0:
            r = R[i]
            L = stride_lag(r, p)
            if L is not None:
                h = r[max(1, L//2-3):L//2+4].max() / r[0]
                T = L / FS / 2 if h > p['theta'] else L / FS
                rho = r[L] / r[0]
            else: rho = 0
        Ts.append(T)
        minint = max(p['tmin'], p['c'] * T)
        if cand_t is not None and g[i] - cand_t > minint:
            tt = cand_t; iv = tt - last
            regular = p['blo'] * T <= iv <= p['bhi'] * T
            if inbout and regular:
                out.append(tt)
            else:
                inbout = False
                if not regular: pending = []; heights = []
                pending.append(tt); heights.append(cand_v)
                if len(pending) >= p['nbout'] and rho >= p['rho']:
                    inbout = True
                    med = np.median(heights)
                    k0 = 0
                    while k0 < len(pending) - 1 and heights[k0] < p['trim'] * med: k0 += 1
                    out.extend(pending[k0:]); pending = []; heights = []
            last = tt
            cand_t = None
        if x[i] > x[i-1] and x[i] >= x[i+1]:
            thr = max(p['hmin'], p['k'] * np.sqrt(energy))
            if inbout and p['rlo'] * T <= g[i] - last <= p['rhi'] * T:
                thr = max(p['hmin2'], p['k2'] * np.sqrt(energy))
            if x[i] > thr:
                if cand_t is None:
                    if g[i] - last >= minint:
                        cand_t, cand_v = g[i], x[i]
                elif x[i] > cand_v:
                    cand_t, cand_v = g[i], x[i]
    if debug: return np.array(out) - p['delay'], np.array(Ts)
    return np.array(out) - p['delay']

def report(p=P, n=12):
    res, s = data.evaluate(lambda t, a: detect(t, a, p), verbose=True)
    res.sort(key=lambda r: -abs(r[5]))
    for r in res[:n]: print('  ', r[0], r[3], r[4], f'{r[5]:+.1f}')
    return res, s

if __name__ == '__main__':
    report()
