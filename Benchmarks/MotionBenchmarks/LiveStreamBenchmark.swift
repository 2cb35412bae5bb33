// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion
import _AllocationCounter

#if canImport(Glibc)
  import Glibc
#endif

/// The cost of a live Core Motion stream in this process: the simulator paced in real time at
/// 100 Hz, consumed by nothing but a counter (the source alone), by a `CMMotionManager`
/// accelerometer handler, and by a device-motion handler, each on an `OperationQueue`.
///
/// CPU time is the whole process's (`getrusage`, every thread), so it includes the player's
/// wake-ups, the queue hop and the handler; the source-alone run of the same round is the baseline
/// that the API's own cost is measured against. Context switches per update and heap allocations
/// per update are printed too: they do not depend on the machine's load.
///
/// Each stream runs twice: with the player waking for every sample (`batchInterval` 0, how the
/// player paced before 2026-11-25) and with its default batching, so that the figures before and
/// after sit side by side in one run.
enum LiveStreamBenchmark {
  enum Stream: String, CaseIterable {
    /// The paced simulator with one subscriber that counts samples.
    case source
    /// `startAccelerometerUpdates(to:withHandler:)` at 100 Hz.
    case accelerometer
    /// `startDeviceMotionUpdates(using: .xArbitraryZVertical, to:withHandler:)` at 100 Hz.
    case deviceMotion = "device-motion"
  }

  struct Figures {
    var cpuSeconds: Double
    var wallSeconds: Double
    var updates: Int
    var contextSwitches: Int
    var allocations: UInt64

    var cpuPerUpdate: Double { cpuSeconds / Double(max(updates, 1)) }
    var coreShare: Double { cpuSeconds / wallSeconds }
  }

  private struct Usage {
    var cpu: Double
    var contextSwitches: Int
    static var now: Usage {
      var usage = rusage()
      getrusage(RUSAGE_SELF.rawValue, &usage)
      func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
      return Usage(
        cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw)
    }
  }

  /// Runs `stream` for `seconds` of wall time after a 0.5 s warm-up, the player batching samples
  /// that fall due within `batchInterval` s.
  static func measure(_ stream: Stream, seconds: Double, batchInterval: Double) throws -> Figures {
    var scenario = try Scenario.named("tour")
    scenario.repeats = true
    scenario.duration = seconds + 60
    let player = StreamPlayer(
      SimulatedSensorStream(scenario: scenario), pacing: .realTime(speed: 1),
      batchInterval: batchInterval)
    let updates = Counter()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    var subscription: SourceSubscription?
    var manager: CMMotionManager?
    switch stream {
    case .source:
      subscription = player.subscribe(requestedSampleRate: 100) { event in
        if case .sample = event { updates.increment() }
      }
    case .accelerometer:
      manager = CMMotionManager(source: player)
      manager!.accelerometerUpdateInterval = 0.01
      manager!.startAccelerometerUpdates(to: queue) { data, _ in
        if data != nil { updates.increment() }
      }
    case .deviceMotion:
      manager = CMMotionManager(source: player)
      manager!.deviceMotionUpdateInterval = 0.01
      manager!.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, _ in
        if motion != nil { updates.increment() }
      }
    }
    Thread.sleep(forTimeInterval: 0.5)
    let startUpdates = updates.value
    let start = Usage.now
    let startAllocations = motion_allocation_count()
    let wallStart = DispatchTime.now().uptimeNanoseconds
    Thread.sleep(forTimeInterval: seconds)
    let end = Usage.now
    let endAllocations = motion_allocation_count()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) * 1e-9
    let endUpdates = updates.value
    subscription?.cancel()
    manager?.stopAccelerometerUpdates()
    manager?.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    return Figures(
      cpuSeconds: end.cpu - start.cpu, wallSeconds: wall, updates: endUpdates - startUpdates,
      contextSwitches: end.contextSwitches - start.contextSwitches,
      allocations: endAllocations - startAllocations)
  }

  /// Three rounds of every stream and batching (interleaved, so that a change of load hits all
  /// alike); the best CPU figure of each.
  static func run(seconds: Double, rounds: Int = 3) throws {
    let batchIntervals = [0, StreamPlayer.defaultBatchInterval]
    var best: [String: Figures] = [:]
    func key(_ stream: Stream, _ batch: Double) -> String { "\(stream.rawValue) \(batch)" }
    for _ in 0..<rounds {
      for stream in Stream.allCases {
        for batch in batchIntervals {
          let figures = try measure(stream, seconds: seconds, batchInterval: batch)
          if figures.cpuSeconds < best[key(stream, batch)]?.cpuSeconds ?? .infinity {
            best[key(stream, batch)] = figures
          }
        }
      }
    }
    for batch in batchIntervals {
      let label =
        batch == 0 ? "a wake-up per sample" : String(format: "batches of %.0f ms", batch * 1e3)
      print("live 100 Hz simulator, player \(label):")
      let baseline = best[key(.source, batch)]!
      for stream in Stream.allCases {
        let figures = best[key(stream, batch)]!
        let perUpdate = Double(max(figures.updates, 1))
        report(
          "  \(stream.rawValue): CPU per update", figures.cpuPerUpdate * 1e6, "µs",
          String(
            format:
              "(%.2f %% of a core; %d updates in %.1f s; %.2f context switches, %.1f allocations per update)",
            figures.coreShare * 100, figures.updates, figures.wallSeconds,
            Double(figures.contextSwitches) / perUpdate, Double(figures.allocations) / perUpdate))
        if stream != .source {
          report(
            "  \(stream.rawValue): over the source alone",
            (figures.cpuPerUpdate - baseline.cpuPerUpdate) * 1e6,
            "µs",
            String(
              format: "(ratio to the source alone: %.2f)",
              figures.cpuPerUpdate / baseline.cpuPerUpdate))
        }
        if batch != 0, let unbatched = best[key(stream, 0)] {
          report(
            "  \(stream.rawValue): batched / a wake-up per sample",
            figures.cpuPerUpdate / unbatched.cpuPerUpdate, "",
            "(CPU per update, same run)")
        }
      }
    }
  }

  /// One stream for `seconds`, nothing printed but a summary line: for profilers
  /// (`valgrind --tool=callgrind motion-benchmarks live-profile accelerometer 5`).
  static func profile(_ stream: Stream, seconds: Double, batchInterval: Double) throws {
    let figures = try measure(stream, seconds: seconds, batchInterval: batchInterval)
    print(
      "\(stream.rawValue), batch \(batchInterval) s: \(figures.updates) updates, "
        + String(
          format: "%.1f µs CPU and %.2f context switches per update", figures.cpuPerUpdate * 1e6,
          Double(figures.contextSwitches) / Double(max(figures.updates, 1))))
  }
}
