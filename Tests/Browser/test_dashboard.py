#!/usr/bin/env python3
"""Browser tests of `motionctl dashboard`: headless Chromium loads the page against the simulator
and the assertions read the DOM (data-testid attributes), as a person would read the page.

Run: python3 Tests/Browser/test_dashboard.py  (after `swift build --product motionctl` and
.ci/install-browser). Screenshots go to .build/dashboard-artifacts/. Exit status 0 when all pass;
the last line reads `N passed, N failed`.
"""

import os
import shutil
import stat
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from dashboard_harness import (ARTIFACTS, DaemonDashboardProcess, DashboardProcess, browser_available,  # noqa: E402
                               log, make_driver, text_of, wait_until)

# The tour's orientations in order (Scenario+BuiltIn.swift); it repeats.
TOUR = ["portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight", "faceDown", "faceUp"]


def screenshot(driver, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    driver.save_screenshot(path)
    log(f"  screenshot {path}")


OBSERVER = """
window.__changes = {orientation: [], transform: []};
const name = document.querySelector('[data-testid=orientation-name]');
const phone = document.querySelector('[data-testid=phone-3d]');
window.__changes.orientation.push([performance.now(), name.textContent]);
new MutationObserver(() => window.__changes.orientation.push([performance.now(), name.textContent]))
  .observe(name, {childList: true, characterData: true, subtree: true});
new MutationObserver(() => window.__changes.transform.push([performance.now(), phone.style.transform]))
  .observe(phone, {attributes: true, attributeFilter: ['style']});
"""


def settled_names(changes, hold_ms=300):
    """The names shown for at least `hold_ms`, consecutive duplicates merged: the classifier may
    pass through another orientation for a moment while the phone turns."""
    runs = []  # [start, name] of each run of one name
    for when, name in changes:
        if not runs or runs[-1][1] != name:
            runs.append([when, name])
    names = []
    for (when, name), (until, _) in zip(runs, runs[1:] + [[float("inf"), None]]):
        if until - when >= hold_ms and name not in ("unknown", "") and (not names or names[-1] != name):
            names.append(name)
    return names


def follows_tour(names):
    """Whether consecutive distinct names are consecutive steps of the tour (cyclically)."""
    for previous, current in zip(names, names[1:]):
        if current not in TOUR or previous not in TOUR:
            return False
        if TOUR.index(current) != (TOUR.index(previous) + 1) % len(TOUR):
            return False
    return True


def test_tour_orientation_and_attitude(driver):
    # 46 s of tour at 4x: one cycle in about 12 s.
    with DashboardProcess("simulator:tour?speed=4") as server:
        driver.get(server.url)
        assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20), "the socket did not open"
        # A MutationObserver records every change of the orientation name and of the 3D view's
        # transform as the page makes it, so slow polling from the test cannot miss one.
        driver.execute_script(OBSERVER)
        time.sleep(16)
        changes = driver.execute_script("return window.__changes")
        names = settled_names(changes["orientation"])
        transforms = {value for _, value in changes["transform"]}
        by_orientation = {}
        for when, name in changes["orientation"]:
            later = [value for t, value in changes["transform"] if t >= when + 300]
            if later:
                by_orientation.setdefault(name, later[0])
        log(f"  orientations seen: {names}; distinct transforms: {len(transforms)}")
        assert len(set(names)) >= 2, f"the orientation name did not change: {names}"
        assert follows_tour(names), f"the orientation names do not follow the tour order {TOUR}: {names}"
        assert len(transforms) >= 5, f"the 3D view's transform did not follow the attitude: {transforms}"
        seen = [by_orientation[n] for n in by_orientation if n in TOUR]
        assert len(set(seen)) >= 2, "the 3D view showed the same transform in different orientations"
        assert text_of(driver, "source-name") == "simulator:tour?speed=4"
        rates = driver.execute_script(
            "return [...document.querySelectorAll('#health-rows tr')].map(r => r.textContent)")
        assert any("accelerometer" in row and "Hz" in row for row in rates), f"no stream health: {rates}"
        assert driver.find_element("css selector", "[data-testid=history-panel]").get_attribute("hidden") is not None, \
            "the history panel must stay hidden without the daemon"
        screenshot(driver, "dashboard-tour.png")


