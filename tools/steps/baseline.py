import numpy as np, scipy.signal as ss
from data import evaluate
def wpd(t, acc):
    g = np.arange(t[0], t[-1], 0.02)
    m = np.interp(g, t, np.linalg.norm(acc, axis=1))
    b, a = ss.butter(2, [0.6, 4], btype='band', fs=50)
    f = ss.filtfilt(b, a, m)
    pk, _ = ss.find_peaks(f, height=0.6, distance=int(0.27*50))
    keep = np.zeros(len(pk), bool)
    pt = g[pk]
    i = 0
    while i < len(pk):
        j = i
        while j + 1 < len(pk) and pt[j+1] - pt[j] <= 1.3: j += 1
        if j - i + 1 >= 4: keep[i:j+1] = True
        i = j + 1
    return pt[keep]
if __name__ == '__main__':
    evaluate(wpd, verbose=True)
