// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A ``SampleStream`` of physically consistent synthetic sensor readings for a ``Scenario``.
///
/// Each reading is what its sensor sensed over the sample interval that ends at the sample's
/// timestamp, averaged, as a real sensor's output filter delivers it: the stream evaluates the
/// scenario's smooth trajectory at the middle of the interval (the interval's mean to second
/// order) and derives:
/// - gyroscope: the body angular rate in rad/s (sensor frame);
/// - accelerometer: the specific force `sensorFromEarth · (p̈ − g)` in m/s², g = (0, 0, −9.80665)
///   in NWU, so a device lying face up reads (0, 0, +9.80665);
/// - magnetometer: the scenario's Earth field in µT, in the sensor frame;
/// - barometer: the International Standard Atmosphere pressure in kPa at the current altitude;
/// - thermometer: the scenario's temperature in °C (when it has one);
///
/// then applies each sensor's error model (``SimulatorNoise``). Every sample carries its
/// ``GroundTruth`` at its timestamp (the end of the interval); ``events`` lists the scenario's
/// annotated events. The noise is seeded: the same
/// scenario and seed give identical samples. The stream ends at the scenario's duration.
public struct SimulatedSensorStream: SampleStream, Sendable {
  /// The scenario being simulated.
  public let scenario: Scenario
  /// The seed in use (the override, or the scenario's).
  public let seed: UInt64
  /// The scenario's trajectory (true motion at any time).
  public let trajectory: ScenarioTrajectory
  public let descriptor: StreamDescriptor
  /// The number of samples the stream yields.
  public let sampleCount: Int

  private let samplePeriod: Double
  private let maximumJitter: Double
  private let earthField: SIMD3<Double>
  private let validationError: ScenarioError?
  private var index = 0
  private var random: SimulatorRandom
  private var accelerometer: VectorSensorErrorState
  private var gyroscope: VectorSensorErrorState
  private var magnetometer: VectorSensorErrorState
  private var barometer: ScalarSensorErrorState
  private var thermometer: ScalarSensorErrorState

  /// Creates a stream for `scenario`; `seed`, when given, replaces the scenario's seed.
  ///
  /// An invalid scenario (see ``Scenario/validate()``) gives a stream whose first ``next()``
  /// throws the validation error.
  public init(scenario: Scenario, seed: UInt64? = nil) {
    self.scenario = scenario
    let seed = seed ?? scenario.seed
    self.seed = seed
    var error: ScenarioError?
    do { try scenario.validate() } catch let e as ScenarioError { error = e } catch {}
    validationError = error
    let rate = error == nil ? scenario.sampleRate : 1
    // The layout tolerates invalid values, so the stream can still describe itself before failing.
    trajectory = ScenarioTrajectory(scenario: scenario)
    samplePeriod = 1 / rate
    maximumJitter = 0.4 * samplePeriod
    sampleCount = error == nil ? Int((trajectory.duration * rate - 1e-9).rounded(.up)) : 0
    earthField = scenario.magneticField.earthField
    random = SimulatorRandom(seed: seed)
    accelerometer = VectorSensorErrorState(model: scenario.noise.accelerometer, sampleRate: rate)
    gyroscope = VectorSensorErrorState(model: scenario.noise.gyroscope, sampleRate: rate)
    magnetometer = VectorSensorErrorState(model: scenario.noise.magnetometer, sampleRate: rate)
    barometer = ScalarSensorErrorState(model: scenario.noise.barometer, sampleRate: rate)
    thermometer = ScalarSensorErrorState(model: scenario.noise.thermometer, sampleRate: rate)
    var sensors: SensorSet = [.accelerometer, .gyroscope, .magnetometer, .barometer]
    if scenario.temperature != nil { sensors.insert(.thermometer) }
    let noiseName =
      SimulatorNoise.presetNames.first { SimulatorNoise.preset(named: $0) == scenario.noise }
      ?? "custom"
    descriptor = StreamDescriptor(
      name: "simulator:\(scenario.name)", sensors: sensors, nominalSampleRate: scenario.sampleRate,
      hasGroundTruth: true,
      metadata: [
        "scenario": scenario.name, "seed": String(seed), "duration": String(trajectory.duration),
        "noise": noiseName,
      ])
  }

  /// Creates a stream for the built-in scenario `name`.
  ///
  /// - Throws: ``ScenarioError/unknownName(_:validNames:)`` for an unknown name.
  public init(named name: String, seed: UInt64? = nil) throws {
    self.init(scenario: try Scenario.named(name), seed: seed)
  }

  /// The scenario's annotated events (shakes, taps, steps, orientation changes, …).
  public var events: [ScenarioEvent] { trajectory.events }

  /// The next sample, or `nil` after the scenario's duration.
  ///
  /// - Throws: the scenario's validation error, if it is invalid.
  public mutating func next() throws -> MotionSample? {
    if let validationError { throw validationError }
    guard index < sampleCount else { return nil }
    let nominal = Double(index) * samplePeriod
    index += 1
    var time = nominal
    let jitter = scenario.noise.timestampJitter
    if jitter > 0 {
      let offset = Swift.min(
        Swift.max(jitter * random.nextGaussian(), -maximumJitter), maximumJitter)
      time = Swift.max(nominal + offset, 0)
    }
    let state = trajectory.state(at: time)
    let sensorFromEarth = state.earthFromSensor.conjugate
    let gravity = sensorFromEarth.act(on: KinematicState.earthGravity)
    let linearAcceleration = sensorFromEarth.act(on: state.acceleration)
    // What the sensors read: the mean over the interval since the previous sample, which the
    // value at its middle gives to second order (the estimator integrates a rate sample as the
    // interval's mean and compares the other vectors with the middle's attitude).
    let sensed = trajectory.state(at: Swift.max(time - samplePeriod / 2, 0))
    let sensedFromEarth = sensed.earthFromSensor.conjugate
    let specificForce =
      sensedFromEarth.act(on: sensed.acceleration)
      - sensedFromEarth.act(on: KinematicState.earthGravity)
    let field = sensedFromEarth.act(on: earthField)
    let pressure =
      StandardAtmosphere.pressure(atAltitude: scenario.altitude + sensed.position.z)
      + scenario.weather.pressureOffset(at: time)

    let gyroscopeReading = gyroscope.measure(sensed.angularVelocity, random: &random)
    let accelerometerReading = accelerometer.measure(specificForce, random: &random)
    let magnetometerReading = magnetometer.measure(field, random: &random)
    let pressureReading = barometer.measure(pressure, random: &random)
    var temperatureReading: Double?
    if let temperature = scenario.temperature {
      temperatureReading = thermometer.measure(temperature, random: &random)
    }
    return MotionSample(
      timestamp: time, accelerometer: accelerometerReading, gyroscope: gyroscopeReading,
      magnetometer: magnetometerReading, pressure: pressureReading, temperature: temperatureReading,
      groundTruth: GroundTruth(
        earthFromSensor: state.earthFromSensor, angularVelocity: state.angularVelocity,
        gyroscopeBias: gyroscope.currentBias, gravity: gravity,
        linearAcceleration: linearAcceleration,
        position: state.position))
  }
}