def test_walk_step_count_rises(driver):
    with DashboardProcess("simulator:walk?speed=2", extra=("--rate", "25")) as server:
        driver.get(server.url)
        assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20)
        readings = []
        deadline = time.monotonic() + 11
        while time.monotonic() < deadline:
            readings.append(int(text_of(driver, "step-count")))
            time.sleep(0.5)
        log(f"  step counts: {readings}")
        assert all(b >= a for a, b in zip(readings, readings[1:])), f"the step count went down: {readings}"
        assert readings[-1] > readings[0], f"the step count did not rise: {readings}"
        # 20 s at 1.8 steps/s = 36 steps; most of it must have been counted by now.
        assert readings[-1] >= 15, f"too few steps for the walk: {readings[-1]}"
        assert text_of(driver, "cadence") != "–" or readings[-1] >= 30
        screenshot(driver, "dashboard-walk.png")


def test_scenario_switch_and_phone_layout(driver):
    from selenium.webdriver.support.ui import Select
    with DashboardProcess("simulator:tour?speed=2") as server:
        driver.set_window_size(390, 844)
        driver.get(server.url)
        assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20)
        Select(driver.find_element("css selector", "[data-testid=scenario-select]")).select_by_value("shake")
        assert wait_until(lambda: text_of(driver, "source-name") == "simulator:shake?speed=2", 10), \
            text_of(driver, "source-name")
        assert wait_until(
            lambda: "shake" in text_of(driver, "event-log"), 10), f"no shake event: {text_of(driver, 'event-log')}"
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, f"the page is wider than a phone screen: {width}px"
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(17, 19, 21)", f"dark mode not followed: {background}"
        screenshot(driver, "dashboard-phone-dark.png")
        driver.set_window_size(1280, 1700)


def test_recording_to_private_file(driver):
    directory = tempfile.mkdtemp(prefix="dashboard-recordings-")
    try:
        with DashboardProcess("simulator:tour", extra=("--recording-directory", directory)) as server:
            driver.get(server.url)
            assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20)
            driver.find_element("css selector", "[data-testid=record-name]").send_keys("../../escape me.csv")
            driver.find_element("css selector", "[data-testid=record-button]").click()
            assert wait_until(lambda: "●" in text_of(driver, "record-status"), 5), text_of(driver, "record-status")
            time.sleep(1.5)
            driver.find_element("css selector", "[data-testid=record-button]").click()
            assert wait_until(lambda: "saved" in text_of(driver, "record-status"), 5), text_of(driver, "record-status")
        files = [name for name in os.listdir(directory) if not name.startswith(".")]
        # "../../escape me.csv" is reduced to a plain name inside the directory.
        assert files == ["escapeme.csv"], files
        path = os.path.join(directory, files[0])
        assert os.path.dirname(os.path.realpath(path)) == os.path.realpath(directory)
        mode = stat.S_IMODE(os.stat(path).st_mode)
        assert mode == 0o600, f"recording mode {oct(mode)}"
        with open(path) as handle:
            lines = handle.read().splitlines()
        data = [line for line in lines if line and not line.startswith("#")]
        assert len(data) > 50, f"the recording holds {len(data)} lines"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_token_when_exposed(driver):
    # On the loopback default too (a loopback port is open to every user of the machine), and on
    # an address given with --listen.
    for extra in ((), ("--listen", "127.0.0.1")):
        with DashboardProcess("simulator:tour", extra=extra) as server:
            assert "token=" in server.url, server.url
            try:
                urllib.request.urlopen(server.base, timeout=5)
                raise AssertionError(f"the page was served without the token ({extra})")
            except urllib.error.HTTPError as error:
                assert error.code == 401, error.code
            with urllib.request.urlopen(server.url, timeout=5) as response:
                assert response.status == 200
            driver.get(server.url)
            assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20), "no live data with the token"
            assert wait_until(lambda: text_of(driver, "orientation-name") != "", 5)


