#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A motiond client in Python, from the schema alone: Protocol/motiond.proto compiled here with
grpcio-tools' protoc, the frames read and written with the protobuf package, as docs/Daemon.md
shows. It checks what a client in any language relies on, against a running daemon whose source
is the simulator's `tour` (a phone at rest in turn in each orientation, on a desk):

1. `Hello` → `HelloReply`: protocol version 1, the source's name and sensors.
2. `Subscribe` to the accelerometer and gyroscope at 50 Hz → `SampleBatch`es: the daemon's units
   (specific force in m/s², about 9.8 m/s² at rest), timestamps increasing, about 50 per second.
3. `Subscribe` to device motion in the arbitrary vertical frame at 25 Hz → `DeviceMotionBatch`es in
   Core Motion's units (gravity of 1 g), about 25 per second.
4. `StatusRequest` → `DaemonStatus` listing this client and both subscriptions.
5. `PedometerQuery` and `ActivityQuery` over the last hour → one reply each, to the request.
6. `Unsubscribe` → `Acknowledgement`; then no more frames of that subscription.

Usage: daemon_client.py SOCKET_PATH PROTO_PATH. Prints one line per check; exit status 0 when all
pass. Needs python3 with `protobuf` and `grpcio-tools` (`.ci/install-interop`).
"""
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def compile_schema(proto_path, out_dir):
    proto_dir, name = os.path.split(os.path.abspath(proto_path))
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{proto_dir}", f"--python_out={out_dir}", name],
        check=True)
    sys.path.insert(0, out_dir)
    import motiond_pb2
    return motiond_pb2


class Connection:
    """Length-delimited protobuf frames over the daemon's Unix socket."""

    def __init__(self, path, pb):
        from google.protobuf.internal.decoder import _DecodeVarint32
        from google.protobuf.internal.encoder import _VarintBytes
        self.pb, self.decode_varint, self.varint = pb, _DecodeVarint32, _VarintBytes
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(10)
        self.socket.connect(path)
        self.buffer = b""

    def send(self, message):
        body = message.SerializeToString()
        self.socket.sendall(self.varint(len(body)) + body)

    def receive(self, deadline):
        """The next ServerMessage, or None when the deadline passes first."""
        while True:
            if self.buffer:
                length, start = self.decode_varint(self.buffer, 0)
                if len(self.buffer) >= start + length:
                    frame = self.buffer[start:start + length]
                    self.buffer = self.buffer[start + length:]
                    return self.pb.ServerMessage.FromString(frame)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.socket.settimeout(remaining)
            try:
                chunk = self.socket.recv(65536)
            except socket.timeout:
                return None
            if not chunk:
                raise RuntimeError("the daemon closed the connection")
            self.buffer += chunk

    def reply_to(self, request_id, body, seconds=10):
        """Waits for the reply to `request_id`; stream frames meanwhile are returned too."""
        deadline = time.monotonic() + seconds
        others = []
        while True:
            message = self.receive(deadline)
            if message is None:
                raise RuntimeError(f"no reply to request {request_id} within {seconds} s")
            if message.request_id == request_id and message.WhichOneof("body") == body:
                return message, others
            if message.WhichOneof("body") == "error" and message.request_id == request_id:
                raise RuntimeError(f"request {request_id}: {message.error}")
            others.append(message)


failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def main():
    socket_path, proto_path = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as generated:
        pb = compile_schema(proto_path, generated)
        connection = Connection(socket_path, pb)
        C = pb.ClientMessage

        connection.send(C(request_id=1, hello=pb.Hello(client_name="python-interop", protocol_version=1)))
        hello, _ = connection.reply_to(1, "hello")
        check(hello.hello.protocol_version == 1, f"HelloReply protocol version 1 ({hello.hello.protocol_version})")
        check("tour" in hello.hello.source_name, f"source named ({hello.hello.source_name!r})")
        sensors = pb.SENSOR_ACCELEROMETER | pb.SENSOR_GYROSCOPE
        check(hello.hello.available_sensors & sensors == sensors, "accelerometer and gyroscope available")

        connection.send(C(request_id=2, subscribe=pb.Subscribe(sensors=sensors, rate_hz=50)))
        connection.send(C(request_id=3, subscribe=pb.Subscribe(
            rate_hz=25, device_motion_frame=pb.X_ARBITRARY_Z_VERTICAL)))
        samples, motions = [], []
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            message = connection.receive(deadline)
            if message is None:
                break
            kind = message.WhichOneof("body")
            if kind == "samples" and message.request_id == 2:
                samples += message.samples.samples
            elif kind == "device_motion" and message.request_id == 3:
                motions += message.device_motion.motions
        times = [s.timestamp for s in samples]
        check(len(samples) >= 150, f"raw samples arrive ({len(samples)} in 6 s at 50 Hz)")
        check(all(b > a for a, b in zip(times, times[1:])), "sample timestamps increase")
        if len(times) > 10:
            step = statistics.median(b - a for a, b in zip(times, times[1:]))
            check(abs(step - 0.02) < 0.002, f"samples 20 ms apart ({step * 1000:.1f} ms)")
        norms = [math.sqrt(s.accelerometer.x ** 2 + s.accelerometer.y ** 2 + s.accelerometer.z ** 2)
                 for s in samples]
        if norms:
            check(abs(statistics.median(norms) - 9.81) < 0.5,
                  f"accelerometer in m/s² ({statistics.median(norms):.2f})")
        check(len(motions) >= 75, f"device motion arrives ({len(motions)} in 6 s at 25 Hz)")
        gravity = [math.sqrt(m.gravity.x ** 2 + m.gravity.y ** 2 + m.gravity.z ** 2) for m in motions]
        if gravity:
            check(max(abs(g - 1) for g in gravity) < 0.01, "device-motion gravity is 1 g")
            check(all(m.heading == -1 for m in motions), "no heading in the arbitrary frame")

        connection.send(C(request_id=4, status=pb.StatusRequest()))
        status, _ = connection.reply_to(4, "status")
        mine = [c for c in status.status.clients if c.name == "python-interop"]
        check(len(mine) == 1, "DaemonStatus lists this client")
        if mine:
            ids = sorted(s.id for s in mine[0].subscriptions)
            check(ids == [2, 3], f"with both subscriptions ({ids})")

        now = time.time()
        connection.send(C(request_id=5, pedometer_query=pb.PedometerQuery(from_date=now - 3600, to_date=now)))
        pedometer, _ = connection.reply_to(5, "pedometer")
        steps = pedometer.pedometer.steps
        # A count: a whole number, and small (the tour is hand-held motion, not a walk), so a
        # garbage total fails without depending on the simulator counting exactly none.
        check(pedometer.pedometer.to_date >= pedometer.pedometer.from_date
              and math.isfinite(steps) and steps == int(steps) and 0 <= steps <= 20,
              f"PedometerQuery answered ({steps:.0f} steps: the tour has none)")
        connection.send(C(request_id=6, activity_query=pb.ActivityQuery(from_date=now - 3600, to_date=now)))
        connection.reply_to(6, "activities")
        check(True, "ActivityQuery answered")

        connection.send(C(request_id=7, unsubscribe=pb.Unsubscribe(subscription_id=2)))
        connection.reply_to(7, "ack")
        # Frames already queued may still come; after a second none of subscription 2 may.
        time.sleep(1)
        deadline = time.monotonic() + 2
        late = 0
        motions_after = 0
        while True:
            message = connection.receive(deadline)
            if message is None:
                break
            if message.request_id == 2 and message.WhichOneof("body") == "samples":
                late += 1
            if message.request_id == 3:
                motions_after += 1
        check(late == 0, f"no samples after Unsubscribe ({late} batches)")
        check(motions_after > 0, "the other subscription goes on")
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
