// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// An attitude of the device in a scenario: one of the six named device orientations (optionally
/// turned about the vertical), Core Motion Euler angles in degrees, or a quaternion.
///
/// In JSON it is either a name (`"portrait"`), an object of Euler angles in degrees
/// (`{"roll": 0, "pitch": 30, "yaw": 90}`, missing angles are 0) or a quaternion
/// (`{"w": 1, "x": 0, "y": 0, "z": 0}`, normalised on use). All describe `earthFromSensor` in
/// the NWU earth frame (x = magnetic north).
public enum DeviceAttitude: Sendable, Equatable, Codable {
  /// A named device orientation, then turned by `yawDegrees` about the vertical (counter-clockwise
  /// seen from above).
  case orientation(DeviceOrientationName, yawDegrees: Double = 0)
  /// Core Motion Euler angles in degrees: `earthFromSensor = Rz(yaw)·Rx(pitch)·Ry(roll)`.
  case eulerDegrees(roll: Double, pitch: Double, yaw: Double)
  /// An explicit `earthFromSensor` quaternion (normalised on use).
  case quaternion(Quaternion)

  /// The attitude as a unit quaternion `earthFromSensor`.
  public var earthFromSensor: Quaternion {
    switch self {
    case .orientation(let name, let yaw):
      return Quaternion.aboutZ(yaw * Units.radiansPerDegree) * name.earthFromSensor
    case .eulerDegrees(let roll, let pitch, let yaw):
      return AttitudeAngles(
        roll: roll * Units.radiansPerDegree, pitch: pitch * Units.radiansPerDegree,
        yaw: yaw * Units.radiansPerDegree
      ).quaternion
    case .quaternion(let q):
      return q.normalized
    }
  }

  /// The orientation's name when the attitude is a named orientation.
  public var orientationName: DeviceOrientationName? {
    if case .orientation(let name, _) = self { return name }
    return nil
  }

  private enum CodingKeys: String, CodingKey {
    case orientation, yaw, roll, pitch, w, x, y, z
  }

  public init(from decoder: Decoder) throws {
    if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self)
    {
      guard let name = DeviceOrientationName(rawValue: text) else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "Unknown orientation '\(text)'. Valid names: "
              + DeviceOrientationName.allCases.map(\.rawValue).joined(separator: ", ")))
      }
      self = .orientation(name)
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    if let name = try c.decodeIfPresent(DeviceOrientationName.self, forKey: .orientation) {
      self = .orientation(name, yawDegrees: try c.decodeIfPresent(Double.self, forKey: .yaw) ?? 0)
    } else if let w = try c.decodeIfPresent(Double.self, forKey: .w) {
      self = .quaternion(
        Quaternion(
          w: w, x: try c.decodeIfPresent(Double.self, forKey: .x) ?? 0,
          y: try c.decodeIfPresent(Double.self, forKey: .y) ?? 0,
          z: try c.decodeIfPresent(Double.self, forKey: .z) ?? 0))
    } else {
      self = .eulerDegrees(
        roll: try c.decodeIfPresent(Double.self, forKey: .roll) ?? 0,
        pitch: try c.decodeIfPresent(Double.self, forKey: .pitch) ?? 0,
        yaw: try c.decodeIfPresent(Double.self, forKey: .yaw) ?? 0)
    }
  }

  public func encode(to encoder: Encoder) throws {
    switch self {
    case .orientation(let name, let yaw) where yaw == 0:
      var single = encoder.singleValueContainer()
      try single.encode(name.rawValue)
    case .orientation(let name, let yaw):
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(name, forKey: .orientation)
      try c.encode(yaw, forKey: .yaw)
    case .eulerDegrees(let roll, let pitch, let yaw):
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(roll, forKey: .roll)
      try c.encode(pitch, forKey: .pitch)
      try c.encode(yaw, forKey: .yaw)
    case .quaternion(let q):
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(q.w, forKey: .w)
      try c.encode(q.x, forKey: .x)
      try c.encode(q.y, forKey: .y)
      try c.encode(q.z, forKey: .z)
    }
  }
}
