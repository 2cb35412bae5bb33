import numpy as np, sys
from prototype import dataset, CLASSES
rows = dataset()
K = 5

def expand(X):
    return X

def train(X, y, w, iters=800, lr=0.5, l2=1e-3, hidden=0, seed=0):
    mu = X.mean(0); sd = X.std(0) + 1e-9
    Z = (X - mu) / sd
    n, d = Z.shape
    Y = np.eye(K)[y]
    rng = np.random.default_rng(seed)
    if hidden:
        W1 = rng.normal(0, 1/np.sqrt(d), (d, hidden)); b1 = np.zeros(hidden)
        W2 = rng.normal(0, 1/np.sqrt(hidden), (hidden, K)); b2 = np.zeros(K)
        params = [W1, b1, W2, b2]; m = [np.zeros_like(p) for p in params]; v = [np.zeros_like(p) for p in params]
        for it in range(iters):
            Hh = np.tanh(Z @ W1 + b1); L = Hh @ W2 + b2
            L -= L.max(1, keepdims=True); P = np.exp(L); P /= P.sum(1, keepdims=True)
            G = (P - Y) * w[:, None] / w.sum()
            gW2 = Hh.T @ G + l2 * W2; gb2 = G.sum(0)
            GH = (G @ W2.T) * (1 - Hh**2)
            gW1 = Z.T @ GH + l2 * W1; gb1 = GH.sum(0)
            for i, g in enumerate([gW1, gb1, gW2, gb2]):
                m[i] = 0.9*m[i] + 0.1*g; v[i] = 0.999*v[i] + 0.001*g*g
                params[i] -= 0.01 * (m[i]/(1-0.9**(it+1))) / (np.sqrt(v[i]/(1-0.999**(it+1))) + 1e-8)
        return ("mlp", mu, sd, params)
    W = np.zeros((d, K)); b = np.zeros(K)
    for it in range(iters):
        L = Z @ W + b; L -= L.max(1, keepdims=True); P = np.exp(L); P /= P.sum(1, keepdims=True)
        G = (P - Y) * w[:, None] / w.sum()
        W -= lr * (Z.T @ G + l2 * W); b -= lr * G.sum(0)
    return ("lr", mu, sd, [W, b])

def logprob(model, X):
    kind, mu, sd, p = model
    Z = (X - mu) / sd
    if kind == "mlp":
        L = np.tanh(Z @ p[0] + p[1]) @ p[2] + p[3]
    else:
        L = Z @ p[0] + p[1]
    L -= L.max(1, keepdims=True)
    return L - np.log(np.exp(L).sum(1, keepdims=True))

import os
AUTO_STILL = float(os.environ.get('AS', '0.002'))
def smooth(lp, allowed, stay=0.97, temp=1.0):
    # HMM forward filter over allowed classes
    post = np.full(K, 1.0/K); out = []
    for l in lp:
        T = np.full((K, K), (1 - stay) / (K - 1)); np.fill_diagonal(T, stay)
        T[4, 0] = AUTO_STILL; T[4, 4] = 1 - T[4, :4].sum()
        prior = post @ T
        e = np.exp(temp * (l - l.max()))
        post = prior * e; post /= post.sum(); out.append(post.copy())
    return np.array(out)

def weights(y, src):
    w = np.ones(len(y))
    for s in set(src):
        for c in range(K):
            m = (y == c) & (src == s)
            if m.sum(): w[m] = 1.0 / m.sum()
    return w

def run(hidden=0, iters=800, stay=0.9, temp=1.0):
    folds = [("motionsense", [f"S{a:02d}", f"S{a+1:02d}"]) for a in range(1, 15, 2)] + [("qrowd", ["U1"]), ("qrowd", ["U2"])]
    res = {"motionsense": np.zeros((K, K+1)), "qrowd": np.zeros((K, K+1))}
    resraw = {"motionsense": np.zeros((K, K)), "qrowd": np.zeros((K, K))}
    for src, subs in folds:
        tr = [r for r in rows if r[2] not in subs]
        te = [r for r in rows if r[2] in subs]
        X = np.vstack([r[4] for r in tr]); y = np.concatenate([[r[3]] * len(r[4]) for r in tr])
        s = np.concatenate([[r[1]] * len(r[4]) for r in tr])
        model = train(X, y, weights(y, s), iters=iters, hidden=hidden)
        for r in te:
            lp = logprob(model, r[4])
            raw = lp.argmax(1)
            for p in raw: resraw[src][r[3], p] += 1
            post = smooth(lp, None, stay, temp)
            for q in post:
                p = q.argmax() if q.max() > 0.5 else K
                res[src][r[3], p] += 1
    for src in res:
        for name, M in (("raw", resraw[src]), ("hmm", res[src])):
            rec = [M[c, c] / M[c].sum() * 100 for c in range(K) if M[c].sum()]
            print(src, name, " ".join(f"{x:.1f}" for x in rec), "mean %.2f" % np.mean(rec))
    return res

if __name__ == "__main__":
    hidden = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 800
    stay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.9
    res = run(hidden, iters, stay)
    for src in res: print(src); print(res[src].astype(int))
