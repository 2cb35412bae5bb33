import numpy as np, scipy.signal as ss
import cache, data

FS = 50.0
P = dict(lo=0.6, hi=4.0, order=2, hmin=0.5, k=0.6, tau_e=2.0, c=0.55, tmin=0.22, gap=1.3, nbout=4,
         delay=0.0, sig='norm', reg=10.0)

def grid(t, acc):
    g = np.arange(t[0], t[-1], 1/FS)
    A = np.stack([np.interp(g, t, acc[:, i]) for i in range(3)], 1)
    return g, A

def signal(g, A, p):
    m = np.linalg.norm(A, axis=1) - 9.81
    if p['sig'] == 'vert':
        bl, al = ss.butter(1, 0.3, fs=FS)
        G = ss.lfilter(bl, al, A, axis=0, zi=np.outer(ss.lfilter_zi(bl, al), A[0]))[0]
        m = (A * G).sum(1) / np.linalg.norm(G, axis=1) - 9.81
    b, a = ss.butter(p['order'], [p['lo'], p['hi']], btype='band', fs=FS)
    return ss.lfilter(b, a, m)

def detect(t, acc, p=P, debug=False):
    g, A = grid(t, acc)
    x = signal(g, A, p)
    dt = 1 / FS
    ae = dt / p['tau_e']
    energy = 1.0
    T = 0.55           # step period estimate
    last = -1e9; lastv = 0
    cand_t = None; cand_v = 0
    pending = []; confirmed = []; inbout = False
    out = []
    for i in range(1, len(x) - 1):
        energy += (x[i]**2 - energy) * ae
        # accept pending candidate when window expired
        minint = max(p['tmin'], p['c'] * T)
        if cand_t is not None and g[i] - cand_t > minint:
            # candidate is final
            tt = cand_t
            if pending and tt - pending[-1] > max(p['gap'], 0) :
                pending = []; inbout = False
            if pending:
                iv = tt - pending[-1]
                T += (min(iv, 2.0) - T) * 0.3 if iv < 1.6 * T or not inbout else 0
            pending.append(tt)
            if inbout:
                out.append(tt)
            elif len(pending) >= p['nbout']:
                ivs = np.diff(pending[-p['nbout']:])
                if ivs.max() / ivs.min() < p['reg']:
                    inbout = True; out.extend(pending)
            cand_t = None
        if x[i] > x[i-1] and x[i] >= x[i+1]:
            thr = max(p['hmin'], p['k'] * np.sqrt(energy))
            if x[i] > thr:
                if cand_t is None:
                    if not pending or g[i] - pending[-1] >= minint:
                        cand_t, cand_v = g[i], x[i]
                elif x[i] > cand_v:
                    cand_t, cand_v = g[i], x[i]
    return np.array(out) - p['delay']

if __name__ == '__main__':
    import sys
    res, s = data.evaluate(detect, verbose=True)
    res.sort(key=lambda r: -abs(r[5]))
    for r in res[:15]: print(r)
