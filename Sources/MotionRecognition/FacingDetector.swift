// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Tells whether the device has been turned over relative to a reference attitude, with
/// hysteresis: the "flip a card" gesture behind a prompt that shows a question on one side and
/// the answer on the other.
///
/// The detector follows one device axis, ``Parameters/axis`` (default +z, the screen normal), and
/// measures the angle between where it points now and where it pointed at the reference. The side
/// flips to ``Side/back`` when that angle exceeds ``Parameters/flipAngle`` (120°) and returns to
/// ``Side/front`` when it drops below ``Parameters/returnAngle`` (60°); in between it stays, so
/// a device held near edge-on does not flicker. A change must hold for
/// ``Parameters/settlingTime`` (0.05 s).
///
/// With ``MotionInput/attitude`` the angle is measured in the earth frame and catches any turn,
/// including spinning an upright device round to face someone else. Without it, gravity is used:
/// the angle between the current and the reference gravity directions in device coordinates,
/// which sees turning over but not turning about the vertical. The reference is the first input
/// unless set with ``setReference(_:)``.
public struct FacingDetector: MotionEventDetector {
  /// Which way the device faces relative to the reference.
  public enum Side: Sendable, Hashable {
    /// As at the reference (within ``Parameters/returnAngle`` after having flipped).
    case front
    /// Turned over (beyond ``Parameters/flipAngle``).
    case back
  }

  /// A change of side.
  public struct Event: Sendable, Hashable {
    /// When the change was committed, seconds on the input's clock.
    public var timestamp: Double
    /// The new side.
    public var side: Side
    /// The angle from the reference at that moment, radians.
    public var angle: Double
  }

  /// The detector's tuning, in radians and seconds.
  public struct Parameters: Sendable, Hashable {
    /// The device axis followed (unit vector in device coordinates). Default +z, the screen normal.
    public var axis: SIMD3<Double>
    /// Angle from the reference beyond which the device counts as turned over, radians. Default
    /// 120°.
    public var flipAngle: Double
    /// Angle from the reference below which it counts as facing the original way, radians. Default
    /// 60°.
    public var returnAngle: Double
    /// How long a change must hold before it is committed, seconds. Default 0.05 s.
    public var settlingTime: Double

    /// Creates parameters; see the properties for units and defaults.
    public init(
      axis: SIMD3<Double> = SIMD3(0, 0, 1), flipAngle: Double = 120 * Units.radiansPerDegree,
      returnAngle: Double = 60 * Units.radiansPerDegree, settlingTime: Double = 0.05
    ) {
      self.axis = axis
      self.flipAngle = flipAngle
      self.returnAngle = returnAngle
      self.settlingTime = settlingTime
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  /// What the angle is measured against.
  public enum Reference: Sendable, Hashable {
    /// An attitude `earthFromSensor`.
    case attitude(Quaternion)
    /// A gravity vector in device coordinates (g, Core Motion's sign).
    case gravity(SIMD3<Double>)
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  /// The reference, or `nil` until the first input sets it.
  public private(set) var reference: Reference?
  /// The committed side.
  public private(set) var side = Side.front
  /// The most recent angle from the reference, radians.
  public private(set) var angle = 0.0
  private var pendingSince: Double?

  /// Creates a detector with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Sets the reference the angle is measured from and returns to ``Side/front``.
  public mutating func setReference(_ reference: Reference) {
    self.reference = reference
    side = .front
    pendingSince = nil
  }

  public mutating func reset() {
    reference = nil
    side = .front
    angle = 0
    pendingSince = nil
  }

  public mutating func update(_ input: MotionInput) -> Event? {
    guard let measured = measureAngle(input) else { return nil }
    angle = measured
    let target: Side
    switch side {
    case .front: target = measured > parameters.flipAngle ? .back : .front
    case .back: target = measured < parameters.returnAngle ? .front : .back
    }
    guard target != side else {
      pendingSince = nil
      return nil
    }
    let since = pendingSince ?? input.timestamp
    pendingSince = since
    guard input.timestamp - since >= parameters.settlingTime else { return nil }
    side = target
    pendingSince = nil
    return Event(timestamp: input.timestamp, side: target, angle: measured)
  }

  private mutating func measureAngle(_ input: MotionInput) -> Double? {
    let axis = parameters.axis.normalized
    if reference == nil {
      if let attitude = input.attitude {
        reference = .attitude(attitude)
      } else {
        reference = .gravity(input.gravity ?? input.acceleration)
      }
    }
    switch reference {
    case .attitude(let start)?:
      guard let attitude = input.attitude else { return nil }
      return Self.angleBetween(start.act(on: axis), attitude.act(on: axis))
    case .gravity(let start)?:
      return Self.angleBetween(start, input.gravity ?? input.acceleration)
    case nil:
      return nil
    }
  }

  /// The angle between two vectors in radians, robust near 0 and π.
  static func angleBetween(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    Double.atan2(a.cross(b).length, a.dot(b))
  }
}
