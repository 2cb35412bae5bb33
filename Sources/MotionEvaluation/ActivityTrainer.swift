// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionMath

/// Trains an ``ActivityModel`` (multinomial logistic regression) on feature vectors.
///
/// Features are standardised with the training set's mean and standard deviation; the loss is the
/// weighted cross-entropy plus ``Settings/l2`` · ‖W‖²/2, minimised by full-batch gradient descent
/// with heavy-ball momentum from zero weights (deterministic: no random initialisation). Weights
/// balance classes within each source, and sources against each other, so the 15 Hz transport
/// data and the 50 Hz pocket data count alike whatever their durations.
public enum ActivityTrainer {
  public struct Settings: Sendable, Equatable {
    public var iterations = 400
    public var learningRate = 0.5
    public var momentum = 0.8
    public var l2 = 1e-3
    /// Features the model ignores (weights kept at zero). Feature 0, the mean of |a|, is left out
    /// by default: it mostly tells devices' accelerometer calibrations apart (each source is one
    /// kind of phone), which would let the model learn the source instead of the activity.
    public var excludedFeatures: Set<Int> = [0]
    public init() {}
  }

  /// One training example.
  public struct Example: Sendable {
    public var features: [Double]
    public var label: ActivityClass
    public var source: String
    public init(features: [Double], label: ActivityClass, source: String) {
      self.features = features
      self.label = label
      self.source = source
    }
  }

  /// The examples of a set of files (every window of each).
  public static func examples(_ sets: [ActivityFeatureSet]) -> [Example] {
    sets.flatMap { set in
      set.features.map { Example(features: $0, label: set.entry.label, source: set.entry.source) }
    }
  }

  /// Fits a model; an empty training set gives the zero model (uniform probabilities).
  public static func train(_ examples: [Example], settings: Settings = Settings()) -> ActivityModel
  {
    let d = ActivityFeatureExtractor.featureCount
    let k = ActivityClass.count
    let n = examples.count
    var mean = [Double](repeating: 0, count: d)
    var scale = [Double](repeating: 1, count: d)
    guard n > 0 else {
      return ActivityModel(
        featureMean: mean, featureScale: scale, weights: .init(repeating: 0, count: d * k),
        bias: .init(repeating: 0, count: k))
    }
    for e in examples { for j in 0..<d { mean[j] += e.features[j] } }
    for j in 0..<d { mean[j] /= Double(n) }
    var variance = [Double](repeating: 0, count: d)
    for e in examples {
      for j in 0..<d { variance[j] += (e.features[j] - mean[j]) * (e.features[j] - mean[j]) }
    }
    for j in 0..<d { scale[j] = max((variance[j] / Double(n)).squareRoot(), 1e-9) }

    var z = [Double](repeating: 0, count: n * d)
    for (i, e) in examples.enumerated() {
      for j in 0..<d { z[i * d + j] = (e.features[j] - mean[j]) / scale[j] }
    }
    // Weights: each (source, class) group shares its source's weight equally; sources weigh alike.
    var groupCounts: [String: Int] = [:]
    var classesPerSource: [String: Set<Int>] = [:]
    for e in examples {
      groupCounts["\(e.source)|\(e.label.rawValue)", default: 0] += 1
      classesPerSource[e.source, default: []].insert(e.label.rawValue)
    }
    var weight = examples.map { e in
      1 / Double(groupCounts["\(e.source)|\(e.label.rawValue)"]!)
        / Double(classesPerSource[e.source]!.count)
    }
    let totalWeight = weight.reduce(0, +)
    for i in 0..<n { weight[i] /= totalWeight }
    let labels = examples.map(\.label.rawValue)

    var w = [Double](repeating: 0, count: k * d)
    var b = [Double](repeating: 0, count: k)
    var velocityW = w
    var velocityB = b
    var gradW = w
    var gradB = b
    var logits = [Double](repeating: 0, count: k)
    z.withUnsafeBufferPointer { z in
      for _ in 0..<settings.iterations {
        for i in 0..<(k * d) { gradW[i] = settings.l2 * w[i] }
        for c in 0..<k { gradB[c] = 0 }
        for i in 0..<n {
          let row = i * d
          var top = -Double.infinity
          for c in 0..<k {
            var s = b[c]
            for j in 0..<d { s += w[c * d + j] * z[row + j] }
            logits[c] = s
            top = max(top, s)
          }
          var sum = 0.0
          for c in 0..<k {
            logits[c] = Double.exp(logits[c] - top)
            sum += logits[c]
          }
          for c in 0..<k {
            let g = (logits[c] / sum - (labels[i] == c ? 1 : 0)) * weight[i]
            gradB[c] += g
            for j in 0..<d { gradW[c * d + j] += g * z[row + j] }
          }
        }
        for c in 0..<k { for j in settings.excludedFeatures where j < d { gradW[c * d + j] = 0 } }
        for i in 0..<(k * d) {
          velocityW[i] = settings.momentum * velocityW[i] - settings.learningRate * gradW[i]
          w[i] += velocityW[i]
        }
        for c in 0..<k {
          velocityB[c] = settings.momentum * velocityB[c] - settings.learningRate * gradB[c]
          b[c] += velocityB[c]
        }
      }
    }
    return ActivityModel(featureMean: mean, featureScale: scale, weights: w, bias: b)
  }

  /// The model as a Swift source file defining `ActivityModel.trained` (what `--write-model`
  /// writes).
  public static func swiftSource(_ model: ActivityModel, note: String) -> String {
    func list(_ values: [Double]) -> String {
      stride(from: 0, to: values.count, by: 4).map { start in
        "      "
          + values[start..<min(start + 4, values.count)].map { "\($0)," }.joined(separator: " ")
      }.joined(separator: "\n")
    }
    return """
      // SPDX-License-Identifier: Apache-2.0
      // GENERATED by `motionctl evaluate activity --write-model` (ActivityTrainer): do not edit.
      // \(note)

      extension ActivityModel {
        /// The shipped coefficients, trained on every shared subject (see ``ActivityModel``).
        public static let trained = ActivityModel(
          featureMean: [
      \(list(model.featureMean))
          ],
          featureScale: [
      \(list(model.featureScale))
          ],
          weights: [
      \(list(model.weights))
          ],
          bias: [
      \(list(model.bias))
          ])
      }

      """
  }
}
