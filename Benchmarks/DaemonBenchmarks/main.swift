// SPDX-License-Identifier: Apache-2.0
//
// Daemon benchmarks: delivery latency and CPU for 1 and 10 clients taking device motion at
// 100 Hz from a `motiond` on the simulator, side by side with the same stream in-process; and the
// history store's write cost, size per day and query times.
//
//   swift build -c release --product motiond --product DaemonBenchmarks
//   .build/release/DaemonBenchmarks [SECONDS [ROUNDS]]   (default 10 s per run, 3 rounds)

import Foundation
import Logging
@_spi(Benchmarks) import MotionDaemon  // HistoryStore and HistoryBatch, for the history figures
import MotionDaemonClient
import MotionSensors
import OpenCoreMotion
import SourceComposition

#if canImport(Glibc)
  import Glibc
#endif

let measureSeconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 10 : 10

// MARK: - Helpers

func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
    + Double(usage.ru_stime.tv_sec)
    + Double(usage.ru_stime.tv_usec) * 1e-6
}

/// CPU time of another process, s (/proc/PID/stat utime + stime, in clock ticks of 1/100 s).
func cpuSeconds(pid: Int32) -> Double {
  guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = text.lastIndex(of: ")")
  else { return .nan }
  let fields = text[text.index(after: close)...].split(separator: " ")
  guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return .nan
  }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
  guard !sorted.isEmpty else { return .nan }
  let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count - 1)).rounded())))
  return sorted[index]
}

/// Records, per sample timestamp, when the sample was produced (boot clock, s).
final class ProductionTimes: @unchecked Sendable {
  // Sendable because `times` is only touched under `lock`.
  private let lock = NSLock()
  private var times: [Double: Double] = [:]
  func record(_ timestamp: Double, _ produced: Double) {
    lock.withLock { times[timestamp] = produced }
  }
  func produced(_ timestamp: Double) -> Double? { lock.withLock { times[timestamp] } }
}

/// Handler arrival times per sample timestamp, for every manager.
final class Arrivals: @unchecked Sendable {
  // Sendable because `items` is only touched under `lock`.
  private let lock = NSLock()
  private var items: [(timestamp: Double, arrived: Double)] = []
  func add(_ timestamp: Double, _ arrived: Double) {
    lock.withLock { items.append((timestamp, arrived)) }
  }
  var all: [(timestamp: Double, arrived: Double)] { lock.withLock { items } }
}

/// A source wrapper that notes when each sample left the real source (in-process baseline).
final class TimedSource: SensorSource, @unchecked Sendable {
  // Sendable: immutable.
  let inner: any SensorSource
  let times: ProductionTimes
  init(_ inner: any SensorSource, times: ProductionTimes) {
    self.inner = inner
    self.times = times
  }
  var name: String { inner.name }
  var availableSensors: SensorSet { inner.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { inner.supportedSampleRates }
  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  )
    -> SourceSubscription
  {
    inner.subscribe(requestedSampleRate: requestedSampleRate) { [times] event in
      if case .sample(let sample) = event { times.record(sample.timestamp, BootClock.now) }
      handler(event)
    }
  }
}

/// A daemon source hidden behind a wrapper, so that `CMMotionManager` does not see a daemon that
/// fuses: it subscribes for raw nine-axis samples and fuses them itself, as every client did
/// before the daemon fused once for all (the baseline of the fused-motion figures).
final class SelfFusingSource: SensorSource, @unchecked Sendable {
  // Sendable: immutable.
  let inner: DaemonSource
  init(_ inner: DaemonSource) { self.inner = inner }
  var name: String { inner.name }
  var availableSensors: SensorSet { inner.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { inner.supportedSampleRates }
  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    inner.subscribe(requestedSampleRate: requestedSampleRate, handler)
  }
  func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    inner.subscribe(requestedSampleRate: requestedSampleRate, sensors: sensors, handler)
  }
}

/// One configuration's latency (from one run that records production times, which costs the
/// client process a timing subscription) and CPU (from separate runs without it, one per round).
struct DeliveryResult {
  var label: String
  var updates = 0
  var p50 = Double.nan
  var p99 = Double.nan
  var maximum = Double.nan
  /// Client process CPU per update, s, one per round.
  var clientCPUPerUpdate: [Double] = []
  /// Daemon CPU as a fraction of one core, one per round (empty in-process).
  var daemonCPUFraction: [Double] = []
}

func runManagers(sources: [any SensorSource], seconds: Double) -> (arrivals: Arrivals, cpu: Double)
{
  let arrivals = Arrivals()
  let queue = OperationQueue()
  queue.maxConcurrentOperationCount = 1
  let managers = sources.map { CMMotionManager(source: $0) }
  let cpuStart = processCPUSeconds()
  for manager in managers {
    manager.deviceMotionUpdateInterval = 0.01
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in
      guard let motion else { return }
      arrivals.add(motion.timestamp, BootClock.now)
    }
  }
  Thread.sleep(forTimeInterval: seconds)
  for manager in managers { manager.stopDeviceMotionUpdates() }
  queue.waitUntilAllOperationsAreFinished()
  return (arrivals, processCPUSeconds() - cpuStart)
}

