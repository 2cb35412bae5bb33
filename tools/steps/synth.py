import numpy as np, det4, json, sys
rng = np.random.default_rng(1)
G = 9.80665
def orient():
    v = rng.normal(size=3); return v / np.linalg.norm(v)
def walk(f, dur=60, rate=100, amp=0.25, noise=0.02):
    t = np.arange(0, dur, 1/rate); u = orient(); ph = 2*np.pi*f*t
    b = amp*np.sin(ph) + 0.3*amp*np.sin(2*ph+0.7)
    a = (1+b)[:, None]*u*G + rng.normal(scale=noise*G, size=(len(t), 3))
    return t, a
def pulses(f, dur=60, rate=100, amp=0.8, width=0.08):
    # impact-like: one half-sine push per step
    t = np.arange(0, dur, 1/rate); u = orient(); ph = (t*f) % 1
    b = np.where(ph < width*f, amp*np.sin(np.pi*ph/(width*f)), 0) 
    b = b - b.mean()
    a = (1+b)[:, None]*u*G + rng.normal(scale=0.02*G, size=(len(t), 3))
    return t, a
def shake(f, dur=20, rate=100, amp=1.5):
    t = np.arange(0, dur, 1/rate); u = orient(); s = orient()
    a = u*G + (amp*G*np.sin(2*np.pi*f*t))[:, None]*s + rng.normal(scale=0.02*G, size=(len(t), 3))
    return t, a
def tap(dur=30, rate=200, period=None, amp=3.0):
    t = np.arange(0, dur, 1/rate); u = orient(); a = np.tile(u*G, (len(t), 1)) + rng.normal(scale=0.01*G, size=(len(t), 3))
    tt = 1.0
    while tt < dur - 1:
        i = int(tt*rate); a[i:i+3] += u*amp*G*np.array([1, -0.6, 0.3])[:, None]
        tt += period if period else rng.uniform(0.3, 1.5)
    return t, a
def car(dur=60, rate=100):
    t = np.arange(0, dur, 1/rate); u = orient()
    import scipy.signal as ss
    b, aa = ss.butter(2, [1, 15], btype='band', fs=rate)
    v = ss.lfilter(b, aa, rng.normal(size=(len(t), 3)), axis=0)*0.08*G
    a = u*G + v
    return t, a
def count(t, a, p=det4.P, lo=None, hi=None):
    d = det4.detect(t, a, p); return len(d)
if __name__ == '__main__':
    p = dict(det4.P); p.update(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})
    for f in [0.5, 0.8, 1.0, 1.5, 2.0, 3.0, 3.5, 4.0]:
        print('walk', f, 'expected', int(60*f), 'sin', count(*walk(f), p=p), 'pulses', count(*pulses(f), p=p))
    for f in [3, 4, 5, 6, 8]: print('shake', f, count(*shake(f), p=p))
    print('tap irregular', count(*tap(), p=p), 'tap 2Hz', count(*tap(period=0.5), p=p), 'tap 1Hz', count(*tap(period=1.0), p=p))
    print('car', count(*car(), p=p))
