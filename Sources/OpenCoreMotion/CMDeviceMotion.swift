// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// One fused device-motion sample: attitude, bias-corrected rotation rate, gravity and user
/// acceleration in g, calibrated magnetic field and heading.
///
/// The raw acceleration of the same instant is exactly `gravity + userAcceleration`.
open class CMDeviceMotion: CMLogItem {
  /// Where the sensors behind a device-motion sample sit. Raw values match Apple's.
  public enum SensorLocation: Int, Sendable {
    /// The device itself.
    case `default` = 0
    /// The left headphone (never produced by OpenCoreMotion).
    case headphoneLeft = 1
    /// The right headphone (never produced by OpenCoreMotion).
    case headphoneRight = 2
  }

  private let storedAttitude: CMAttitude
  private let storedRotationRate: CMRotationRate
  private let storedGravity: CMAcceleration
  private let storedUserAcceleration: CMAcceleration
  private let storedMagneticField: CMCalibratedMagneticField
  private let storedHeading: Double
  private let storedHeadingAccuracy: Double
  private let storedSensorLocation: SensorLocation

  /// The attitude relative to the reference frame the updates were started with.
  ///
  /// Each access returns a fresh copy, so ``CMAttitude/multiply(byInverseOf:)`` on it never changes
  /// the sample.
  ///
  /// (`copy(with:)` rather than `copy()`: Foundation's `copy()` looks up the `NSCopying`
  /// conformance at run time, which showed in profiles of 100 Hz device motion.)
  open var attitude: CMAttitude { storedAttitude.copy(with: nil) as! CMAttitude }

  /// The rotation rate in rad/s with the estimated gyroscope bias removed.
  open var rotationRate: CMRotationRate { storedRotationRate }

  /// Gravity in g in the device frame (points down: lying face up it is (0, 0, −1)).
  open var gravity: CMAcceleration { storedGravity }

  /// The acceleration the user gives the device, in g, device frame: raw acceleration − gravity.
  /// In free fall it equals −gravity.
  open var userAcceleration: CMAcceleration { storedUserAcceleration }

  /// The magnetic field in µT without the device's own distortion; zero and `.uncalibrated`
  /// without a magnetometer.
  open var magneticField: CMCalibratedMagneticField { storedMagneticField }

  /// The compass bearing of where the device points, in degrees clockwise from north, in
  /// [0, 360); −1 in the arbitrary reference frames, where there is no north.
  ///
  /// Apple documents the range, that the value is relative to the reference frame's north, and
  /// that it is negative in the arbitrary frames, but not which direction of the device it
  /// measures. Ours is the top edge's (+y) bearing while the top edge is level, whatever the
  /// roll, and turns smoothly towards the direction the back (the camera) faces as the top edge
  /// rises or dips, so that held upright, either way up, it is where the camera looks: the
  /// horizontal direction of `top + |top.z| · back` in the reference frame. The top edge alone
  /// has no bearing when it points up, and its value wandered there. Any such bearing is
  /// undefined in some pose; ours is in two, where the two terms cancel and the value turns by
  /// 180°: the top edge 51.8° above the horizontal with the screen facing 38.2° below it (the
  /// device seen from underneath), and the top edge 51.8° below the horizontal with the screen
  /// facing 38.2° above it (a device face up tipped over its top edge, read upside down; tipped
  /// further, the value is the camera's bearing, opposite the top edge's).
  open var heading: Double { storedHeading }

  /// How far the true heading may be from ``heading``, in degrees (iOS 27); negative when the
  /// heading is invalid: in the arbitrary reference frames, before the magnetometer has given
  /// one, and while the magnetometer is uncalibrated (``magneticField``'s accuracy
  /// `.uncalibrated`, until the device has turned enough for a calibration).
  ///
  /// Two standard deviations of the heading's error: the fusion's heading uncertainty, which
  /// grows with the gyroscope's noise, bias and scale uncertainty while the field is rejected as
  /// disturbed or absent, and settles, while the field corrects the heading, at what the
  /// magnetometer cannot check itself (1°: a local distortion of the earth's field, the
  /// calibration's residual), combined with what an error of the estimated tilt does to the
  /// heading in the device's pose: nothing lying flat, about the tilt upright, and up to the
  /// whole 180° near the two poses named on ``heading`` where it has no direction.
  /// Before a calibration the heading follows the raw field, which a hard iron nothing has
  /// fitted yet can bias by tens of degrees on a still device without any sign in the field, so
  /// no bound is given then, as `CLHeading` gives none for an uncalibrated compass. Measured on
  /// BROAD's 16 shared trials: the true heading error is within it for 99.9 % of the samples
  /// that have one (99.0 % on the worst trial, a magnet 5 cm from the sensor), with a median of
  /// 8.1° (7.8° from the yaw uncertainty alone) against a median error of 0.9°; 47 % of the
  /// samples have none, BROAD's factory calibration being unknown to the fusion. Apple documents
  /// no method; ours is in `docs/AppleCompatibility.md`.
  open var headingAccuracy: Double { storedHeadingAccuracy }

