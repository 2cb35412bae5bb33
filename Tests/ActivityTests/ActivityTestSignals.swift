// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// Synthetic accelerometer signals and hand-made models for the classifier's mechanics.
enum ActivityTestSignals {
  /// g, Apple's sign, the phone upright in a pocket: gravity along −y, plus a vertical bounce of
  /// `amplitude` g at `frequency` Hz and a little deterministic jitter.
  static func sample(time t: Double, amplitude: Double, frequency: Double) -> SIMD3<Double> {
    let bounce =
      amplitude * sin(2 * Double.pi * frequency * t) + 0.002 * sin(2 * Double.pi * 7.3 * t)
    return SIMD3(0.2 * bounce + 0.01, -1 - bounce, 0.05)
  }

  /// A model that only looks at feature 1 (log10 std of |a|): stationary below 0.03 g, walking
  /// above, the other classes never. Feature 0 (mean |a|) is standardised around 1 g with a 0.1 g
  /// scale, so accelerations far from 1 g on average are outliers for the classifier.
  static var restOrWalkModel: ActivityModel {
    let d = ActivityFeatureExtractor.featureCount
    var mean = [Double](repeating: 0, count: d)
    var scale = [Double](repeating: 1, count: d)
    mean[0] = 1
    scale[0] = 0.1
    var weights = [Double](repeating: 0, count: d * ActivityClass.count)
    var bias = [Double](repeating: -30, count: ActivityClass.count)
    let threshold = log10(0.03)
    weights[ActivityClass.stationary.rawValue * d + 1] = -8
    bias[ActivityClass.stationary.rawValue] = 8 * threshold
    weights[ActivityClass.walking.rawValue * d + 1] = 8
    bias[ActivityClass.walking.rawValue] = -8 * threshold
    return ActivityModel(featureMean: mean, featureScale: scale, weights: weights, bias: bias)
  }

  /// The feature that votes for the first class in ``oneHotModel`` (5…9, band shares that no
  /// rule of the classifier reads).
  static let oneHotFirstFeature = 5

  /// A model where feature `oneHotFirstFeature + c` votes for class c with log-odds 6 (fed
  /// through `process(features:time:)` with one-hot vectors).
  static var oneHotModel: ActivityModel {
    let d = ActivityFeatureExtractor.featureCount
    var weights = [Double](repeating: 0, count: d * ActivityClass.count)
    for c in 0..<ActivityClass.count { weights[c * d + oneHotFirstFeature + c] = 6 }
    return ActivityModel(
      featureMean: .init(repeating: 0, count: d), featureScale: .init(repeating: 1, count: d),
      weights: weights,
      bias: .init(repeating: 0, count: ActivityClass.count))
  }

  /// A classifier on ``oneHotModel`` fed one window of clear evidence per second.
  struct OneHotFeed {
    var classifier: ActivityClassifier
    var time = 0.0

    init(_ parameters: ActivityClassifier.Parameters = .default) {
      var p = parameters
      p.model = ActivityTestSignals.oneHotModel
      classifier = ActivityClassifier(parameters: p)
    }

    var current: ActivityEstimate { classifier.current }

    /// `windows` windows of evidence for `activity`.
    mutating func feed(_ activity: ActivityClass, _ windows: Int) {
      feed(features: ActivityTestSignals.oneHot(activity), windows)
    }

    /// `windows` windows of the feature vector `features`.
    mutating func feed(features: [Double], _ windows: Int) {
      for _ in 0..<windows {
        _ = classifier.process(features: features, time: time)
        time += 1
      }
    }
  }

  /// Evidence for `activity` alone. The features the classifier reads by name are those of a
  /// phone lying still (no orientation change, the same small spread vertically and
  /// horizontally, no power below 0.6 Hz), so no rule of its own overrides the model.
  static func oneHot(_ activity: ActivityClass) -> [Double] {
    var f = [Double](repeating: 0, count: ActivityFeatureExtractor.featureCount)
    f[oneHotFirstFeature + activity.rawValue] = 1
    f[ActivityFeatureExtractor.orientationChangeFeature] = -5
    f[ActivityFeatureExtractor.verticalDeviationFeature] = -3
    f[ActivityFeatureExtractor.horizontalDeviationFeature] = -3
    return f
  }

  /// Runs a classifier over a piecewise signal at `rate` Hz; returns the reported class after each
  /// sample's time (sampled once per second) and the estimates.
  static func run(
    _ pieces: [(duration: Double, amplitude: Double, frequency: Double)], rate: Double,
    parameters: ActivityClassifier.Parameters
  ) -> (timeline: [(time: Double, reported: ActivityClass?)], estimates: [ActivityEstimate]) {
    var classifier = ActivityClassifier(parameters: parameters)
    var timeline: [(Double, ActivityClass?)] = []
    var estimates: [ActivityEstimate] = []
    var start = 0.0
    var nextMark = 0.0
    for piece in pieces {
      let count = Int((piece.duration * rate).rounded())
      for i in 0..<count {
        let t = start + Double(i) / rate
        if let e = classifier.process(
          time: t,
          acceleration: sample(time: t, amplitude: piece.amplitude, frequency: piece.frequency))
        {
          estimates.append(e)
        }
        if t >= nextMark {
          timeline.append((t, classifier.reported))
          nextMark += 1
        }
      }
      start += piece.duration
    }
    return (timeline, estimates)
  }
}
