// SPDX-License-Identifier: Apache-2.0

/// The running error state of one simulated single-value sensor.
struct ScalarSensorErrorState: Sendable {
  let model: ScalarSensorNoiseModel
  private let whiteDeviation: Double
  private let driftStepDeviation: Double
  private(set) var drift = 0.0

  init(model: ScalarSensorNoiseModel, sampleRate: Double) {
    self.model = model
    whiteDeviation = model.noiseDensity * sampleRate.squareRoot()
    driftStepDeviation = model.biasRandomWalk / sampleRate.squareRoot()
  }

  @inline(__always)
  mutating func measure(_ truth: Double, random: inout SimulatorRandom) -> Double {
    if driftStepDeviation > 0 {
      drift += driftStepDeviation * random.nextGaussian()
    }
    var reading = truth + model.bias + drift
    if whiteDeviation > 0 {
      reading += whiteDeviation * random.nextGaussian()
    }
    if model.quantization > 0 {
      reading = (reading / model.quantization).rounded(.toNearestOrEven) * model.quantization
    }
    return reading
  }
}
