#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The dashboard's Foxglove WebSocket endpoint against a third-party client: `foxglove2zmq`
(PyPI, MIT; a relay from a Foxglove WebSocket server to ZeroMQ whose `FoxgloveToZMQRelay` is a
complete client of the protocol, written by someone else from Foxglove's spec). The relay's own
code connects, reads `serverInfo` and `advertise`, subscribes to every channel and decodes the
binary Message Data frames; this script only replaces its ZeroMQ output (the two hooks the class
leaves to subclasses) with a list, and checks what came out.

It starts `motionctl dashboard --source simulator:tour --port 0` (the phone at rest on a desk, in
turn in each orientation; `$MOTIONCTL`, else `.build/debug/motionctl` of this repository) and
checks:

1. Handshake, offering `foxglove.sdk.v1` and `foxglove.websocket.v1` as Foxglove's app does: the
   server selects one of them and sends `serverInfo`, then one `advertise` of the seven channels
   of docs/Dashboard.md, each JSON-encoded with a JSON Schema that parses.
2. The relay subscribes to all of them and, in about 8 s, decodes messages on each of the five
   motion and sensor channels and `/pressure`; no frame it could not decode.
3. Every payload has the types its channel's schema declares; log times increase within a channel
   and equal the payload's own time.
4. Values: `/tf` is a `foxglove.FrameTransform` reference → device with a unit quaternion and no
   translation, equal to `/device_motion`'s attitude at the same time; device motion's gravity is
   1 g; `/accelerometer` reads about 1 g (median within 5 %, nine in ten within 10 %) at rest.
5. The relay exactly as shipped, which offers only `foxglove.sdk.v1` (the name Foxglove's SDK
   servers use, and the only one `foxglove-sdk` 0.30.3's server accepts): the server must select
   it and send the same server info and channels. Skipped with `--skip-sdk-only`.
6. The end of the source (a second server, `simulator:tour?speed=10`, run to its end): the event
   `source`/`finished` arrives with a numeric `timestamp`, as its schema says, and a log time not
   before the messages that came before it. Skipped with `--skip-end-of-source`.

Prints one line per check; exit status 0 when all pass, 1 with the failures listed otherwise.
Needs python3 with `foxglove2zmq==0.1.2.1` and what it imports:
`pip install foxglove2zmq==0.1.2.1 websockets==17.4 pyzmq==27.3.0 protobuf==7.36.2`.
"""
import argparse
import asyncio
import collections
import contextlib
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SDK_SUBPROTOCOL = "foxglove.sdk.v1"
LEGACY_SUBPROTOCOL = "foxglove.websocket.v1"
EXPECTED_CHANNELS = {
    "/device_motion": "opencoremotion.DeviceMotion",
    "/tf": "foxglove.FrameTransform",
    "/accelerometer": "opencoremotion.Vector3Sample",
    "/gyroscope": "opencoremotion.Vector3Sample",
    "/magnetometer": "opencoremotion.Vector3Sample",
    "/pressure": "opencoremotion.PressureSample",
    "/events": "opencoremotion.Event",
}
FLOWING = ["/device_motion", "/tf", "/accelerometer", "/gyroscope", "/magnetometer", "/pressure"]
# Lines the relay prints when it drops a frame it cannot decode.
RELAY_PROBLEMS = ("Skipping message", "unexpected error", "Malformed", "unknown subscription", "failed")


class Checks:
    def __init__(self):
        self.failures = []

    def check(self, condition, what, detail=""):
        line = f"{'ok  ' if condition else 'FAIL'} {what}" + (f" ({detail})" if detail else "")
        print(line, flush=True)
        if not condition:
            self.failures.append(line)
        return condition


# MARK: The server


class Dashboard:
    """`motionctl dashboard` on a free loopback port, stopped on exit."""

    def __init__(self, executable, source="simulator:tour"):
        self.process = subprocess.Popen(
            [executable, "dashboard", "--source", source, "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                self.lines.append(line.rstrip("\n"))
                if "127.0.0.1:" in line:
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120) or self.process.poll() is not None:
            self.stop()
            raise RuntimeError("motionctl printed no URL:\n" + "\n".join(self.lines))
        output = "\n".join(self.lines)
        # The printed WebSocket address carries the dashboard's token (`?token=…`).
        match = re.search(r"ws://127\.0\.0\.1:\d+/ws(\?token=[0-9a-f]+)?", output)
        if match:
            self.url = match.group(0)
        else:
            found = re.search(r"127\.0\.0\.1:(\d+)/(\?token=[0-9a-f]+)?", output)
            self.url = f"ws://127.0.0.1:{found.group(1)}/ws{found.group(2) or ''}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# MARK: The client


def relay_classes():
    """The relay class with its ZeroMQ output replaced by a list (imported late: the package may
    be missing, and the message should say so)."""
    from foxglove2zmq.relay import FoxgloveToZMQRelay

    class Collector(FoxgloveToZMQRelay):
        def _init_zmq(self):
            self.relayed = []

        async def _send_msg(self, msg, topic=None):
            self.relayed.append(json.loads(msg))

    return Collector


@contextlib.contextmanager
def offering_legacy_subprotocol_too():
    """The relay offers only `foxglove.sdk.v1`; Foxglove's app offers the older name too. While
    this is active the relay's `websockets.connect` adds `foxglove.websocket.v1` to its offer."""
    import foxglove2zmq.relay as relay_module
    import websockets
    import websockets.exceptions

    original = relay_module.websockets

    def connect(uri, subprotocols=None, **options):
        offered = list(subprotocols or [])
        if LEGACY_SUBPROTOCOL not in offered:
            offered.append(LEGACY_SUBPROTOCOL)
        return websockets.connect(uri, subprotocols=offered, **options)

    relay_module.websockets = types.SimpleNamespace(connect=connect, exceptions=websockets.exceptions)
    try:
        yield
    finally:
        relay_module.websockets = original


def run_relay(url, seconds):
    """Runs the relay against `url` for `seconds` (its discovery phase included); returns the relay
    (with `relayed`, `channels_by_id`, `subscriptions`, `websocket`), what it printed, and whether
    it ended by itself before the time was up (it does when the connection fails or closes)."""
    Collector = relay_classes()
    printed = io.StringIO()

    async def session():
        relay = Collector(url, "inproc://unused", discovery_timeout=1.0, verbosity=1)
        relay.relayed = []
        task = asyncio.ensure_future(relay.run())
        done, _ = await asyncio.wait([task], timeout=seconds)
        ended_early = bool(done)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return relay, ended_early

    with contextlib.redirect_stdout(printed):
        relay, ended_early = asyncio.run(session())
    return relay, printed.getvalue(), ended_early


# MARK: Checks


def schema_problems(value, schema, path="$"):
    """Where `value` departs from the types of a JSON Schema's `type`/`properties` (the subset
    the dashboard's schemas use; properties not in the schema are allowed)."""
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not an object"]
        problems = []
        for name, property_schema in schema.get("properties", {}).items():
            if name not in value:
                problems.append(f"{path}.{name}: missing")
            else:
                problems += schema_problems(value[name], property_schema, f"{path}.{name}")
        return problems
    if kind == "number":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        return [] if ok else [f"{path}: {value!r} is not a number"]
    if kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
        ok = ok or (isinstance(value, float) and value.is_integer())
        return [] if ok else [f"{path}: {value!r} is not an integer"]
    if kind == "string":
        return [] if isinstance(value, str) else [f"{path}: {value!r} is not a string"]
    return []


def norm(vector, keys="xyz"):
    return math.sqrt(sum(vector[k] ** 2 for k in keys))


def check_handshake(checks, relay, offered):
    selected = getattr(relay.websocket, "subprotocol", None)
    checks.check(selected in offered, f"server selected a subprotocol offered {offered}",
                 f"selected {selected!r}")
    info = getattr(relay, "server_info", None)
    checks.check(isinstance(info, dict) and isinstance(info.get("name"), str)
                 and isinstance(info.get("capabilities"), list),
                 "serverInfo with a name and a capabilities list",
                 json.dumps(info)[:160] if info else "none received")
    channels = {c.get("topic"): c for c in relay.channels_by_id.values()}
    checks.check(set(channels) == set(EXPECTED_CHANNELS), "advertise: the seven channels",
                 ", ".join(sorted(channels)) or "none")
    return channels


def check_channels(checks, channels):
    schemas = {}
    for topic, schema_name in EXPECTED_CHANNELS.items():
        channel = channels.get(topic)
        if channel is None:
            continue
        try:
            schema = json.loads(channel.get("schema", ""))
        except ValueError:
            schema = None
        checks.check(channel.get("encoding") == "json" and channel.get("schemaEncoding") == "jsonschema"
                     and channel.get("schemaName") == schema_name and isinstance(schema, dict),
                     f"channel {topic}: json, {schema_name}, a JSON Schema",
                     f"id {channel.get('id')}")
        schemas[topic] = schema if isinstance(schema, dict) else {}
    return schemas


def check_messages(checks, relay, printed, schemas, seconds):
    subscribed = {c.get("topic") for c in relay.subscriptions.values()}
    checks.check(subscribed == set(EXPECTED_CHANNELS), "the relay subscribed to every channel",
                 f"{len(relay.subscriptions)} subscriptions")
    problems = [line for line in printed.splitlines() if any(p in line for p in RELAY_PROBLEMS)]
    checks.check(not problems, "no frame the relay could not decode", "; ".join(problems[:3]))

    by_topic = collections.defaultdict(list)
    for message in relay.relayed:
        by_topic[message["topic"]].append(message)
    counts = ", ".join(f"{t} {len(by_topic.get(t, []))}" for t in EXPECTED_CHANNELS)
    print(f"     decoded in {seconds:.0f} s: {counts}", flush=True)
    for topic in FLOWING:
        checks.check(len(by_topic.get(topic, [])) >= 20, f"{topic}: messages flow",
                     f"{len(by_topic.get(topic, []))}")

    for topic, messages in by_topic.items():
        schema = schemas.get(topic, {})
        bad = [p for m in messages for p in schema_problems(m["payload"], schema)]
        checks.check(not bad, f"{topic}: every payload matches its schema's types",
                     f"{len(bad)} problems, first: {bad[0]}" if bad else f"{len(messages)} payloads")
        times = [m["timestamp"] for m in messages]
        backwards = sum(1 for a, b in zip(times, times[1:]) if b <= a)
        if topic == "/tf":
            own = [m["payload"]["timestamp"]["sec"] * 10**9 + m["payload"]["timestamp"]["nsec"]
                   for m in messages]
            tolerance = 0
        else:
            own = [round(m["payload"]["timestamp"] * 1e9) if isinstance(m["payload"].get("timestamp"), (int, float))
                   else None for m in messages]
            tolerance = 1000  # the payload's seconds have six decimals
        mismatched = [(t, o) for t, o in zip(times, own) if o is None or abs(t - o) > tolerance]
        checks.check(backwards == 0 and not mismatched,
                     f"{topic}: log times increasing and equal to the payload's time",
                     f"{backwards} not increasing, {len(mismatched)} mismatched"
                     + (f", first: log {mismatched[0][0]} payload {mismatched[0][1]}" if mismatched else ""))
    return by_topic


def check_values(checks, by_topic):
    transforms = [m["payload"] for m in by_topic.get("/tf", [])]
    if transforms:
        worst = max(abs(norm(t["rotation"], "xyzw") - 1) for t in transforms)
        frames = {(t["parent_frame_id"], t["child_frame_id"]) for t in transforms}
        translation = max(norm(t["translation"]) for t in transforms)
        checks.check(worst < 1e-3 and frames == {("reference", "device")} and translation == 0,
                     "/tf: reference → device, unit quaternion, no translation",
                     f"max ||q| - 1| = {worst:.1e}, frames {sorted(frames)}")
    motion = {m["timestamp"]: m["payload"] for m in by_topic.get("/device_motion", [])}
    if motion:
        worst = max(abs(norm(p["attitude"], "wxyz") - 1) for p in motion.values())
        gravity = max(abs(norm(p["gravity"]) - 1) for p in motion.values())
        checks.check(worst < 1e-3 and gravity < 1e-2, "/device_motion: unit attitude, gravity 1 g",
                     f"max ||q| - 1| = {worst:.1e}, max ||g| - 1| = {gravity:.1e}")
        pairs = [(m["payload"]["rotation"], motion[m["timestamp"]]["attitude"])
                 for m in by_topic.get("/tf", []) if m["timestamp"] in motion]
        differing = [p for p in pairs if any(abs(p[0][k] - p[1][k]) > 1e-9 for k in "wxyz")]
        checks.check(len(pairs) > 0 and not differing, "/tf equals /device_motion's attitude at the same time",
                     f"{len(pairs)} pairs, {len(differing)} differ")
    accelerations = [norm(m["payload"]) for m in by_topic.get("/accelerometer", [])]
    if accelerations:
        median = statistics.median(accelerations)
        near = sum(1 for a in accelerations if abs(a - 1) < 0.1) / len(accelerations)
        checks.check(abs(median - 1) < 0.05 and near >= 0.9, "/accelerometer: about 1 g at rest",
                     f"median |a| = {median:.3f} g, {near:.0%} within 10 %")


def check_end_of_source(checks, executable):
    dashboard = Dashboard(executable, "simulator:tour?speed=10")
    try:
        print(f"     {executable} serves {dashboard.url} (the tour at 10 times real time)", flush=True)
        with offering_legacy_subprotocol_too():
            relay, _, _ = run_relay(dashboard.url, 10)
    finally:
        dashboard.stop()
    ends = [i for i, m in enumerate(relay.relayed)
            if m["topic"] == "/events" and m["payload"].get("kind") == "source"
            and m["payload"].get("detail") == "finished"]
    if not checks.check(len(ends) == 1, "end of source: one event source/finished",
                        f"{len(ends)} among {len(relay.relayed)} messages"):
        return
    end = relay.relayed[ends[0]]
    schema = json.loads(relay.channels_by_id[relay.id_by_channel_topics["/events"]]["schema"])
    problems = schema_problems(end["payload"], schema)
    checks.check(not problems, "end of source: the event matches its schema's types",
                 f"payload {json.dumps(end['payload'])}")
    before = max((m["timestamp"] for m in relay.relayed[:ends[0]]), default=0)
    checks.check(end["timestamp"] >= before, "end of source: log time not before the messages before it",
                 f"log time {end['timestamp']} ns, latest before it {before} ns")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=9.0,
                        help="how long the relay runs in the main session (default 9)")
    parser.add_argument("--skip-sdk-only", action="store_true",
                        help="skip check 5 (the relay as shipped, offering foxglove.sdk.v1 only)")
    parser.add_argument("--skip-end-of-source", action="store_true",
                        help="skip check 6 (the event at the end of the source)")
    arguments = parser.parse_args()
    with contextlib.suppress(AttributeError):
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        import foxglove2zmq  # noqa: F401
    except ImportError as error:
        print(f"FAIL foxglove2zmq is not installed ({error}); "
              "pip install foxglove2zmq==0.1.2.1", flush=True)
        return 1

    executable = os.environ.get("MOTIONCTL") or str(REPOSITORY / ".build/debug/motionctl")
    if not os.access(executable, os.X_OK):
        print(f"FAIL no motionctl at {executable} (set MOTIONCTL)", flush=True)
        return 1
    checks = Checks()
    dashboard = Dashboard(executable)
    try:
        print(f"     {executable} serves {dashboard.url}", flush=True)
        offered = [SDK_SUBPROTOCOL, LEGACY_SUBPROTOCOL]
        with offering_legacy_subprotocol_too():
            relay, printed, ended_early = run_relay(dashboard.url, arguments.seconds)
        checks.check(not ended_early, "the relay stays connected",
                     printed.strip().splitlines()[-1] if ended_early and printed.strip() else "")
        channels = check_handshake(checks, relay, offered)
        schemas = check_channels(checks, channels)
        by_topic = check_messages(checks, relay, printed, schemas, arguments.seconds - 1)
        check_values(checks, by_topic)

        if arguments.skip_sdk_only:
            print(f"skip the relay as shipped, offering only {SDK_SUBPROTOCOL}", flush=True)
        else:
            relay, printed, _ = run_relay(dashboard.url, 3)
            selected = getattr(relay.websocket, "subprotocol", None)
            checks.check(selected == SDK_SUBPROTOCOL and getattr(relay, "server_info", None) is not None
                         and len(relay.channels_by_id) == len(EXPECTED_CHANNELS) and len(relay.relayed) > 0,
                         f"the relay as shipped, offering only {SDK_SUBPROTOCOL}: "
                         "selected, server info, seven channels, messages",
                         f"selected {selected!r}, server info "
                         f"{'received' if getattr(relay, 'server_info', None) else 'not received'}, "
                         f"{len(relay.channels_by_id)} channels, {len(relay.relayed)} messages")
    finally:
        dashboard.stop()
    if arguments.skip_end_of_source:
        print("skip the end of the source", flush=True)
    else:
        check_end_of_source(checks, executable)
    if checks.failures:
        print(f"\n{len(checks.failures)} check(s) failed:", *checks.failures, sep="\n  ", flush=True)
        return 1
    print("all checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