def test_daemon_page_shows_history_and_clients(driver):
    """The page as `motiond` serves it: live data, and the history panel (7 days of steps, the
    recorder's extent, the connected clients) that only the daemon has."""
    import json
    with DaemonDashboardProcess("simulator:walk?speed=4") as daemon:
        assert "token=" in daemon.url, daemon.url
        driver.get(daemon.url)
        assert wait_until(lambda: text_of(driver, "connection-status") == "live", 30), "no live data"
        panel = driver.find_element("css selector", "[data-testid=history-panel]")
        assert wait_until(lambda: panel.is_displayed(), 20), "the history panel stayed hidden"
        # The daemon's history counts the walk while the page is open (steps land per minute row).
        api = daemon.base + "api/history?" + daemon.url.split("?", 1)[1]

        def steps_today():
            with urllib.request.urlopen(api, timeout=5) as response:
                history = json.load(response)
            return history["days"][-1]["steps"] if history["days"] else 0, history
        assert wait_until(lambda: steps_today()[0] >= 10, 40, interval=1), "the walk is not in the daemon's history"
        steps, history = steps_today()
        assert len(history["days"]) == 7, history["days"]
        log(f"  steps today in the daemon's history: {steps}; clients: {[c['name'] for c in history['clients']]}")
        # The page shows the clients (its own connection among them) and the recorder's extent.
        assert wait_until(lambda: len(driver.find_elements("css selector", "[data-testid=client-list] li")) >= 1, 20), \
            "no clients listed"
        assert text_of(driver, "recorder-extent") not in ("", "–"), text_of(driver, "recorder-extent")
        canvas = driver.find_element("css selector", "[data-testid=history-chart]")
        assert canvas.size["width"] > 0 and canvas.size["height"] > 0, canvas.size
        # The chart follows the history within its 10 s refresh: today's bar shows the walk.
        def charted_today():
            days = json.loads(canvas.get_attribute("data-days") or "[]")
            return days[-1][1] if days else 0
        assert wait_until(lambda: charted_today() >= 10, 25, interval=1), \
            f"the chart did not show today's steps: {canvas.get_attribute('data-days')}"
        assert len(json.loads(canvas.get_attribute("data-days"))) == 7
        assert "Steps per day" in (canvas.get_attribute("aria-label") or "")
        log(f"  chart: {canvas.get_attribute('aria-label')}")
        # Time by activity, today first: the walk shows in today's walking cell.
        def walking_today():
            cells = driver.find_elements("css selector", "[data-testid=activity-table] tbody tr:first-child td[data-activity=walking]")
            return cells[0].text if cells else ""
        assert wait_until(lambda: walking_today() not in ("", "–"), 25, interval=1), \
            f"no walking time today: {walking_today()!r}; history {steps_today()[1]['days'][-1]}"
        assert len(driver.find_elements("css selector", "[data-testid=activity-table] tbody tr")) == 7
        log(f"  walking today: {walking_today()}")
        screenshot(driver, "dashboard-daemon.png")
        check_day_drill_down(driver, canvas, history["days"][-1]["date"], history["days"][-2]["date"])


