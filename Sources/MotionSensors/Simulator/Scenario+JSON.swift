// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reading and writing scenarios as JSON; omitted members take the defaults documented on
/// ``Scenario``'s properties.
extension Scenario {
  /// The largest scenario file read (8 MiB): a scenario is a few kilobytes of JSON, and even
  /// ``maximumSegmentCount`` segments written out take less.
  public static let maximumFileSize = 8 << 20

  /// Reads a scenario from a JSON file and validates it.
  ///
  /// Only a regular file of at most ``maximumFileSize`` bytes is read: a device such as
  /// `/dev/zero` would never end and a FIFO could block forever, so anything else is refused
  /// before it is opened.
  ///
  /// - Throws: ``ScenarioError/malformed(_:_:)`` when the file is missing, not a regular file, too
  ///   large or unreadable, or its JSON does not decode (with the JSON path of the problem), and
  ///   ``ScenarioError/invalid(_:)``.
  public static func load(contentsOf url: URL) throws -> Scenario {
    let data: Data
    do {
      data = try RegularFile.readPrefix(
        url.path, displayName: url.lastPathComponent, count: maximumFileSize + 1,
        purpose: "scenarios")
    } catch let error as RecordingError {
      throw ScenarioError.malformed(url.lastPathComponent, error.message)
    }
    guard data.count <= maximumFileSize else {
      throw ScenarioError.malformed(
        url.lastPathComponent,
        "the file is larger than \(maximumFileSize) bytes, the limit for a scenario")
    }
    let scenario: Scenario
    do {
      scenario = try JSONDecoder().decode(Scenario.self, from: data)
    } catch let error as DecodingError {
      throw ScenarioError.malformed(url.lastPathComponent, Self.describe(error))
    }
    try scenario.validate()
    return scenario
  }

  /// The scenario as pretty-printed JSON that ``load(contentsOf:)`` reads back.
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(self)
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
        .joined()
      return text.isEmpty ? "top level" : text
    }
    switch error {
    case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context): return "\(path(context)): missing '\(key.stringValue)'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "\(path(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
  }

  private enum CodingKeys: String, CodingKey {
    case name, sampleRate, duration, seed, initialAttitude, altitude, temperature, magneticField
    case noise, repeats, segments, weather
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decodeIfPresent(String.self, forKey: .name) ?? "custom"
    sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate) ?? 100
    duration = try c.decodeIfPresent(Double.self, forKey: .duration)
    seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
    initialAttitude =
      try c.decodeIfPresent(DeviceAttitude.self, forKey: .initialAttitude) ?? .orientation(.faceUp)
    altitude = try c.decodeIfPresent(Double.self, forKey: .altitude) ?? 0
    // An explicit null turns the thermometer off; omission keeps the default 25 °C.
    if c.contains(.temperature) {
      temperature = try c.decodeIfPresent(Double.self, forKey: .temperature)
    } else {
      temperature = 25
    }
    magneticField =
      try c.decodeIfPresent(MagneticFieldModel.self, forKey: .magneticField) ?? MagneticFieldModel()
    noise = try c.decodeIfPresent(SimulatorNoise.self, forKey: .noise) ?? .phone
    repeats = try c.decodeIfPresent(Bool.self, forKey: .repeats) ?? false
    segments = try c.decodeIfPresent([ScenarioSegment].self, forKey: .segments) ?? []
    weather = try c.decodeIfPresent(PressureWeather.self, forKey: .weather) ?? .calm
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(name, forKey: .name)
    try c.encode(sampleRate, forKey: .sampleRate)
    try c.encodeIfPresent(duration, forKey: .duration)
    try c.encode(seed, forKey: .seed)
    try c.encode(initialAttitude, forKey: .initialAttitude)
    try c.encode(altitude, forKey: .altitude)
    if let temperature {
      try c.encode(temperature, forKey: .temperature)
    } else {
      try c.encodeNil(forKey: .temperature)
    }
    try c.encode(magneticField, forKey: .magneticField)
    try c.encode(noise, forKey: .noise)
    try c.encode(repeats, forKey: .repeats)
    try c.encode(segments, forKey: .segments)
    if weather != .calm { try c.encode(weather, forKey: .weather) }
  }
}
