// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Turns raw channel readings of one device into `MotionSample` (MotionSensors) values:
/// `(raw + offset) × scale`, unit conversion, mount matrix, accelerometer sign.
///
/// Readings travel in a fixed array of ``slotCount`` values (accelerometer x, y, z; gyroscope x,
/// y, z; magnetometer x, y, z; pressure; temperature) so the buffered path allocates nothing.
struct IIOConverter: Sendable {
  static let slotCount = 11

  /// The first slot of each kind.
  static func slot(for kind: IIOChannelKind, axis: Int?) -> Int? {
    switch kind {
    case .accelerometer: return axis.map { 0 + $0 }
    case .gyroscope: return axis.map { 3 + $0 }
    case .magnetometer: return axis.map { 6 + $0 }
    case .pressure: return 9
    case .temperature: return 10
    case .timestamp: return nil
    }
  }

  /// The channels read, with their slots.
  let channels: [(channel: IIOChannelInfo, slot: Int)]
  /// Per slot: factor and additive term such that value = raw × factor + term.
  private var factors = [Double](repeating: 1, count: slotCount)
  private var terms = [Double](repeating: 0, count: slotCount)
  private let accelerometerMatrix: IIOMountMatrix?
  private let gyroscopeMatrix: IIOMountMatrix?
  private let magnetometerMatrix: IIOMountMatrix?
  private let hasPressure: Bool
  private let hasTemperature: Bool

  /// A converter for `kinds` of `device` with `configuration`'s sign and matrix overrides.
  init(device: IIODeviceInfo, kinds: [IIOChannelKind], configuration: IIOConfiguration) {
    var channels: [(IIOChannelInfo, Int)] = []
    for kind in kinds {
      for channel in device.channels(of: kind) {
        guard let slot = Self.slot(for: kind, axis: channel.axis) else { continue }
        channels.append((channel, slot))
        // (raw + offset) × scale × unit = raw × (scale × unit) + offset × scale × unit.
        let scale = (channel.isProcessed ? 1 : channel.scale) * kind.unitFactor
        factors[slot] = scale
        terms[slot] = channel.isProcessed ? 0 : channel.offset * scale
      }
    }
    self.channels = channels
    let has = Set(channels.map { $0.1 })
    func matrix(_ kind: IIOChannelKind, _ first: Int, sign: Double = 1) -> IIOMountMatrix? {
      guard has.contains(first) else { return nil }
      let m = configuration.mountMatrix(for: kind, on: device)
      return IIOMountMatrix(rows: m.rows.map { $0 * sign })
    }
    accelerometerMatrix = matrix(
      .accelerometer, 0, sign: configuration.accelerometerSign(for: device))
    gyroscopeMatrix = matrix(.gyroscope, 3)
    magnetometerMatrix = matrix(.magnetometer, 6)
    hasPressure = has.contains(9)
    hasTemperature = has.contains(10)
  }

  /// The sensors the converter fills.
  var sensors: SensorSet {
    var set: SensorSet = []
    if accelerometerMatrix != nil { set.insert(.accelerometer) }
    if gyroscopeMatrix != nil { set.insert(.gyroscope) }
    if magnetometerMatrix != nil { set.insert(.magnetometer) }
    if hasPressure { set.insert(.barometer) }
    if hasTemperature { set.insert(.thermometer) }
    return set
  }

  /// Whether `sample` is a measurement: its timestamp finite, and every value within
  /// ``IIOChannelKind/measurableMagnitude`` of its kind (so finite; NaN fails every comparison).
  static func isMeasurement(_ sample: MotionSample) -> Bool {
    func within(_ value: Double?, _ kind: IIOChannelKind) -> Bool {
      value.map { abs($0) <= kind.measurableMagnitude } ?? true
    }
    func within(_ vector: SIMD3<Double>?, _ kind: IIOChannelKind) -> Bool {
      vector.map { within($0.x, kind) && within($0.y, kind) && within($0.z, kind) } ?? true
    }
    return sample.timestamp.isFinite && within(sample.accelerometer, .accelerometer)
      && within(sample.gyroscope, .gyroscope) && within(sample.magnetometer, .magnetometer)
      && within(sample.pressure, .pressure) && within(sample.temperature, .temperature)
  }

  /// The sample for raw readings `raw` (indexed by slot) at `timestamp` seconds since boot.
  @inline(__always)
  func sample(raw: UnsafeBufferPointer<Double>, timestamp: Double) -> MotionSample {
    @inline(__always) func value(_ slot: Int) -> Double { raw[slot] * factors[slot] + terms[slot] }
    @inline(__always) func vector(_ first: Int) -> SIMD3<Double> {
      SIMD3(value(first), value(first + 1), value(first + 2))
    }
    var sample = MotionSample(timestamp: timestamp)
    if let m = accelerometerMatrix { sample.accelerometer = m.apply(vector(0)) }
    if let m = gyroscopeMatrix { sample.gyroscope = m.apply(vector(3)) }
    if let m = magnetometerMatrix { sample.magnetometer = m.apply(vector(6)) }
    if hasPressure {
      var pressure = value(9)
      // bme680 reported hPa instead of kPa before Linux 6.10's fix; no barometer on Earth reads
      // 300 kPa, so such values are hPa.
      if pressure > 300 { pressure /= 10 }
      sample.pressure = pressure
    }
    if hasTemperature { sample.temperature = value(10) }
    return sample
  }
}
