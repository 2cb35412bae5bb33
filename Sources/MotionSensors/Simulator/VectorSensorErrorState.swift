// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The running error state of one simulated three-axis sensor: its model, precomputed per-sample
/// constants, and the current bias drift.
struct VectorSensorErrorState: Sendable {
  let model: SensorNoiseModel
  /// Misalignment rotation times the diagonal scale-factor matrix `(1 + s)`.
  private let distortion: RotationMatrix
  private let isDistorted: Bool
  private let whiteDeviation: Double
  private let driftStepDeviation: Double
  /// The bias random walk's current value.
  private(set) var drift = SIMD3<Double>.zero

  init(model: SensorNoiseModel, sampleRate: Double) {
    self.model = model
    let rotation = RotationMatrix(
      Quaternion(rotationVector: model.misalignment * Units.radiansPerDegree))
    let scale = 1 + model.scaleFactorError
    distortion = RotationMatrix(
      row1: rotation.row1 * scale, row2: rotation.row2 * scale, row3: rotation.row3 * scale)
    isDistorted = model.misalignment != .zero || model.scaleFactorError != .zero
    // Discrete white noise of density N (unit/√Hz) sampled at fs has σ = N·√fs.
    whiteDeviation = model.noiseDensity * sampleRate.squareRoot()
    // A random walk of K unit/√s moves by K·√Δt per step.
    driftStepDeviation = model.biasRandomWalk / sampleRate.squareRoot()
  }

  /// The current total bias (constant plus drift) in the sensor's unit.
  var currentBias: SIMD3<Double> { model.bias + drift }

  /// Advances the drift by one sample period and returns the reading for the true value `truth`.
  @inline(__always)
  mutating func measure(_ truth: SIMD3<Double>, random: inout SimulatorRandom) -> SIMD3<Double> {
    if driftStepDeviation > 0 {
      drift += driftStepDeviation * random.nextGaussianVector()
    }
    var reading = isDistorted ? distortion * truth : truth
    reading += model.bias + drift
    if whiteDeviation > 0 {
      reading += whiteDeviation * random.nextGaussianVector()
    }
    if model.quantization > 0 {
      reading = (reading / model.quantization).rounded(.toNearestOrEven) * model.quantization
    }
    if model.range.isFinite {
      reading = reading.clamped(
        lowerBound: SIMD3(repeating: -model.range), upperBound: SIMD3(repeating: model.range))
    }
    return reading
  }
}
