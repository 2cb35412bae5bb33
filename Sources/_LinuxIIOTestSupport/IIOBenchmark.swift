// SPDX-License-Identifier: Apache-2.0

import Foundation
import LinuxIIO
import MotionSensors

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A hook for the benchmark suite: the CPU cost of the buffered read path.
public enum IIOBenchmark {
  /// What a replay measured.
  public struct Result: Sendable, CustomStringConvertible {
    /// Records written to the fake device.
    public var records: Int
    /// Samples delivered to the subscriber.
    public var delivered: Int
    /// Process CPU time (user + system) in seconds between subscribing and the last delivery. It
    /// includes the writer thread's one `write` per record, so it slightly overstates the reader.
    public var cpuSeconds: Double
    /// Wall-clock seconds over the same span.
    public var wallSeconds: Double

    /// CPU seconds per record.
    public var cpuSecondsPerRecord: Double { records > 0 ? cpuSeconds / Double(records) : 0 }

    /// The share of one core a stream at `rate` Hz would use at this per-record cost.
    public func coreShare(atRate rate: Double) -> Double { cpuSecondsPerRecord * rate }

    public var description: String {
      String(
        format: "%d records, %d delivered, CPU %.4f s (%.2f µs/record), wall %.3f s", records,
        delivered, cpuSeconds, cpuSecondsPerRecord * 1e6, wallSeconds)
    }
  }

  /// Replays `records` mpu6050-style records (accelerometer, gyroscope, temperature, timestamp;
  /// `be:s16/16`, 24-byte records) through a fake buffered device and an ``IIOSensorSource`` with
  /// one subscriber, and measures the CPU time.
  ///
  /// - Parameters:
  ///   - records: how many records to write.
  ///   - rate: nil writes as fast as the reader takes them (cost per record, batched reads); a rate
  ///     in Hz paces the writer in real time, one record per wake-up, like a live 100 Hz stream
  ///     (takes `records / rate` seconds).
  public static func replayBufferedStream(records: Int, rate: Double? = nil) throws -> Result {
    let tree = try IIOFakeTree()
    let types = [
      "in_accel_x", "in_accel_y", "in_accel_z", "in_temp", "in_anglvel_x",
      "in_anglvel_y", "in_anglvel_z",
    ]
    var elements = types.enumerated().map {
      IIOFakeTree.ScanElement(name: $1, index: $0, type: "be:s16/16")
    }
    elements.append(.init(name: "in_timestamp", index: 7, type: "le:s64/64"))
    try tree.addDevice(
      index: 0, name: "mpu6050",
      attributes: [
        "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384",
        "in_accel_scale": "0.000598", "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0",
        "in_anglvel_z_raw": "0", "in_anglvel_scale": "0.001064724", "in_temp_raw": "0",
        "in_temp_offset": "7011", "in_temp_scale": "2.995178", "sampling_frequency": "50",
        "sampling_frequency_available": "10 20 50 100 200 500",
      ],
      scanElements: elements, timestampClock: "boottime", currentTrigger: "mpu6050-dev0")
    var configuration = IIOConfiguration()
    configuration.mode = .buffered
    guard
      let source = try IIOSensorSource.discover(
        sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, configuration: configuration)
    else { throw IIOError.unreadable(path: tree.sysfsRoot, reason: "fake device not found") }
    source.warningHandler = { _ in }

    let layout = IIOScanLayout(
      elements.map { .init(name: $0.name, index: $0.index, type: IIOScanType(parsing: $0.type)!) })
    let delivered = Locked(0)
    let done = DispatchSemaphore(value: 0)
    let startCPU = processCPUSeconds()
    let startWall = Date()
    let subscription = source.subscribe(requestedSampleRate: rate ?? 100) { event in
      guard case .sample = event else { return }
      let count = delivered.withLock { n -> Int in
        n += 1
        return n
      }
      if count == records { done.signal() }
    }
    let writer = try IIOFIFOWriter(path: tree.nodePath(0), timeout: 5)
    let period = rate.map { 1 / $0 }
    var record: [String: Int64] = ["in_accel_z": 16384, "in_temp": -2000]
    for n in 0..<records {
      record["in_accel_x"] = Int64(n % 200 - 100)
      record["in_anglvel_z"] = Int64(n % 50)
      record["in_timestamp"] = Int64(n) * 10_000_000
      writer.write(layout.pack(record))
      if let period {
        let due = startWall.addingTimeInterval(Double(n + 1) * period)
        let wait = due.timeIntervalSinceNow
        if wait > 0 { usleep(useconds_t(wait * 1e6)) }
      }
    }
    let finished = done.wait(timeout: .now() + 10 + Double(records) * (period ?? 0))
    let cpu = processCPUSeconds() - startCPU
    let wall = Date().timeIntervalSince(startWall)
    subscription.cancel()
    writer.close()
    let count = delivered.withLock { $0 }
    if finished == .timedOut && count < records {
      throw IIOError.unreadable(
        path: tree.nodePath(0), reason: "only \(count) of \(records) records arrived")
    }
    return Result(records: records, delivered: count, cpuSeconds: cpu, wallSeconds: wall)
  }

  /// User + system CPU seconds of the whole process.
  static func processCPUSeconds() -> Double {
    var usage = rusage()
    #if os(Linux)
      getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
      getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }
}
