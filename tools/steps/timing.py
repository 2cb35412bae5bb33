"""Step times against IPOL's heel strikes, and what a more exact time does to the score.

The detector reports a step at its band-passed peak minus 0.08 s. A finer time is the steepest
rise of the raw |a| in the 0.3 s before the peak (the heel strike's impact). Prints, over IPOL's
matched steps, the median residual and the 75th percentile of its spread, the same for each
trial's last step and the share of last steps that fall inside the truth window (which ends on
that heel strike), then each set's MAPE with either time.

    python3 timing.py
"""
import numpy as np
import data, det4


def refine(t, acc, steps, before=0.30, delay=0.08):
    magnitude = np.linalg.norm(acc, axis=1)
    out = []
    for step in steps:
        peak = step + delay
        window = (t >= peak - before) & (t <= peak)
        if window.sum() < 3:
            out.append(step)
            continue
        tt, mm = t[window], magnitude[window]
        slope = np.diff(mm) / np.maximum(np.diff(tt), 1e-3)
        out.append(tt[np.argmax(slope)])
    return np.array(out)


def residuals(detect):
    matched, last = [], []
    for row in data.index():
        if row['source'] != 'ipol':
            continue
        t, acc = data.load(row['file'])
        gt, w = data.gt_steps(row['file'].replace('.csv', '.steps.csv'))
        gt = gt[w == 1]
        steps = detect(t, acc)
        for g in gt:
            j = np.argmin(np.abs(steps - g))
            if abs(steps[j] - g) < 0.25:
                matched.append(steps[j] - g)
        j = np.argmin(np.abs(steps - gt.max()))
        last.append(steps[j] - gt.max())
    matched, last = np.array(matched), np.array(last)
    spread = np.percentile(np.abs(matched - np.median(matched)), 75)
    return np.median(matched), spread, np.median(last), (last <= 0).mean()


if __name__ == '__main__':
    variants = (('peak - 0.08 s', lambda t, a: det4.detect(t, a)),
                ('steepest rise', lambda t, a: refine(t, a, det4.detect(t, a))),
                ('steepest rise - 0.01 s', lambda t, a: refine(t, a, det4.detect(t, a)) - 0.01))
    for name, detect in variants[:2]:
        print('%-24s median residual %+.3f s, spread %.3f s; last step %+.3f s, inside the window %.0f %%'
              % ((name,) + residuals(detect)[:3] + (100 * residuals(detect)[3],)))
    for name, detect in variants:
        res, s = data.evaluate(detect)
        over = sum(abs(r[5]) > 5 for r in res)
        print(f'{name:24s} ' + '  '.join(f'{k} {m:.2f} %' for k, (m, w, sg) in s.items())
              + f'  recordings > 5 %: {over}')