/// Fills in `result`'s latency figures from a run with production times.
func addLatencies(_ result: inout DeliveryResult, arrivals: Arrivals, times: ProductionTimes) {
  // Skip the first second (start-up, filter warm-up).
  let all = arrivals.all
  let firstTime = all.map(\.arrived).min() ?? 0
  let latencies = all.filter { $0.arrived > firstTime + 1 }.compactMap { item in
    times.produced(item.timestamp).map { item.arrived - $0 }
  }.sorted()
  result.p50 = percentile(latencies, 0.5)
  result.p99 = percentile(latencies, 0.99)
  result.maximum = latencies.last ?? .nan
}

func startDaemon(directory: String) throws -> (Process, String) {
  let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("motiond")
  let socket = directory + "/run/motiond.sock"
  let process = Process()
  process.executableURL = binary
  process.arguments = [
    "--source", "simulator:tour", "--socket", socket, "--state-directory", directory + "/state",
    "--log-level", "warning",
  ]
  try process.run()
  let deadline = Date(timeIntervalSinceNow: 30)
  while Date() < deadline {
    if (try? DaemonClient(socketPath: socket, clientName: "probe").connect(timeout: 1)) != nil {
      return (process, socket)
    }
    usleep(50_000)
  }
  throw DaemonBenchmarkError(description: "motiond did not start")
}

struct DaemonBenchmarkError: Error, CustomStringConvertible { var description: String }

// MARK: - Delivery

/// A daemon on the simulator in a temporary directory, for one client count.
struct BenchmarkDaemon {
  let process: Process
  let socket: String
  let directory: String

  init(clients: Int) throws {
    directory = NSTemporaryDirectory() + "motiond-bench-\(getpid())-\(clients)"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    (process, socket) = try startDaemon(directory: directory)
  }

