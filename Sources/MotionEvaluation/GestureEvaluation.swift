// SPDX-License-Identifier: Apache-2.0

import MotionRecognition

/// Scores gesture detections against the times at which gestures really happened.
public enum GestureEvaluation {
  /// The result of matching detections to expected events.
  public struct Report: Sendable, Hashable, CustomStringConvertible {
    /// Expected events.
    public var expectedCount = 0
    /// Expected events matched by a detection within the tolerance.
    public var matchedCount = 0
    /// Detections matching no expected event.
    public var falsePositiveCount = 0
    /// Seconds covered by the input.
    public var duration = 0.0

    /// Creates an empty report.
    public init() {}

    /// Matched / expected, 0…1 (1 when nothing was expected).
    public var recall: Double {
      expectedCount == 0 ? 1 : Double(matchedCount) / Double(expectedCount)
    }

    /// False positives per ten minutes of input.
    public var falsePositivesPerTenMinutes: Double {
      duration > 0 ? Double(falsePositiveCount) * 600 / duration : 0
    }

    /// Adds another report's counts.
    public mutating func merge(_ other: Report) {
      expectedCount += other.expectedCount
      matchedCount += other.matchedCount
      falsePositiveCount += other.falsePositiveCount
      duration += other.duration
    }

    public var description: String {
      // Rounded in floating point: the duration (and so the rate) comes from a recording's
      // timestamps, and `Int(...)` of a huge or NaN value would trap.
      let recallPercent = (recall * 10000).rounded() / 100
      let rate = (falsePositivesPerTenMinutes * 100).rounded() / 100
      let seconds = duration.rounded()
      let secondsText =
        seconds.isFinite && Swift.abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
      return "recall \(recallPercent) % (\(matchedCount)/\(expectedCount)), "
        + "\(falsePositiveCount) false in \(secondsText) s (\(rate) per 10 min)"
    }
  }

  /// Matches detection times to expected event times one-to-one, greedily in time order: a
  /// detection matches the earliest unmatched expected event it lies within `window` of
  /// (`expected + window.lowerBound ... expected + window.upperBound`, seconds).
  ///
  /// - Parameters:
  ///   - detections: detection times, seconds.
  ///   - expected: true event times, seconds.
  ///   - window: how early (negative lower bound) and how late a detection may be, seconds.
  ///   - duration: seconds of input, for the false-positive rate.
  public static func match(
    detections: [Double], expected: [Double], window: ClosedRange<Double>, duration: Double
  ) -> Report {
    var report = Report()
    report.expectedCount = expected.count
    report.duration = duration
    let truth = expected.sorted()
    var used = [Bool](repeating: false, count: truth.count)
    for detection in detections.sorted() {
      if let index = truth.indices.first(where: {
        !used[$0] && detection >= truth[$0] + window.lowerBound
          && detection <= truth[$0] + window.upperBound
      }) {
        used[index] = true
        report.matchedCount += 1
      } else {
        report.falsePositiveCount += 1
      }
    }
    return report
  }

  /// Runs `detector` over `inputs` and reports how many shakes began (each a false positive when
  /// no shake was performed), over the inputs' duration.
  public static func countShakes(
    _ inputs: [MotionInput], detector: ShakeDetector = ShakeDetector()
  ) -> Report {
    let began = inputs.motionEvents(detectedBy: detector).filter { $0.phase == .began }.map(
      \.timestamp)
    let duration = (inputs.last?.timestamp ?? 0) - (inputs.first?.timestamp ?? 0)
    return match(detections: began, expected: [], window: 0...0, duration: duration)
  }
}
