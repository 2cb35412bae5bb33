// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The water temperature and its uncertainty, told to a ``CMWaterSubmersionManagerDelegate``.
///
/// Stored in degrees Celsius; read it in any unit through `Measurement.converted(to:)`.
open class CMWaterTemperature: NSObject, NSCopying, NSSecureCoding {
  private let storedDate: Date
  private let temperatureInCelsius: Double
  private let uncertaintyInCelsius: Double

  /// When the temperature was measured.
  open var date: Date { storedDate }
  /// The water temperature.
  open var temperature: Measurement<UnitTemperature> {
    Measurement(value: temperatureInCelsius, unit: UnitTemperature.celsius)
  }
  /// How far the true temperature may be from ``temperature``: a difference of temperatures, so
  /// convert it only between units of the same degree size (Celsius and kelvin).
  open var temperatureUncertainty: Measurement<UnitTemperature> {
    Measurement(value: uncertaintyInCelsius, unit: UnitTemperature.celsius)
  }

  /// 0 °C with no uncertainty at the reference date. Apps normally receive temperatures from the
  /// manager.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedDate = Date(timeIntervalSinceReferenceDate: 0)
    temperatureInCelsius = 0
    uncertaintyInCelsius = 0
    super.init()
  }

  /// Creates a temperature. An addition to Apple's API, for tests and mocks. The uncertainty is
  /// a difference of temperatures: 1.8 °F of it is 1 °C.
  public init(
    date: Date, temperature: Measurement<UnitTemperature>,
    temperatureUncertainty: Measurement<UnitTemperature>
  ) {
    storedDate = date
    temperatureInCelsius = temperature.converted(to: UnitTemperature.celsius).value
    uncertaintyInCelsius = Self.temperatureDifferenceInKelvin(temperatureUncertainty)
    super.init()
  }

  /// A difference of temperatures in kelvin (the size of a Celsius degree): the unit's scale
  /// without its offset, which `Measurement.converted(to:)` would add (1 °C of uncertainty is
  /// not 274.15 K).
  private static func temperatureDifferenceInKelvin(
    _ difference: Measurement<UnitTemperature>
  ) -> Double {
    // Foundation's temperature units are all linear; a unit without a scale counts as kelvin.
    let kelvinPerUnit = (difference.unit.converter as? UnitConverterLinear)?.coefficient ?? 1
    return difference.value * kelvinPerUnit
  }

  /// Returns `self`: temperatures are immutable.
  open func copy(with zone: NSZone? = nil) -> Any { self }

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encodeDate(storedDate, forKey: "date")
    coder.encode(temperatureInCelsius, forKey: "temperature")
    coder.encode(uncertaintyInCelsius, forKey: "temperatureUncertainty")
  }

  public required init?(coder: NSCoder) {
    storedDate = coder.decodeDate(forKey: "date")
    temperatureInCelsius = coder.decodeDouble(forKey: "temperature")
    uncertaintyInCelsius = coder.decodeDouble(forKey: "temperatureUncertainty")
    super.init()
  }

  open override var description: String {
    "<CMWaterTemperature \(temperatureInCelsius) ± \(uncertaintyInCelsius) °C at \(storedDate.logDescription)>"
  }
}
