// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A recording opened by ``RecordingReader``: a ``SampleStream`` that also tells where it came from
/// and how many invalid rows it skipped.
///
/// When the format states no sample rate (phyphox, x-IMU3, SensorLog, column mappings), the
/// descriptor's `nominalSampleRate` is estimated in Hz from the first samples: for each sensor the
/// median interval between its own samples, to the nanosecond, and the fastest sensor's rate wins
/// (times 0, 0.02, 0.04, … give 50 Hz, not 49.99999999999996). The metadata key
/// `nominalSampleRateEstimated` is then `"true"`. Those samples are read ahead and still delivered;
/// an error met while reading ahead is thrown by the ``next()`` call that reaches it.
public struct RecordingStream: SampleStream {
  /// The file or folder read.
  public let url: URL
  /// The format it was read as.
  public let format: RecordingFormat
  // Settable in the module: a reader that learns more of the recording after opening it (the
  // shared tables' device-motion columns) says so.
  public internal(set) var descriptor: StreamDescriptor
  private var base: any RecordingRowStream
  private var readAhead: [MotionSample] = []
  private var readAheadIndex = 0
  private var readAheadError: Error?

  /// The number of samples read ahead to estimate a missing sample rate.
  static let rateEstimationSampleCount = 256

  init(url: URL, format: RecordingFormat, base: any RecordingRowStream) {
    self.url = url
    self.format = format
    self.base = base
    var descriptor = base.descriptor
    if descriptor.nominalSampleRate == nil {
      do {
        while readAhead.count < Self.rateEstimationSampleCount, let sample = try self.base.next() {
          readAhead.append(sample)
        }
      } catch {
        readAheadError = error
      }
      if let rate = Self.estimatedRate(readAhead) {
        descriptor.nominalSampleRate = rate
        descriptor.metadata["nominalSampleRateEstimated"] = "true"
      }
    }
    self.descriptor = descriptor
  }

  /// The number of rows left out so far under ``RecordingReader/InvalidRowPolicy/skip``.
  public var skippedRowCount: Int { base.skippedRowCount }

  public mutating func next() throws -> MotionSample? {
    if readAheadIndex < readAhead.count {
      defer { readAheadIndex += 1 }
      return readAhead[readAheadIndex]
    }
    if let error = readAheadError {
      readAheadError = nil
      throw error
    }
    return try base.next()
  }

  /// The fastest sensor's rate in Hz, from the median interval between its samples; `nil` when no
  /// sensor has two samples at distinct times.
  static func estimatedRate(_ samples: [MotionSample]) -> Double? {
    let sensors: [SensorSet] = [
      .accelerometer, .gyroscope, .magnetometer, .barometer, .thermometer,
    ]
    var best: Double?
    for sensor in sensors {
      let times = samples.filter { $0.sensors.contains(sensor) }.map(\.timestamp)
      var intervals = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
      guard !intervals.isEmpty else { continue }
      intervals.sort()
      let median = intervals[intervals.count / 2]
      // To whole nanoseconds, finer than any recording's clock: below that the median is the
      // binary rounding of decimal times (1.02 − 1 = 0.020000000000000018), and 1 / rate, the
      // interval a player or a manager derives, would show it.
      let nanoseconds = (median * 1e9).rounded()
      let rate = 1 / (nanoseconds.isFinite && nanoseconds > 0 ? nanoseconds / 1e9 : median)
      if rate.isFinite { best = Swift.max(best ?? 0, rate) }
    }
    return best
  }
}

/// A reader's stream: samples plus a count of skipped rows.
protocol RecordingRowStream: SampleStream {
  var skippedRowCount: Int { get }
}
