import numpy as np, scipy.signal as ss, det4, data, cache, synth
def ratio(t, a, p=det4.P, fc=6.0, tau=2.0):
    fs = p['rate']; g = np.arange(t[0], t[-1], 1/fs)
    m = np.interp(g, t, np.linalg.norm(a, axis=1))
    bh, ah = det4.biquad('hp', p['lo'], fs); bl, al = det4.biquad('lp', p['hi'], fs)
    y = ss.lfilter(bl, al, ss.lfilter(bh, ah, m - m[0]))
    b6, a6 = det4.biquad('hp', fc, fs); h = ss.lfilter(b6, a6, m - m[0])
    f = 1/(tau*fs)
    eb = ss.lfilter([f], [1, -(1-f)], y*y); eh = ss.lfilter([f], [1, -(1-f)], h*h)
    return g, eh/np.maximum(eb, 1e-9)
if __name__ == '__main__':
    allr = {}
    for r in data.index():
        t, a = data.load(r['file']); g, q = ratio(t, a)
        st, w = cache.gt(r['file']); st = st[w == 1]
        sel = (g > st[0] + 2) & (g < st[-1])
        allr[r['file']] = np.percentile(q[sel], 99)
    v = np.array(list(allr.values()))
    print('real walking: 99th pct of ratio per recording: max', v.max(), 'median', np.median(v))
    print(sorted(allr.items(), key=lambda x: -x[1])[:5])
    for name, (t, a) in [('shake3', synth.shake(3)), ('shake4', synth.shake(4)), ('shake5', synth.shake(5)), ('shake8', synth.shake(8)), ('tap2', synth.tap(period=0.5)), ('walk2', synth.walk(2)), ('run4', synth.walk(4))]:
        g, q = ratio(t, a); print(name, 'median ratio', np.median(q[g > 3]))
