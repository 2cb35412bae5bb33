// SPDX-License-Identifier: Apache-2.0

import MotionMath
import MotionRecognition

/// Scores an orientation classifier against ground truth: agreement on clear-cut samples and the
/// delay with which each real change is reported.
///
/// The true class of a sample is the orientation nearest to the reference gravity direction
/// (``DeviceOrientation/nearest(toGravity:)``). Only *clear* samples count: those whose reference
/// gravity lies more than ``Criteria/boundaryMargin`` (10°) inside its class's region, because
/// near a boundary any answer (and the classifier's deliberate hysteresis) is acceptable.
///
/// A *change* is a pair of consecutive clear samples with different true classes where the new
/// class then stays the clear class for ``Criteria/minimumHold`` (0.3 s). Its latency is the time
/// from the first clear sample of the new class to the first sample, after the last clear sample
/// of the old class, at which the classifier reports the new class (0 if it already did). A change
/// is on time when the latency is at most ``Criteria/changeDeadline`` (0.3 s).
public enum OrientationEvaluation {
  /// What counts as clear, a change and on time.
  public struct Criteria: Sendable, Hashable {
    /// Minimum margin inside the true class's region for a sample to be scored, radians. Default
    /// 10°.
    public var boundaryMargin: Double
    /// Maximum delay for a change to count as reported on time, seconds. Default 0.3 s.
    public var changeDeadline: Double
    /// How long a new true class must stay clear to count as a change, seconds. Default 0.3 s.
    public var minimumHold: Double
    /// How long after a change the classifier is searched for the new class, seconds. Default 5 s.
    public var searchWindow: Double

    /// Creates criteria; see the properties for units and defaults.
    public init(
      boundaryMargin: Double = 10 * Units.radiansPerDegree, changeDeadline: Double = 0.3,
      minimumHold: Double = 0.3, searchWindow: Double = 5
    ) {
      self.boundaryMargin = boundaryMargin
      self.changeDeadline = changeDeadline
      self.minimumHold = minimumHold
      self.searchWindow = searchWindow
    }

    /// The defaults.
    public static let `default` = Criteria()
  }

  /// The scores.
  public struct Report: Sendable, Hashable, CustomStringConvertible {
    /// All samples given.
    public var sampleCount = 0
    /// Clear samples (scored).
    public var scoredSampleCount = 0
    /// Clear samples where the classifier agreed with the true class.
    public var agreeingSampleCount = 0
    /// Clear samples where the classifier said unknown.
    public var unknownSampleCount = 0
    /// Real changes found.
    public var changeCount = 0
    /// Changes reported within the deadline.
    public var onTimeChangeCount = 0
    /// The latency of each change in seconds (`.infinity` if never reported in the search window).
    public var latencies: [Double] = []
    /// Seconds covered by the samples.
    public var duration = 0.0

    /// Creates an empty report.
    public init() {}

    /// The fraction of clear samples where the classifier agreed, 0…1 (1 when none were scored).
    public var agreement: Double {
      scoredSampleCount == 0 ? 1 : Double(agreeingSampleCount) / Double(scoredSampleCount)
    }

    /// The fraction of changes reported on time, 0…1 (1 when there were none).
    public var onTimeFraction: Double {
      changeCount == 0 ? 1 : Double(onTimeChangeCount) / Double(changeCount)
    }

    /// The largest latency in seconds (0 when there were no changes).
    public var maximumLatency: Double { latencies.max() ?? 0 }

    /// The median latency in seconds (0 when there were no changes).
    public var medianLatency: Double {
      guard !latencies.isEmpty else { return 0 }
      let sorted = latencies.sorted()
      return sorted[sorted.count / 2]
    }

    /// Adds another report's counts (e.g. to total several trials).
    public mutating func merge(_ other: Report) {
      sampleCount += other.sampleCount
      scoredSampleCount += other.scoredSampleCount
      agreeingSampleCount += other.agreeingSampleCount
      unknownSampleCount += other.unknownSampleCount
      changeCount += other.changeCount
      onTimeChangeCount += other.onTimeChangeCount
      latencies += other.latencies
      duration += other.duration
    }

    public var description: String {
      func percent(_ x: Double) -> String {
        String(Double(Int((x * 10000).rounded())) / 100) + " %"
      }
      func ms(_ x: Double) -> String {
        x.isFinite ? String(Int((x * 1000).rounded())) + " ms" : "never"
      }
      return "agreement \(percent(agreement)) of \(scoredSampleCount) clear samples "
        + "(\(unknownSampleCount) unknown); changes on time \(onTimeChangeCount)/\(changeCount), "
        + "median latency \(ms(medianLatency)), max \(ms(maximumLatency))"
    }
  }

