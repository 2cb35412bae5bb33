import numpy as np, scipy.signal as ss
import cache, data
from det import grid, signal, FS

P = dict(lo=0.6, hi=4.0, order=2, hmin=0.5, k=0.6, tau_e=2.0, c=0.55, tmin=0.2, gap=1.3, nbout=4,
         delay=0.0, sig='norm', tau_r=4.0, maxlag=125, minlag=20, near=0.9, e0=1.0, gapT=2.5, rmin=0.2, theta=-0.1, trim=0.5, rlo=0.7, rhi=1.4, hmin2=0.3, k2=0.25)

def acf(x, tau, maxlag):
    al = 1/(FS*tau)
    R = np.zeros((len(x), maxlag+1))
    for L in range(maxlag+1):
        p = np.zeros(len(x)); p[L:] = x[L:]*x[:len(x)-L]
        R[:, L] = ss.lfilter([al], [1, -(1-al)], p)
    return R

def stride_lag(r, p):
    # smallest local max within `near` of the global max over [minlag, maxlag]
    seg = r[p['minlag']:]
    m = seg.max()
    if m < p['rmin'] * r[0]: return None
    for L in range(p['minlag'] + 1, len(r) - 1):
        if r[L] >= r[L-1] and r[L] >= r[L+1] and r[L] >= p['near'] * m:
            return L
    return p['minlag'] + int(np.argmax(seg))

def detect(t, acc, p=P, debug=False):
    g, A = grid(t, acc)
    x = signal(g, A, p)
    R = acf(x, p['tau_r'], p['maxlag'])
    dt = 1 / FS
    ae = dt / p['tau_e']
    energy = p['e0']
    T = 0.55
    cand_t = None; cand_v = 0
    pending = []; heights = []; inbout = False
    out = []; Ts = []
    for i in range(1, len(x) - 1):
        energy += (x[i]**2 - energy) * ae
        if i % 10 == 0:
            r = R[i]
            L = stride_lag(r, p)
            if L is not None:
                h = r[max(1, L//2-3):L//2+4].max() / r[0]
                T = L / FS / 2 if h > p['theta'] else L / FS
        Ts.append(T)
        minint = max(p['tmin'], p['c'] * T)
        gap = max(p['gap'], p['gapT'] * T)
        if cand_t is not None and g[i] - cand_t > minint:
            tt = cand_t
            if pending and tt - pending[-1] > gap:
                pending = []; heights = []; inbout = False
            pending.append(tt); heights.append(cand_v)
            if inbout: out.append(tt)
            elif len(pending) >= p['nbout']:
                inbout = True
                med = np.median(heights[-p['nbout']:])
                k0 = 0
                while k0 < len(pending) - 1 and heights[k0] < p['trim'] * med: k0 += 1
                out.extend(pending[k0:])
            cand_t = None
        if x[i] > x[i-1] and x[i] >= x[i+1]:
            thr = max(p['hmin'], p['k'] * np.sqrt(energy))
            if inbout and pending and p['rlo'] * T <= g[i] - pending[-1] <= p['rhi'] * T:
                thr = max(p['hmin2'], p['k2'] * np.sqrt(energy))
            if x[i] > thr:
                if cand_t is None:
                    if not pending or g[i] - pending[-1] >= minint:
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