  func stop() {
    process.terminate()
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// A client source; `selfFusing` hides the daemon's fusion from `CMMotionManager`.
  func makeSource(selfFusing: Bool) throws -> any SensorSource {
    let daemonSource = try DaemonSource(socketPath: socket)
    return selfFusing ? SelfFusingSource(daemonSource) : daemonSource
  }
}

func close(_ source: any SensorSource) {
  ((source as? SelfFusingSource)?.inner ?? source as? DaemonSource)?.client.close()
}

/// Latency once per configuration, then `rounds` rounds of CPU runs in which the configurations
/// take turns (so that a change of machine load hits all of them alike). Every daemon run has a
/// daemon of its own (the simulator's tour is finite and plays from its start).
func deliveryBenchmarks(rounds: Int) throws -> [DeliveryResult] {
  // (label, daemon or in-process, clients, self-fusing)
  let configurations: [(String, Bool, Int, Bool)] = [
    ("in-process, 1 manager", false, 1, false),
    ("daemon, 1 client, fusing itself", true, 1, true),
    ("daemon, 1 client, fused by daemon", true, 1, false),
    ("daemon, 10 clients, fusing itself", true, 10, true),
    ("daemon, 10 clients, fused by daemon", true, 10, false),
  ]
  var results = configurations.map { DeliveryResult(label: $0.0) }

  for (index, (_, usesDaemon, clients, selfFusing)) in configurations.enumerated() {
    let times = ProductionTimes()
    guard usesDaemon else {
      let timed = TimedSource(
        try SourceFactory.makeSource(.simulator(scenario: "tour")), times: times)
      let run = runManagers(sources: [timed], seconds: measureSeconds)
      addLatencies(&results[index], arrivals: run.arrivals, times: times)
      continue
    }
    // Production time = when the daemon received the sample from its source (sent with each
    // sample), learnt through a timing subscription of this process.
    let daemon = try BenchmarkDaemon(clients: clients)
    defer { daemon.stop() }
    let timing = DaemonClient(socketPath: daemon.socket, clientName: "timing")
    let timingSubscription = try timing.subscribe(
      DaemonStreamRequest(sensors: .accelerometer, rate: 100)
    ) { event in
      if case .sample(let sample, let received) = event {
        times.record(sample.timestamp, Double(received) * 1e-9)
      }
    }
    let sources = try (0..<clients).map { _ in try daemon.makeSource(selfFusing: selfFusing) }
    Thread.sleep(forTimeInterval: 0.5)
    let run = runManagers(sources: sources, seconds: measureSeconds)
    timingSubscription.cancel()
    timing.close()
    for source in sources { close(source) }
    addLatencies(&results[index], arrivals: run.arrivals, times: times)
  }

  for _ in 0..<rounds {
    for (index, (_, usesDaemon, clients, selfFusing)) in configurations.enumerated() {
      let daemon = usesDaemon ? try BenchmarkDaemon(clients: clients) : nil
      defer { daemon?.stop() }
      let sources: [any SensorSource]
      if let daemon {
        sources = try (0..<clients).map { _ in try daemon.makeSource(selfFusing: selfFusing) }
      } else {
        sources = [try SourceFactory.makeSource(.simulator(scenario: "tour"))]
      }
      Thread.sleep(forTimeInterval: 0.5)
      let pid = daemon?.process.processIdentifier
      let daemonStart = pid.map(cpuSeconds(pid:))
      let run = runManagers(sources: sources, seconds: measureSeconds)
      let updates = run.arrivals.all.count
      results[index].updates = updates
      results[index].clientCPUPerUpdate.append(run.cpu / Double(max(1, updates)))
      if let pid, let daemonStart {
        results[index].daemonCPUFraction.append(
          (cpuSeconds(pid: pid) - daemonStart) / measureSeconds)
      }
      for source in sources { close(source) }
    }
  }
  return results
}

// MARK: - History store

func historyBenchmarks() throws {
  let directory = NSTemporaryDirectory() + "motiond-history-bench-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: directory) }
  var logger = Logger(label: "bench")
  logger.logLevel = .error
  let store = try HistoryStore.open(directory: directory, logger: logger)
  defer { store.close() }
  // 12 h of 50 Hz accelerometer written as the daemon writes it: one transaction per second with
  // 50 samples and the current minute's step row.
  let hours = 12.0
  let seconds = Int(hours * 3600)
  let start = Date().timeIntervalSince1970 - hours * 3600 - 60
  let cpuStart = processCPUSeconds()
  let wallStart = Date()
  var identifier: UInt64 = 0
  for second in 0..<seconds {
    var batch = HistoryBatch()
    let base = start + Double(second)
    for k in 0..<50 {
      let t = base + Double(k) * 0.02
      batch.recorded.append(
        HistoryBatch.RecordedSample(
          timestamp: t - start, date: t, acceleration: SIMD3(0.1 * sin(t), 0.2, 9.81)))
    }
    var delta = HistoryBatch.StepDelta()
    delta.steps = 2
    delta.distance = 1.4
    batch.steps[Int64((base / 60).rounded(.down)) * 60] = delta
    try store.write(batch, firstIdentifier: identifier)
    identifier += 50
  }
  let cpu = processCPUSeconds() - cpuStart
  let wall = Date().timeIntervalSince(wallStart)
  let size = Double(store.sizeInBytes)
  print(
    String(
      format:
        "history write, 50 Hz recording + steps, 1 commit/s: %.1f s CPU and %.1f s wall per day (%.0f µs CPU per commit)",
      cpu * 24 / hours, wall * 24 / hours, cpu / Double(seconds) * 1e6))
  print(
    String(
      format: "history size: %.1f MB per day of 50 Hz recording (%.1f MB for %.0f h)",
      size * 24 / hours / 1e6, size / 1e6, hours))
  // 12 h accelerometer query.
  var count = 0
  let queryStart = Date()
  try store.accelerometer(from: start, to: start + 43_200) { count += $0.count }
  print(
    String(
      format: "12 h accelerometer query: %.3f s for %d samples",
      Date().timeIntervalSince(queryStart), count))
  // 7 days of steps: fill 7 × 1440 minute rows, then one query.
  var week = HistoryBatch()
  let weekStart = (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 7 * 86_400
  for minute in 0..<(7 * 1440) {
    var delta = HistoryBatch.StepDelta()
    delta.steps = 30
    delta.distance = 21
    week.steps[Int64(weekStart) + Int64(minute) * 60] = delta
  }
  try store.write(week, firstIdentifier: identifier)
  let stepsStart = Date()
  let totals = try store.pedometerTotals(from: weekStart, to: weekStart + 7 * 86_400)
  print(
    String(
      format: "7 days steps query: %.4f s (%lld steps)", Date().timeIntervalSince(stepsStart),
      totals.steps))
}

// MARK: - Main

let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 3 : 3
print(
  "delivery: device motion at 100 Hz from simulator:tour, \(measureSeconds) s per run, "
    + "latency from one run, CPU median of \(rounds) alternating rounds [each round]")
print(
  "configuration                          updates   p50 ms   p99 ms   max ms   client CPU µs/update   daemon CPU %"
)
func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }
for result in try deliveryBenchmarks(rounds: max(1, rounds)) {
  let client = result.clientCPUPerUpdate.map { $0 * 1e6 }
  let daemon = result.daemonCPUFraction.map { $0 * 100 }
  let clientText =
    String(format: "%.1f [", median(client))
    + client.map { String(format: "%.1f", $0) }.joined(separator: " ") + "]"
  let daemonText =
    daemon.isEmpty
    ? "-"
    : String(format: "%.2f [", median(daemon))
      + daemon.map { String(format: "%.2f", $0) }.joined(separator: " ") + "]"
  print(
    result.label.padding(toLength: 36, withPad: " ", startingAt: 0)
      + String(
        format: "%9d  %7.3f  %7.3f  %7.3f   ", result.updates, result.p50 * 1e3, result.p99 * 1e3,
        result.maximum * 1e3)
      + clientText.padding(toLength: 26, withPad: " ", startingAt: 0) + daemonText)
}
try historyBenchmarks()