def check_day_drill_down(driver, canvas, today, yesterday):
    """The history panel's drill-down on the daemon's page: a click on today's bar shows today by
    hour (the walk's steps in the current hour) and its activity timeline (walking up to now);
    the choice outlives the panel's reloads; a day button chosen with the keyboard shows that day."""
    import json
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    def stat(name):
        return driver.execute_script(f"return window.dashboardStats.{name};")

    detail = driver.find_element("css selector", "[data-testid=day-detail]")
    hour_chart = driver.find_element("css selector", "[data-testid=hour-chart]")
    timeline = driver.find_element("css selector", "[data-testid=day-timeline]")
    # Today's bar is the last of seven: the click lands in the middle of its slot (Selenium's
    # offsets are from the element's centre).
    slot = canvas.size["width"] / 7
    ActionChains(driver).move_to_element_with_offset(canvas, int(6.5 * slot - canvas.size["width"] / 2), 0) \
        .click().perform()
    assert wait_until(lambda: detail.is_displayed() and detail.get_attribute("data-date") == today, 15), \
        f"today's detail was not shown: {detail.get_attribute('data-date')!r}"

    def hours():
        return json.loads(hour_chart.get_attribute("data-hours") or "[]")

    def current_hour_steps():
        now = time.time()
        return sum(h["steps"] for h in hours() if h["start"] <= now < h["start"] + 3600)
    # The walk began when the daemon started, a minute or two ago; should an hour have begun
    # since, its steps come with the next reloads.
    assert wait_until(lambda: current_hour_steps() >= 1 and sum(h["steps"] for h in hours()) >= 10, 40,
                      interval=1), f"the hourly chart misses the walk: {hour_chart.get_attribute('data-hours')}"
    assert 23 <= len(hours()) <= 25, hours()
    assert "Steps per hour on " + today in (hour_chart.get_attribute("aria-label") or "")

    def segments():
        return json.loads(timeline.get_attribute("data-segments") or "[]")
    assert wait_until(lambda: any("walking" in s["activities"] for s in segments()), 30, interval=1), \
        f"the timeline shows no walking: {segments()}"
    # Today's last segment ends now (as of the last reload, every 10 s).
    assert segments()[-1]["end"] >= time.time() - 30, segments()[-1]
    assert "walking" in (timeline.get_attribute("aria-label") or ""), timeline.get_attribute("aria-label")
    log(f"  today by hour: {hour_chart.get_attribute('aria-label')}")
    log(f"  timeline: {timeline.get_attribute('aria-label')}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", detail)
    screenshot(driver, "dashboard-daemon-day.png")

    # The panel reloads every 10 s: today stays chosen and its detail is fetched again.
    loads, day_loads = stat("historyLoads"), stat("dayLoads")
    assert wait_until(lambda: stat("historyLoads") > loads and stat("dayLoads") > day_loads, 25, interval=0.5), \
        "the panel did not reload today's detail"
    assert detail.get_attribute("data-date") == today
    pressed = driver.find_elements("css selector", "[data-testid=day-picker] button[aria-pressed=true]")
    assert [b.get_attribute("data-date") for b in pressed] == [today], pressed

    # With the keyboard: yesterday's button, focused and pressed with Enter.
    button = driver.find_element("css selector", f"[data-testid=day-picker] button[data-date='{yesterday}']")
    driver.execute_script("arguments[0].focus();", button)
    button.send_keys(Keys.ENTER)
    assert wait_until(lambda: detail.get_attribute("data-date") == yesterday, 15), detail.get_attribute("data-date")
    assert wait_until(lambda: any(h["hour"] == 23 for h in hours()) and hour_chart.get_attribute("aria-label")
                      .startswith("Steps per hour on " + yesterday), 15), hour_chart.get_attribute("aria-label")
    # The fresh store has nothing before today.
    assert sum(h["steps"] for h in hours()) == 0, hours()
    assert segments() == [], segments()
    loads = stat("historyLoads")
    assert wait_until(lambda: stat("historyLoads") > loads, 25, interval=0.5), "the panel did not reload"
    assert detail.get_attribute("data-date") == yesterday
    assert button.get_attribute("aria-pressed") == "true"