  /// Where the sensors are: always `.default` here.
  open var sensorLocation: SensorLocation { storedSensorLocation }

  /// Creates a sample at rest in the identity attitude, timestamp 0.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedAttitude = CMAttitude()
    storedRotationRate = CMRotationRate()
    storedGravity = CMAcceleration(x: 0, y: 0, z: -1)
    storedUserAcceleration = CMAcceleration()
    storedMagneticField = CMCalibratedMagneticField()
    storedHeading = -1
    storedHeadingAccuracy = -1
    storedSensorLocation = .default
    super.init()
  }

  /// Creates a sample from its parts. An addition to Apple's API, for tests and mocks.
  public init(
    timestamp: TimeInterval,
    attitude: CMAttitude,
    rotationRate: CMRotationRate,
    gravity: CMAcceleration,
    userAcceleration: CMAcceleration,
    magneticField: CMCalibratedMagneticField,
    heading: Double,
    headingAccuracy: Double = -1,
    sensorLocation: SensorLocation = .default
  ) {
    self.storedAttitude = attitude.copy(with: nil) as! CMAttitude
    self.storedRotationRate = rotationRate
    self.storedGravity = gravity
    self.storedUserAcceleration = userAcceleration
    self.storedMagneticField = magneticField
    self.storedHeading = heading
    self.storedHeadingAccuracy = headingAccuracy
    self.storedSensorLocation = sensorLocation
    super.init(timestamp: timestamp)
  }

  // MARK: NSSecureCoding

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    storedAttitude.encode(with: coder)
    coder.encodeVector(storedRotationRate.vector, forKey: "rotationRate")
    coder.encodeVector(storedGravity.vector, forKey: "gravity")
    coder.encodeVector(storedUserAcceleration.vector, forKey: "userAcceleration")
    coder.encodeVector(storedMagneticField.field.vector, forKey: "magneticField")
    coder.encode(Int(storedMagneticField.accuracy.rawValue), forKey: "magneticField.accuracy")
    coder.encode(storedHeading, forKey: "heading")
    coder.encode(storedHeadingAccuracy, forKey: "headingAccuracy")
    coder.encode(storedSensorLocation.rawValue, forKey: "sensorLocation")
  }

  public required init?(coder: NSCoder) {
    guard let attitude = CMAttitude(coder: coder) else { return nil }
    self.storedAttitude = attitude
    self.storedRotationRate = CMRotationRate(coder.decodeVector(forKey: "rotationRate"))
    self.storedGravity = CMAcceleration(coder.decodeVector(forKey: "gravity"))
    self.storedUserAcceleration = CMAcceleration(coder.decodeVector(forKey: "userAcceleration"))
    let accuracy = CMMagneticFieldCalibrationAccuracy(
      rawValue: Int32(clamping: coder.decodeInteger(forKey: "magneticField.accuracy")))
    self.storedMagneticField = CMCalibratedMagneticField(
      field: CMMagneticField(coder.decodeVector(forKey: "magneticField")),
      accuracy: accuracy ?? .uncalibrated)
    self.storedHeading = coder.decodeDouble(forKey: "heading")
    // Archives from before the property have no key: an invalid accuracy, not 0°.
    self.storedHeadingAccuracy =
      coder.containsValue(forKey: "headingAccuracy")
      ? coder.decodeDouble(forKey: "headingAccuracy") : -1
    self.storedSensorLocation =
      SensorLocation(rawValue: coder.decodeInteger(forKey: "sensorLocation")) ?? .default
    super.init(coder: coder)
  }

  open override var description: String {
    "<CMDeviceMotion \(storedAttitude) rotationRate: (\(rotationRate.x), \(rotationRate.y), "
      + "\(rotationRate.z)) gravity: (\(gravity.x), \(gravity.y), \(gravity.z)) userAcceleration: "
      + "(\(userAcceleration.x), \(userAcceleration.y), \(userAcceleration.z)) heading: \(heading) "
      + "± \(headingAccuracy) @ \(timestamp)>"
  }
}
