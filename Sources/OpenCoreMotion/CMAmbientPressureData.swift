// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A barometer sample: the ambient pressure and the sensor's temperature (iOS 15.4), as typed
/// measurements.
///
/// Apple delivers these from its batched and recorded sensor APIs, which OpenCoreMotion does not
/// have; the class is here so that code naming it compiles, and for tests and mocks. Live pressure
/// comes through ``CMAltimeter`` (``CMAltitudeData/pressure``, kPa).
open class CMAmbientPressureData: CMLogItem {
  private let storedPressure: Measurement<UnitPressure>
  private let storedTemperature: Measurement<UnitTemperature>

  /// The ambient pressure.
  open var pressure: Measurement<UnitPressure> { storedPressure }
  /// The temperature of the pressure sensor.
  open var temperature: Measurement<UnitTemperature> { storedTemperature }

  /// Creates a sample of 0 kPa and 0 °C at timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedPressure = Measurement(value: 0, unit: .kilopascals)
    storedTemperature = Measurement(value: 0, unit: .celsius)
    super.init()
  }

  /// Creates a sample. An addition to Apple's API, for tests and mocks.
  public init(
    pressure: Measurement<UnitPressure>, temperature: Measurement<UnitTemperature>,
    timestamp: TimeInterval
  ) {
    storedPressure = pressure
    storedTemperature = temperature
    super.init(timestamp: timestamp)
  }

  // Archived in fixed units (kPa, °C), so an archive does not depend on the unit the sample was
  // made with.
  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encode(storedPressure.converted(to: .kilopascals).value, forKey: "pressure.kPa")
    coder.encode(storedTemperature.converted(to: .celsius).value, forKey: "temperature.celsius")
  }

  public required init?(coder: NSCoder) {
    storedPressure = Measurement(
      value: coder.decodeDouble(forKey: "pressure.kPa"), unit: .kilopascals)
    storedTemperature = Measurement(
      value: coder.decodeDouble(forKey: "temperature.celsius"), unit: .celsius)
    super.init(coder: coder)
  }

  open override var description: String {
    "\(storedPressure.converted(to: .kilopascals)), \(storedTemperature.converted(to: .celsius))"
      + " @ \(timestamp)"
  }
}
