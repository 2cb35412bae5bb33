"""Where IPOL's truth has no footstep for a while: the U-turn, measured with the trial's own
gyroscope. The heading (the rate about the standing gravity direction, integrated) goes from
its walking-out value to its walking-back value; the turn is where it is between 10 % and 90 %
of that change. Prints per trial the truth's steps and the mirror's detections inside the turn,
then how many truth holes (no footstep for more than 1.8 median intervals) overlap it.

    python3 uturn.py
"""
import os
import numpy as np
import data, det4

holes = in_turn = detections_in_holes = detections_in_turn_holes = 0
truth_in_turn = ours_in_turn = 0
for row in data.index():
    if row['source'] != 'ipol':
        continue
    name = row['file']
    s = np.genfromtxt(os.path.join(data.ROOT, name), delimiter=',', names=True)
    t = s['t']
    acc = np.c_[s['ax'], s['ay'], s['az']]
    gyr = np.c_[s['gx'], s['gy'], s['gz']]
    up = acc[:200].mean(0)
    up /= np.linalg.norm(up)
    heading = np.degrees(np.concatenate([[0], np.cumsum(0.5 * ((gyr[1:] + gyr[:-1]) @ up) * np.diff(t))]))
    gt, w = data.gt_steps(name.replace('.csv', '.steps.csv'))
    truth = np.sort(gt[w == 1])
    lo, hi = float(row['gt_window_start_s']), float(row['gt_window_end_s'])
    inside = (t >= lo) & (t <= hi)
    h, tt = heading[inside], t[inside]
    fifth = max(1, len(h) // 5)
    start, end = np.median(h[:fifth]), np.median(h[-fifth:])
    fraction = (h - start) / (end - start)
    a = tt[np.argmax(fraction > 0.1)]
    b = tt[len(fraction) - 1 - np.argmax((fraction < 0.9)[::-1])]
    ours = det4.detect(t, acc)
    ours = ours[(ours >= lo) & (ours <= hi)]
    intervals = np.diff(truth)
    for i in np.where(intervals > 1.8 * np.median(intervals))[0]:
        h0, h1 = truth[i], truth[i + 1]
        overlaps = min(h1, b) - max(h0, a) > 0
        k = int(((ours > h0 + 0.2) & (ours < h1 - 0.2)).sum())
        holes += 1
        in_turn += overlaps
        detections_in_holes += k
        detections_in_turn_holes += k * overlaps
    nt, no = int(((truth >= a) & (truth <= b)).sum()), int(((ours >= a) & (ours <= b)).sum())
    truth_in_turn += nt
    ours_in_turn += no
    print(f'{name:16s} turn {end - start:+7.1f} deg, {a:6.2f}-{b:6.2f} s: truth {nt:2d} steps, ours {no:2d}')
print(f'truth holes {holes}, overlapping the turn {in_turn}; our detections inside holes '
      f'{detections_in_holes}, {detections_in_turn_holes} of them in holes that overlap the turn')
print(f'steps inside the turns: truth {truth_in_turn}, ours {ours_in_turn}')
