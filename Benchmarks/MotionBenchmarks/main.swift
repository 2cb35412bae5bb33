// SPDX-License-Identifier: Apache-2.0

// motion-benchmarks: throughput and CPU cost of OpenCoreMotion's moving parts.
//
//     cd Benchmarks && swift run -c release motion-benchmarks [simulator|replay|device-motion|live|fusion|iio|steps|altitude|activity|all] [--broad FILE]
//     motion-benchmarks live-profile source|accelerometer|device-motion SECONDS [BATCH_S]   (one live stream, for valgrind/perf)
//
// Machines here are shared and noisy, so every figure is printed next to a baseline measured in the
// same process, and each measurement is the best of several runs.

import Foundation
import LinuxIIO
import MotionFusion
import MotionSensors
import OpenCoreMotion
import Synchronization
import _AllocationCounter
import _LinuxIIOTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// CPU time (user + system) this process has used, in seconds.
func processCPUTime() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
  return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Wall-clock seconds taken by `body`, best of `repetitions`.
func bestWallTime(repetitions: Int = 3, _ body: () throws -> Void) rethrows -> Double {
  var best = Double.infinity
  for _ in 0..<repetitions {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
  }
  return best
}

func longTour(seconds: Double) throws -> Scenario {
  var scenario = try Scenario.named("tour")
  scenario.duration = seconds
  scenario.repeats = true
  return scenario
}

func report(_ name: String, _ value: Double, _ unit: String, _ note: String = "") {
  let number = value >= 100 ? String(format: "%12.0f", value) : String(format: "%12.3f", value)
  print(
    name.padding(toLength: 44, withPad: " ", startingAt: 0) + number + " " + unit
      + (note.isEmpty ? "" : "   " + note))
}

// MARK: - Benchmarks

func benchmarkSimulator() throws {
  let scenario = try longTour(seconds: 3000)  // 300 000 samples at 100 Hz
  var count = 0
  let time = try bestWallTime {
    var stream = SimulatedSensorStream(scenario: scenario)
    count = 0
    while try stream.next() != nil { count += 1 }
  }
  report("simulator (tour, phone noise)", Double(count) / time, "samples/s")
}

func benchmarkReplay() throws {
  let scenario = try longTour(seconds: 2000)
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "motion-benchmarks-\(getpid()).csv")
  defer { try? FileManager.default.removeItem(at: url) }
  var stream = SimulatedSensorStream(scenario: scenario)
  let writer = try RecordingWriter(
    url: url, descriptor: stream.descriptor, includeGroundTruth: false)
  var written = 0
  let writeTime = try bestWallTime(repetitions: 1) {
    written = try writer.writeAll(from: &stream)
    try writer.finish()
  }
  report("recording writer (own CSV)", Double(written) / writeTime, "samples/s")

  var read = 0
  let readTime = try bestWallTime {
    var recording = try RecordingReader.open(url)
    read = 0
    while try recording.next() != nil { read += 1 }
  }
  report("recording reader (own CSV)", Double(read) / readTime, "samples/s")

  var replayed = 0
  let replayTime = try bestWallTime {
    let recording = try RecordingReader.open(url)
    let summary = try DeviceMotionReplay.run(recording, frame: .xArbitraryZVertical) { _ in }
    replayed = summary.deviceMotionCount
  }
  report("replay: read + fuse + CMDeviceMotion", Double(replayed) / replayTime, "samples/s")
}

