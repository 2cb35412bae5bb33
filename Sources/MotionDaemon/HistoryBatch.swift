// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What the history service has gathered since the last write: step counts per minute, activity
/// changes and recorded accelerometer samples. Written in one transaction.
@_spi(Benchmarks) public struct HistoryBatch: Sendable {
  /// Additions to one minute's pedometer row.
  @_spi(Benchmarks) public struct StepDelta: Sendable, Equatable {
    @_spi(Benchmarks) public var steps: Int64 = 0
    @_spi(Benchmarks) public var distance = 0.0
    package var floorsAscended: Int64 = 0
    package var floorsDescended: Int64 = 0
    package var activeSeconds = 0.0
    @_spi(Benchmarks) public init() {}

    /// Adds a later delta of the same minute to this one. The counts saturate at Int64's limits:
    /// a stored minute may hold any integer (the file is the user's), and an overflow must not
    /// stop the daemon.
    package mutating func add(_ other: StepDelta) {
      steps = Self.saturatingSum(steps, other.steps)
      distance += other.distance
      floorsAscended = Self.saturatingSum(floorsAscended, other.floorsAscended)
      floorsDescended = Self.saturatingSum(floorsDescended, other.floorsDescended)
      activeSeconds += other.activeSeconds
    }

    private static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
      let (sum, overflow) = a.addingReportingOverflow(b)
      guard overflow else { return sum }
      return b > 0 ? .max : .min
    }
  }

  /// One activity change (a row of `activity_change`).
  package struct ActivityChange: Sendable, Equatable {
    package var startDate: Double
    package var timestamp: Double
    /// Bit 0 stationary, 1 walking, 2 running, 3 cycling, 4 automotive, 5 unknown.
    package var flags: Int64
    package var confidence: Int64
    package init(startDate: Double, timestamp: Double, flags: Int64, confidence: Int64) {
      self.startDate = startDate
      self.timestamp = timestamp
      self.flags = flags
      self.confidence = confidence
    }
  }

  /// One recorded accelerometer sample.
  @_spi(Benchmarks) public struct RecordedSample: Sendable, Equatable {
    package var timestamp: Double
    package var date: Double
    /// Specific force, m/s².
    package var acceleration: SIMD3<Double>
    @_spi(Benchmarks) public init(timestamp: Double, date: Double, acceleration: SIMD3<Double>) {
      self.timestamp = timestamp
      self.date = date
      self.acceleration = acceleration
    }
  }

  /// Minute start (s since 1970, a multiple of 60) → additions.
  @_spi(Benchmarks) public var steps: [Int64: StepDelta] = [:]
  package var activities: [ActivityChange] = []
  @_spi(Benchmarks) public var recorded: [RecordedSample] = []

  @_spi(Benchmarks) public init() {}

  package var isEmpty: Bool { steps.isEmpty && activities.isEmpty && recorded.isEmpty }

  /// Adds `other` (a later batch) to this one.
  package mutating func merge(_ other: HistoryBatch) {
    for (minute, delta) in other.steps {
      steps[minute, default: StepDelta()].add(delta)
    }
    activities += other.activities
    recorded += other.recorded
  }
}
