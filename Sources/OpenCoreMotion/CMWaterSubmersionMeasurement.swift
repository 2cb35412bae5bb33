// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Surface pressure and, under water, depth and water pressure, told to a
/// ``CMWaterSubmersionManagerDelegate``.
///
/// Stored in metres and kilopascals (Core Motion's pressure unit); read them in any unit through
/// `Measurement.converted(to:)`.
open class CMWaterSubmersionMeasurement: NSObject, NSCopying, NSSecureCoding {
  /// How deep the device is, in Apple's steps (and Apple's raw values).
  public enum DepthState: Int, Sendable {
    /// Not known yet.
    case unknown = 0
    /// Out of the water.
    case notSubmerged = 100
    /// Under water, less than 1 m deep.
    case submergedShallow = 200
    /// Under water, at least 1 m deep.
    case submergedDeep = 300
    /// Close to the deepest the app is entitled to measure.
    case approachingMaxDepth = 400
    /// Deeper than that.
    case pastMaxDepth = 500
    /// The depth sensor failed.
    case sensorDepthError = 600
  }

  private let storedDate: Date
  private let depthInMetres: Double?
  private let waterPressureInKilopascals: Double?
  private let surfacePressureInKilopascals: Double
  private let storedState: DepthState

  /// When the values were measured.
  open var date: Date { storedDate }
  /// The depth under water; `nil` out of the water.
  open var depth: Measurement<UnitLength>? {
    depthInMetres.map { Measurement(value: $0, unit: UnitLength.meters) }
  }
  /// The water pressure; `nil` out of the water.
  open var pressure: Measurement<UnitPressure>? {
    waterPressureInKilopascals.map { Measurement(value: $0, unit: UnitPressure.kilopascals) }
  }
  /// The air pressure at the surface.
  open var surfacePressure: Measurement<UnitPressure> {
    Measurement(value: surfacePressureInKilopascals, unit: UnitPressure.kilopascals)
  }
  /// How deep the device is, in steps.
  open var submersionState: DepthState { storedState }

  /// An unknown state at the reference date, sea-level surface pressure (101.325 kPa). Apps
  /// normally receive measurements from the manager.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedDate = Date(timeIntervalSinceReferenceDate: 0)
    depthInMetres = nil
    waterPressureInKilopascals = nil
    surfacePressureInKilopascals = 101.325
    storedState = .unknown
    super.init()
  }

  /// Creates a measurement. An addition to Apple's API, for tests and mocks.
  public init(
    date: Date, depth: Measurement<UnitLength>?, pressure: Measurement<UnitPressure>?,
    surfacePressure: Measurement<UnitPressure>, submersionState: DepthState
  ) {
    storedDate = date
    depthInMetres = depth?.converted(to: UnitLength.meters).value
    waterPressureInKilopascals = pressure?.converted(to: UnitPressure.kilopascals).value
    surfacePressureInKilopascals = surfacePressure.converted(to: UnitPressure.kilopascals).value
    storedState = submersionState
    super.init()
  }

  /// Returns `self`: measurements are immutable.
  open func copy(with zone: NSZone? = nil) -> Any { self }

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encodeDate(storedDate, forKey: "date")
    coder.encodeOptionalNumber(depthInMetres.map(NSNumber.init(value:)), forKey: "depth")
    coder.encodeOptionalNumber(
      waterPressureInKilopascals.map(NSNumber.init(value:)), forKey: "pressure")
    coder.encode(surfacePressureInKilopascals, forKey: "surfacePressure")
    coder.encode(storedState.rawValue, forKey: "submersionState")
  }

  public required init?(coder: NSCoder) {
    guard
      let state = DepthState(rawValue: coder.decodeInteger(forKey: "submersionState"))
    else { return nil }
    storedDate = coder.decodeDate(forKey: "date")
    depthInMetres = coder.decodeOptionalNumber(forKey: "depth")?.doubleValue
    waterPressureInKilopascals = coder.decodeOptionalNumber(forKey: "pressure")?.doubleValue
    surfacePressureInKilopascals = coder.decodeDouble(forKey: "surfacePressure")
    storedState = state
    super.init()
  }

  open override var description: String {
    let depthText = depthInMetres.map { "\($0) m" } ?? "none"
    return
      "<CMWaterSubmersionMeasurement \(storedState) depth \(depthText) surface \(surfacePressureInKilopascals) kPa at \(storedDate.logDescription)>"
  }
}
