#!/usr/bin/env python3
"""Dashboard performance: the server's CPU cost and the page's frame rate at 100 Hz, one tab.

Starts `motionctl dashboard --rate 100` on the simulator playing the tour's motions in a loop for
longer than the measurement (a scenario file written here; the simulator samples at 100 Hz and the
page gets every sample), opens one headless Chromium tab, waits for the warm-up, then for
DURATION seconds measures:
  - server CPU: user + system time of the motionctl process from /proc/PID/stat, as % of one core;
  - page frame rate: requestAnimationFrame callbacks counted by the page (window.dashboardStats);
  - frames received and dropped by the tab.
Targets (issue): CPU <= 2 % of a core, >= 30 fps. Exit status 1 when a target is missed.

Usage: python3 Benchmarks/dashboard_performance.py [--duration 60] [--source SPEC] [--no-browser]
       [--format binary|json]
"""

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "Browser"))
from dashboard_harness import DashboardProcess, browser_available, make_driver, wait_until  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    # Fields 14 and 15 (utime, stime) counted from 1; [0] here is field 3.
    return (int(fields[11]) + int(fields[12])) / TICKS


def looping_tour(seconds):
    """A scenario file with the built-in tour's segments, repeated for `seconds`."""
    segments = [{"type": "rest", "duration": 3}]
    for name in ["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight", "faceDown", "faceUp"]:
        segments += [{"type": "moveTo", "attitude": name, "duration": 1.5}, {"type": "rest", "duration": 5}]
    segments += [{"type": "shake", "axis": [1, 0, 0], "amplitude": 0.035, "frequency": 4.5, "duration": 2},
                 {"type": "rest", "duration": 5}]
    scenario = {"name": "tour-loop", "sampleRate": 100, "duration": seconds, "repeats": True, "segments": segments}
    handle = tempfile.NamedTemporaryFile("w", suffix=".json", prefix="dashboard-bench-", delete=False)
    json.dump(scenario, handle)
    handle.close()
    return handle.name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--source", default=None, help="default: the tour in a loop at 100 Hz")
    parser.add_argument("--rate", default="100")
    parser.add_argument("--no-browser", action="store_true", help="server only, no tab")
    parser.add_argument("--format", choices=["binary", "json"], default="binary",
                        help="the page's data frames (binary is what the page uses; json to compare)")
    arguments = parser.parse_args()
    use_browser = not arguments.no_browser
    if use_browser and browser_available():
        print(browser_available())
        return 2
    source = arguments.source or "simulator:" + looping_tour(arguments.duration + arguments.warmup + 60)
    with DashboardProcess(source, extra=("--rate", arguments.rate)) as server:
        driver = None
        try:
            if use_browser:
                driver = make_driver()
                separator = "&" if "?" in server.url else "?"
                driver.get(server.url + (separator + "format=json" if arguments.format == "json" else ""))
                wait_until(lambda: driver.execute_script("return window.dashboardStats.messages") > 0, 20)
            time.sleep(arguments.warmup)
            stats = lambda: driver.execute_script(  # noqa: E731
                "const s = window.dashboardStats; return [s.frames, s.messages, performance.now(), s.workMs, s.messageMs]") if driver else None
            dropped = lambda: int(driver.find_element("css selector", "[data-testid=dropped-frames]").text) if driver else 0  # noqa: E731
            cpu0, wall0, page0, dropped0 = cpu_seconds(server.process.pid), time.monotonic(), stats(), dropped()
            time.sleep(arguments.duration)
            cpu1, wall1, page1, dropped1 = cpu_seconds(server.process.pid), time.monotonic(), stats(), dropped()
        finally:
            if driver:
                driver.quit()
    cpu_percent = 100 * (cpu1 - cpu0) / (wall1 - wall0)
    result = {"source": source, "format": arguments.format, "rate_hz": float(arguments.rate),
              "duration_s": round(wall1 - wall0, 1),
              "server_cpu_percent_of_core": round(cpu_percent, 2)}
    if page0 and page1:
        elapsed = (page1[2] - page0[2]) / 1000
        result["page_fps"] = round((page1[0] - page0[0]) / elapsed, 1)
        result["frames_received_per_s"] = round((page1[1] - page0[1]) / elapsed, 1)
        result["frames_dropped"] = dropped1 - dropped0
        # The page's own main-thread work: per animation frame (drawing) and per second in all
        # (drawing + reading frames). 1000 / ms-per-frame is the frame rate the page's work alone
        # would allow, independent of how loaded the machine is.
        frames = max(1, page1[0] - page0[0])
        per_frame = (page1[3] - page0[3]) / frames
        result["page_work_ms_per_animation_frame"] = round(per_frame, 3)
        result["page_main_thread_ms_per_s"] = round((page1[3] - page0[3] + page1[4] - page0[4]) / elapsed, 1)
    result["load_average_1min"] = os.getloadavg()[0]
    print(json.dumps(result))
    ok = cpu_percent <= 2 and (not page0 or result["page_fps"] >= 30)
    print(("PASS" if ok else "MISS") + ": targets are <= 2 % of a core and >= 30 fps")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
