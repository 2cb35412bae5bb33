// SPDX-License-Identifier: Apache-2.0
//
// motion-soak: an hour (by default) of simulated 100 Hz nine-axis samples through the Core Motion
// API with slow consumers, sampling the resident set size over time. Memory must stay flat: the
// handler queue and the async sequence are bounded (their drops are counted and printed).
//
//   cd Benchmarks && swift run -c release motion-soak                 # 3600 s of stream time, real time
//   swift run -c release motion-soak --seconds 60 --speed 10 --every 5  # a short run
//
// Consumers: a device-motion handler on an OperationQueue that takes 15 ms per update (slower than
// the 10 ms period, so its backlog fills), an accelerometer handler whose queue is suspended for
// the whole run (a blocked consumer), and an async device-motion sequence read every 50 ms.
import Foundation
import MotionSensors
import OpenCoreMotion

/// Endless 100 Hz samples of a device gently rocking face up, with a little deterministic noise.
struct EndlessStream: SampleStream {
  let descriptor = StreamDescriptor(name: "soak", sensors: .nineAxis, nominalSampleRate: 100)
  private var index = 0

  mutating func next() throws -> MotionSample? {
    defer { index += 1 }
    let t = Double(index) / 100
    let angle = 0.2 * sin(2 * .pi * 0.25 * t)
    let rate = 0.2 * 2 * .pi * 0.25 * cos(2 * .pi * 0.25 * t)
    let noise = Double((index &* 2_654_435_761) % 1000) / 1000 - 0.5
    return MotionSample(
      timestamp: t,
      accelerometer: SIMD3(0, 9.80665 * sin(angle), 9.80665 * cos(angle) + 0.01 * noise),
      gyroscope: SIMD3(rate + 0.001 * noise, 0, 0),
      magnetometer: SIMD3(20, 40 * sin(angle), -40 * cos(angle)))
  }
}

/// A counter shared between the handler queues and the sampling loop (MotionSensors' `Locked` is
/// `package`, not visible from this package).
final class Counter: @unchecked Sendable {  // `value` is only touched under `lock`
  private let lock = NSLock()
  private var value = 0
  func increment() {
    lock.lock()
    value += 1
    lock.unlock()
  }
  var current: Int {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
}

/// Resident set size in MiB (Linux `/proc/self/statm`; 0 elsewhere).
func residentMiB() -> Double {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
    return 0
  }
  let fields = text.split(separator: " ")
  guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
  return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

func option(_ name: String, _ fallback: Double) -> Double {
  let arguments = CommandLine.arguments
  guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count,
    let value = Double(arguments[i + 1]),
    value.isFinite, value > 0
  else { return fallback }
  return value
}

let streamSeconds = option("--seconds", 3600)
let speed = option("--speed", 1)
let every = option("--every", 60)

let player = StreamPlayer(EndlessStream(), pacing: .realTime(speed: speed))
let manager = CMMotionManager(source: player)
manager.deviceMotionUpdateInterval = 0.01
manager.accelerometerUpdateInterval = 0.01

let slowQueue = OperationQueue()
slowQueue.maxConcurrentOperationCount = 1
let handled = Counter()
manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: slowQueue) { motion, _ in
  if motion != nil { handled.increment() }
  Thread.sleep(forTimeInterval: 0.015)
}
let blockedQueue = OperationQueue()
blockedQueue.maxConcurrentOperationCount = 1
blockedQueue.isSuspended = true
manager.startAccelerometerUpdates(to: blockedQueue) { _, _ in }

let sequence = manager.deviceMotionUpdates()
let sequenceRead = Counter()
let reader = Task.detached {
  for await _ in sequence {
    sequenceRead.increment()
    try? await Task.sleep(nanoseconds: 50_000_000)
  }
}

let wallSeconds = streamSeconds / speed
print(
  "motion-soak: \(streamSeconds) s of 100 Hz stream at \(speed)x (\(wallSeconds) s), RSS every \(every) s"
)
print("wall_s,rss_mib,handled,sequence_read,sequence_dropped")
let start = ProcessInfo.processInfo.systemUptime
var samples: [(Double, Double)] = []
while true {
  let elapsed = ProcessInfo.processInfo.systemUptime - start
  let rss = residentMiB()
  samples.append((elapsed, rss))
  print(
    String(
      format: "%.0f,%.1f,%d,%d,%d", elapsed, rss, handled.current, sequenceRead.current,
      sequence.droppedCount))
  fflush(nil)  // every output stream (naming `stdout` is not concurrency-safe in Swift 6)
  if elapsed >= wallSeconds { break }
  Thread.sleep(forTimeInterval: min(every, wallSeconds - elapsed + 0.001))
}
manager.stopDeviceMotionUpdates()
manager.stopAccelerometerUpdates()
blockedQueue.isSuspended = false
reader.cancel()

// Flat: RSS at the end against RSS after the first tenth of the run (warm-up: buffers fill to their
// caps).
let warm = samples.first { $0.0 >= wallSeconds / 10 } ?? samples[0]
let last = samples[samples.count - 1]
let growth = last.1 - warm.1
print(
  String(
    format: "rss_mib: after warm-up %.1f, end %.1f, growth %.1f (peak %.1f)", warm.1, last.1,
    growth,
    samples.map(\.1).max() ?? 0))
print("dropped by the bounded async sequence: \(sequence.droppedCount)")
exit(growth > 32 ? 1 : 0)