  /// Scores classifier output against true classes.
  ///
  /// - Parameters:
  ///   - timestamps: sample times in seconds, non-decreasing.
  ///   - predicted: the classifier's output at each sample.
  ///   - referenceClasses: the true class at each sample, `nil` where unknown (e.g. occluded).
  ///   - referenceMargins: the true gravity's margin inside its class's region at each sample,
  ///     radians (``DeviceOrientation/boundaryMargin(gravity:)``), `nil` where unknown.
  ///   - criteria: what counts as clear, a change and on time.
  public static func evaluate(
    timestamps: [Double], predicted: [DeviceOrientation], referenceClasses: [DeviceOrientation?],
    referenceMargins: [Double?], criteria: Criteria = .default
  ) -> Report {
    let count = Swift.min(
      timestamps.count, predicted.count, referenceClasses.count, referenceMargins.count)
    var report = Report()
    report.sampleCount = count
    guard count > 0 else { return report }
    report.duration = timestamps[count - 1] - timestamps[0]

    func clearClass(_ i: Int) -> DeviceOrientation? {
      guard let c = referenceClasses[i], c != .unknown, let m = referenceMargins[i],
        m > criteria.boundaryMargin
      else { return nil }
      return c
    }

    var lastClear: (orientation: DeviceOrientation, index: Int)?
    for i in 0..<count {
      guard let truth = clearClass(i) else { continue }
      report.scoredSampleCount += 1
      if predicted[i] == truth { report.agreeingSampleCount += 1 }
      if predicted[i] == .unknown { report.unknownSampleCount += 1 }
      defer { lastClear = (truth, i) }
      guard let previous = lastClear, previous.orientation != truth else { continue }
      // A change only if the new class stays the clear class for the minimum hold.
      let start = timestamps[i]
      var holds = true
      var j = i + 1
      while j < count, timestamps[j] - start < criteria.minimumHold {
        if let other = clearClass(j), other != truth {
          holds = false
          break
        }
        j += 1
      }
      guard holds, j < count else { continue }
      report.changeCount += 1
      var latency = Double.infinity
      var k = previous.index + 1
      while k < count, timestamps[k] - start <= criteria.searchWindow {
        if predicted[k] == truth {
          latency = Swift.max(0, timestamps[k] - start)
          break
        }
        k += 1
      }
      report.latencies.append(latency)
      if latency <= criteria.changeDeadline { report.onTimeChangeCount += 1 }
    }
    return report
  }

  /// Runs an ``OrientationClassifier`` over gravity readings and scores it against reference
  /// gravity.
  ///
  /// - Parameters:
  ///   - timestamps: sample times in seconds, non-decreasing.
  ///   - gravity: what the classifier sees at each sample (g, Core Motion's sign), e.g. low-passed
  ///     accelerometer readings or fused gravity.
  ///   - referenceGravity: the true gravity direction at each sample (device coordinates, Core
  ///     Motion's sign; any length), `nil` where unknown.
  ///   - parameters: the classifier's parameters.
  ///   - criteria: what counts as clear, a change and on time.
  public static func evaluate(
    timestamps: [Double], gravity: [SIMD3<Double>], referenceGravity: [SIMD3<Double>?],
    parameters: OrientationClassifier.Parameters = .default, criteria: Criteria = .default
  ) -> Report {
    var classifier = OrientationClassifier(parameters: parameters)
    let count = Swift.min(timestamps.count, gravity.count, referenceGravity.count)
    var predicted: [DeviceOrientation] = []
    var classes: [DeviceOrientation?] = []
    var margins: [Double?] = []
    predicted.reserveCapacity(count)
    classes.reserveCapacity(count)
    margins.reserveCapacity(count)
    for i in 0..<count {
      predicted.append(classifier.update(gravity: gravity[i], timestamp: timestamps[i]))
      if let reference = referenceGravity[i] {
        let truth = DeviceOrientation.nearest(toGravity: reference)
        classes.append(truth)
        margins.append(truth.boundaryMargin(gravity: reference))
      } else {
        classes.append(nil)
        margins.append(nil)
      }
    }
    return evaluate(
      timestamps: Array(timestamps.prefix(count)), predicted: predicted, referenceClasses: classes,
      referenceMargins: margins, criteria: criteria)
  }
}
