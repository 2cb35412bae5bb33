// SPDX-License-Identifier: Apache-2.0

/// A position on the WGS-84 ellipsoid: latitude and longitude in degrees, altitude in metres.
///
/// Used to look up the magnetic declination that turns magnetic-north yaw into true-north yaw.
/// Create one directly or parse the `COREMOTION_LOCATION` environment format with
/// ``init(parsing:)`` / ``fromEnvironment(_:)``.
public struct GeographicLocation: Sendable, Equatable, Hashable, CustomStringConvertible {
  /// Geodetic latitude in degrees, −90…90, north positive.
  public var latitude: Double
  /// Longitude in degrees, −180…180, east positive.
  public var longitude: Double
  /// Height above the WGS-84 ellipsoid in metres (mean-sea-level height is close enough for
  /// declination); 0 when not given.
  public var altitude: Double
  /// Whether ``altitude`` was given rather than taken as 0. Declination hardly depends on it, but
  /// an absolute altitude must not start from a 0 m that nobody said (`CMAltimeter` reads it).
  public var isAltitudeKnown: Bool

  /// The name of the environment variable read by ``fromEnvironment(_:)``.
  public static let environmentVariable = "COREMOTION_LOCATION"
  /// Accepted altitudes in metres: the WMM's stated domain, 1 km below to 850 km above the
  /// ellipsoid.
  public static let altitudeRange: ClosedRange<Double> = -1_000...850_000

  /// Creates a location; latitude, longitude in degrees, altitude in metres (0 and
  /// ``isAltitudeKnown`` false when `nil`).
  ///
  /// - Throws: ``ParseError`` if a value is not finite or is outside its range.
  public init(latitude: Double, longitude: Double, altitude: Double? = nil) throws(ParseError) {
    guard latitude.isFinite, (-90...90).contains(latitude) else {
      throw .latitudeOutOfRange(latitude)
    }
    guard longitude.isFinite, (-180...180).contains(longitude) else {
      throw .longitudeOutOfRange(longitude)
    }
    if let altitude, !(altitude.isFinite && Self.altitudeRange.contains(altitude)) {
      throw .altitudeOutOfRange(altitude)
    }
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude ?? 0
    self.isAltitudeKnown = altitude != nil
  }

  /// Why a `COREMOTION_LOCATION` value or coordinate was rejected.
  public enum ParseError: Error, Equatable, CustomStringConvertible {
    /// The text had fewer than 2 or more than 3 comma-separated fields.
    case wrongFieldCount(text: String, count: Int)
    /// A field was empty or not a decimal number (field is "latitude", "longitude" or "altitude").
    case notANumber(field: String, text: String)
    /// The latitude was not finite or outside −90…90 degrees.
    case latitudeOutOfRange(Double)
    /// The longitude was not finite or outside −180…180 degrees.
    case longitudeOutOfRange(Double)
    /// The altitude was not finite or outside ``GeographicLocation/altitudeRange`` metres.
    case altitudeOutOfRange(Double)

    public var description: String {
      let format = "expected COREMOTION_LOCATION=lat,lon[,altitude_m] in decimal degrees and metres"
      switch self {
      case .wrongFieldCount(let text, let count):
        return "\(format); got \(count) field(s) in \"\(text)\""
      case .notANumber(let field, let text):
        return "\(format); the \(field) \"\(text)\" is not a decimal number"
      case .latitudeOutOfRange(let value):
        return "latitude \(value)° is outside -90...90"
      case .longitudeOutOfRange(let value):
        return "longitude \(value)° is outside -180...180"
      case .altitudeOutOfRange(let value):
        return "altitude \(value) m is outside \(GeographicLocation.altitudeRange) (WMM domain)"
      }
    }
  }

  /// Parses `lat,lon[,altitude_m]`, e.g. `"48.8584,2.2945,35"`: decimal degrees (north and east
  /// positive) and metres; spaces around fields are ignored; without an altitude, 0 is used and
  /// ``isAltitudeKnown`` is false.
  ///
  /// - Throws: ``ParseError`` naming the offending field or range.
  public init(parsing text: String) throws(ParseError) {
    let fields = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: " \t")
    }
    guard fields.count == 2 || fields.count == 3 else {
      throw .wrongFieldCount(text: text, count: fields.count)
    }
    func number(_ index: Int, _ name: String) throws(ParseError) -> Double {
      // Double("nan")/"inf" parse; the range checks in init reject them as out of range.
      guard let value = Double(fields[index]) else {
        throw .notANumber(field: name, text: fields[index])
      }
      return value
    }
    let latitude = try number(0, "latitude")
    let longitude = try number(1, "longitude")
    let altitude = fields.count == 3 ? try number(2, "altitude") : nil
    try self.init(latitude: latitude, longitude: longitude, altitude: altitude)
  }

  /// Reads ``environmentVariable`` from `environment`: `nil` when unset or blank, else the parsed
  /// location.
  ///
  /// - Parameter environment: Variables to read, e.g. `ProcessInfo.processInfo.environment`.
  /// - Throws: ``ParseError`` when the variable is set but malformed, so a typo is reported rather
  ///   than silently disabling true north.
  public static func fromEnvironment(
    _ environment: [String: String]
  ) throws(ParseError)
    -> GeographicLocation?
  {
    guard let value = environment[environmentVariable],
      !value.trimmingCharacters(in: " \t").isEmpty
    else { return nil }
    return try GeographicLocation(parsing: value)
  }

  /// `lat,lon,altitude` in the `COREMOTION_LOCATION` format.
  public var description: String { "\(latitude),\(longitude),\(altitude)" }
}

extension Substring {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
  }
}

extension String {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    self[...].trimmingCharacters(in: characters)
  }
}