# Foxglove's web app is a page that opens `new WebSocket(url, ["foxglove.websocket.v1"])`; this is
# that, in the same browser engine: the subprotocol the server selects, the server info and the
# advertisement, a subscription to every channel, and each binary Message Data frame (opcode 1,
# subscription id and timestamp little-endian) whose JSON payload has every property its channel's
# JSON Schema declares, with the declared type.
FOXGLOVE_CLIENT = """
const done = arguments[arguments.length - 1];
const report = {texts: [], frames: {}, errors: []};
const socket = new WebSocket(location.origin.replace(/^http/, "ws") + "/ws" + location.search,
                             ["foxglove.websocket.v1"]);
socket.binaryType = "arraybuffer";
const channels = {}, bySubscription = {};
const typeOf = v => Number.isInteger(v) ? "integer" : typeof v === "number" ? "number"
  : typeof v === "string" ? "string" : v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
function conforms(value, schema, path) {
  const type = typeOf(value);
  if (schema.type && !(schema.type === type || (schema.type === "number" && type === "integer")))
    report.errors.push(path + ": " + type + " where the schema says " + schema.type);
  for (const [name, inner] of Object.entries(schema.properties || {})) {
    if (!(name in value)) report.errors.push(path + "." + name + " missing");
    else conforms(value[name], inner, path + "." + name);
  }
}
socket.onopen = () => { report.protocol = socket.protocol; };
socket.onerror = () => report.errors.push("socket error");
socket.onmessage = event => {
  if (typeof event.data === "string") {
    const message = JSON.parse(event.data);
    report.texts.push(message.op);
    if (message.op === "advertise") {
      for (const c of message.channels) channels[c.id] = c;
      const subscriptions = message.channels.map((c, i) => ({id: 100 + i, channelId: c.id}));
      for (const s of subscriptions) bySubscription[s.id] = channels[s.channelId];
      socket.send(JSON.stringify({op: "subscribe", subscriptions}));
    }
    return;
  }
  const view = new DataView(event.data);
  if (view.getUint8(0) !== 1) { report.errors.push("opcode " + view.getUint8(0)); return; }
  const channel = bySubscription[view.getUint32(1, true)];
  if (!channel) { report.errors.push("unknown subscription " + view.getUint32(1, true)); return; }
  const nanoseconds = view.getBigUint64(5, true);
  const payload = JSON.parse(new TextDecoder().decode(new Uint8Array(event.data, 13)));
  const seen = report.frames[channel.topic] || (report.frames[channel.topic] = {count: 0, last: 0});
  seen.count += 1;
  seen.last = Number(nanoseconds) / 1e9;
  if (seen.count <= 5) conforms(payload, JSON.parse(channel.schema), channel.topic);
};
setTimeout(() => { socket.close(); done(report); }, 4000);
"""


def test_foxglove_client_in_the_browser(driver):
    with DashboardProcess("simulator:tour", extra=("--rate", "50")) as server:
        driver.get(server.url)
        assert wait_until(lambda: text_of(driver, "connection-status") == "live", 20)
        driver.set_script_timeout(20)
        report = driver.execute_async_script(FOXGLOVE_CLIENT)
        log(f"  protocol {report.get('protocol')!r}, text ops {report['texts'][:4]}, "
            f"frames {({k: v['count'] for k, v in report['frames'].items()})}")
        assert report.get("protocol") == "foxglove.websocket.v1", report
        assert report["texts"][:2] == ["serverInfo", "advertise"], report["texts"]
        assert not report["errors"], report["errors"][:10]
        # Four seconds of the tour at 50 Hz: the sensor and motion channels all flow.
        for topic in ["/device_motion", "/tf", "/accelerometer", "/gyroscope", "/magnetometer"]:
            assert report["frames"].get(topic, {}).get("count", 0) >= 50, (topic, report["frames"])
            assert report["frames"][topic]["last"] > 0, (topic, "timestamps are the source clock's, in ns")


def main():
    reason = browser_available()
    if reason:
        print(f"SKIP: {reason}")
        if os.environ.get("CI") == "true":
            print("0 passed, 1 failed")
            return 1
        print("0 passed, 0 failed, 1 skipped")
        return 0
    tests = [test_tour_orientation_and_attitude, test_walk_step_count_rises, test_scenario_switch_and_phone_layout,
             test_recording_to_private_file, test_token_when_exposed, test_daemon_page_shows_history_and_clients,
             test_foxglove_client_in_the_browser]
    selected = [t for t in tests if len(sys.argv) < 2 or any(a in t.__name__ for a in sys.argv[1:])]
    driver = make_driver()
    passed = failed = 0
    try:
        for test in selected:
            log(f"{test.__name__} ...")
            try:
                test(driver)
                passed += 1
                log("  ok")
            except Exception:  # report every failure, then go on
                failed += 1
                traceback.print_exc()
                try:
                    screenshot(driver, f"failure-{test.__name__}.png")
                except Exception:
                    pass
    finally:
        driver.quit()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