/// A count shared with a handler running on another thread.
final class Counter: Sendable {
  private let count = Mutex(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

func benchmarkDeviceMotionCost() throws {
  // Baseline: producing the samples alone (simulation + player thread), same process.
  let seconds = 600.0  // 60 000 samples at 100 Hz
  let scenario = try longTour(seconds: seconds)

  func run(
    withManager: Bool, pacing: Pacing = .asFastAsPossible, scenario: Scenario = scenario
  ) throws -> (cpu: Double, updates: Int) {
    let player = StreamPlayer(SimulatedSensorStream(scenario: scenario), pacing: pacing)
    let finished = DispatchSemaphore(value: 0)
    let updates = Counter()
    let cpuStart = processCPUTime()
    let watcher = player.subscribe(requestedSampleRate: 100) { event in
      if case .finished = event { finished.signal() }
    }
    var manager: CMMotionManager?
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    if withManager {
      manager = CMMotionManager(source: player)
      manager!.deviceMotionUpdateInterval = 0.01
      manager!.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, _ in
        if motion != nil { updates.increment() }
      }
    }
    finished.wait()
    queue.waitUntilAllOperationsAreFinished()
    manager?.stopDeviceMotionUpdates()
    watcher.cancel()
    return (processCPUTime() - cpuStart, updates.value)
  }

  var baseline = Double.infinity
  var withManager = Double.infinity
  var updates = 0
  for _ in 0..<3 {
    baseline = min(baseline, try run(withManager: false).cpu)
    let measured = try run(withManager: true)
    withManager = min(withManager, measured.cpu)
    updates = measured.updates
  }
  let perUpdate = (withManager - baseline) / Double(max(updates, 1))
  report(
    "device motion: CPU per delivered update", perUpdate * 1e6, "µs",
    "(\(updates) updates at 100 Hz; baseline sample production \(String(format: "%.1f", baseline / Double(max(updates, 1)) * 1e6)) µs/sample subtracted)"
  )
  report(
    "device motion at 100 Hz: CPU load", perUpdate * 100 * 100, "% of one core",
    "(updates as fast as possible)")

  // The same in real time: 10 s at 100 Hz, so that thread wake-ups and queue hand-offs of a live
  // stream are counted too.
  let live = try longTour(seconds: 10)
  let pacedBaseline = try run(withManager: false, pacing: .realTime(speed: 1), scenario: live).cpu
  let paced = try run(withManager: true, pacing: .realTime(speed: 1), scenario: live)
  let pacedPerUpdate = (paced.cpu - pacedBaseline) / Double(max(paced.updates, 1))
  report(
    "device motion, live 100 Hz: CPU per update", pacedPerUpdate * 1e6, "µs",
    "(\(paced.updates) updates in 10 s; baseline: the paced source alone)")
  report("device motion, live 100 Hz: CPU load", pacedPerUpdate * 100 * 100, "% of one core")
}

func benchmarkFusion(broadFile: String?) throws {
  let samples: [MotionSample]
  let label: String
  if let broadFile {
    samples = try RecordingReader.readSamples(URL(fileURLWithPath: broadFile))
    label = URL(fileURLWithPath: broadFile).lastPathComponent
  } else {
    var stream = SimulatedSensorStream(scenario: try longTour(seconds: 3000))
    samples = try stream.collect()
    label = "simulator tour"
  }
  let period =
    samples.count > 1
    ? (samples.last!.timestamp - samples.first!.timestamp) / Double(samples.count - 1) : 0.01
  var checksum = 0.0
  let time = bestWallTime(repetitions: 5) {
    var estimator = DeviceMotionEstimator(samplePeriod: period)
    for sample in samples {
      guard let gyroscope = sample.gyroscope, let accelerometer = sample.accelerometer else {
        continue
      }
      estimator.update(
        timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
        magnetometer: sample.magnetometer)
    }
    checksum += estimator.earthFromSensor9D.w
  }
  report(
    "fusion: DeviceMotionEstimator 9D (\(label))", Double(samples.count) / time, "samples/s",
    checksum.isFinite ? "" : "(non-finite output!)")

  // Steady state: after the first second, the estimator must not touch the heap per sample.
  guard motion_allocation_counting_available() != 0 else { return }
  // The counter must see a known allocation, or a zero below would prove nothing.
  let probeStart = motion_allocation_count()
  let probe = [Double](repeating: checksum, count: 1000)
  guard motion_allocation_count() > probeStart, probe.count == 1000 else {
    print("fusion: heap allocation counting does not work in this build; skipped")
    return
  }
  var estimator = DeviceMotionEstimator(samplePeriod: period)
  let warmUp = min(samples.count / 10, Int(1 / max(period, 1e-6)))
  var before: UInt64 = 0
  for (index, sample) in samples.enumerated() {
    if index == warmUp { before = motion_allocation_count() }
    guard let gyroscope = sample.gyroscope, let accelerometer = sample.accelerometer else {
      continue
    }
    estimator.update(
      timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: sample.magnetometer)
    checksum += estimator.earthFromSensor9D.x
  }
  let allocations = motion_allocation_count() - before
  report(
    "fusion: heap allocations per sample (steady state)",
    Double(allocations) / Double(samples.count - warmUp), "",
    "(\(allocations) allocations over \(samples.count - warmUp) samples after a \(warmUp)-sample warm-up)"
  )
}

func benchmarkIIO() throws {
  // A fake mpu6050-like buffered device (FIFO node) paced at 100 Hz for 5 s: the whole process's
  // CPU time, which includes the fake device's writer thread, so the figure is an upper bound.
  let paced = try IIOBenchmark.replayBufferedStream(records: 500, rate: 100)
  report(
    "IIO buffered stream at 100 Hz: CPU load", paced.coreShare(atRate: 100) * 100, "% of one core",
    String(format: "(%.1f µs per record incl. the fake writer)", paced.cpuSecondsPerRecord * 1e6))
  let unpaced = try IIOBenchmark.replayBufferedStream(records: 20_000)
  report(
    "IIO buffered stream, unpaced", Double(unpaced.records) / unpaced.wallSeconds, "records/s",
    String(format: "(%.1f µs CPU per record)", unpaced.cpuSecondsPerRecord * 1e6))
}

// MARK: - Main

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "live-profile" {
  let batch = arguments.count > 3 ? Double(arguments[3]) : StreamPlayer.defaultBatchInterval
  guard arguments.count == 3 || arguments.count == 4,
    let stream = LiveStreamBenchmark.Stream(rawValue: arguments[1]),
    let seconds = Double(arguments[2]), seconds > 0, seconds <= 3600, let batch, batch >= 0,
    batch <= 1
  else {
    FileHandle.standardError.write(
      Data(
        "usage: motion-benchmarks live-profile source|accelerometer|device-motion SECONDS [BATCH_S]\n"
          .utf8))
    exit(2)
  }
  do { try LiveStreamBenchmark.profile(stream, seconds: seconds, batchInterval: batch) } catch {
    FileHandle.standardError.write(Data("motion-benchmarks: \(error)\n".utf8))
    exit(1)
  }
  exit(0)
}
var liveSeconds = 10.0
if let index = arguments.firstIndex(of: "--live-seconds"), index + 1 < arguments.count {
  liveSeconds = min(max(Double(arguments[index + 1]) ?? 10, 1), 600)
  arguments.removeSubrange(index...(index + 1))
}
var broadFile: String?
if let index = arguments.firstIndex(of: "--broad"), index + 1 < arguments.count {
  broadFile = arguments[index + 1]
  arguments.removeSubrange(index...(index + 1))
}
let selection = Set(arguments.isEmpty ? ["all"] : arguments)
let known: Set = [
  "all", "simulator", "replay", "device-motion", "live", "fusion", "iio", "steps", "altitude",
  "activity",
]
guard selection.isSubset(of: known) else {
  FileHandle.standardError.write(
    Data(
      "usage: motion-benchmarks [\(known.sorted().joined(separator: "|"))]... [--broad FILE] [--live-seconds S]\n"
        .utf8))
  exit(2)
}
#if DEBUG
  print(
    "warning: a debug build; run with `swift run -c release motion-benchmarks` for real figures")
#endif
do {
  if selection.contains("all") || selection.contains("simulator") { try benchmarkSimulator() }
  if selection.contains("all") || selection.contains("replay") { try benchmarkReplay() }
  if selection.contains("all") || selection.contains("device-motion") {
    try benchmarkDeviceMotionCost()
  }
  if selection.contains("all") || selection.contains("live") {
    try LiveStreamBenchmark.run(seconds: liveSeconds)
  }
  if selection.contains("all") || selection.contains("fusion") {
    try benchmarkFusion(broadFile: broadFile)
  }
  if selection.contains("all") || selection.contains("steps") {
    StepDetectorBenchmark.run(report: report)
    RidingStepGateBenchmark.run(report: report)
    PedometerTrackerBenchmark.run(report: report)
  }
  if selection.contains("all") || selection.contains("steps") || selection.contains("altitude") {
    BarometerTrackerBenchmark.run(report: report)
  }
  if selection.contains("all") || selection.contains("activity") { benchmarkActivity() }
  #if os(Linux)
    if selection.contains("all") || selection.contains("iio") { try benchmarkIIO() }
  #endif
} catch {
  FileHandle.standardError.write(Data("motion-benchmarks: \(error)\n".utf8))
  exit(1)
}
