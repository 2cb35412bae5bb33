// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// Records the accelerometer at 50 Hz for later retrieval.
///
/// In this version the recording lives in the process (the in-process motion history): it runs
/// while the process runs and is kept for at most 3 days and at most 12 h of samples, and it is
/// lost when the process ends. Apple's recorder keeps recording while the app is suspended or
/// terminated; the OpenCoreMotion daemon will provide that persistence through the same API.
open class CMSensorRecorder: NSObject {
  package let backend: any MotionHistoryBackend

  /// The longest recording request and query window, s (12 h).
  static let longestWindow: TimeInterval = 43_200

  /// Creates a recorder for the process's default source.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: an app's mock subclass can
  /// call `super.init()` or inherit it.
  public override init() {
    backend = MotionHistoryBackends.default
    super.init()
  }

  /// Creates a recorder for `source`. An addition to Apple's API (simulations, recordings, tests).
  public convenience init(source: any SensorSource) {
    self.init(backend: InProcessMotionHistory.shared(for: source))
  }

  package init(backend: any MotionHistoryBackend) {
    self.backend = backend
    super.init()
  }

  /// Whether the accelerometer can be recorded: the default source has one.
  open class func isAccelerometerRecordingAvailable() -> Bool {
    MotionHistoryBackends.defaultSensors.contains(.accelerometer)
  }

  /// Whether the app may record (see ``CMAuthorizationStatus``).
  open class func authorizationStatus() -> CMAuthorizationStatus { .processDefault }

  /// Deprecated by Apple in favour of ``authorizationStatus()``.
  @available(*, deprecated, message: "Use authorizationStatus()")
  open class func isAuthorizedForRecording() -> Bool { authorizationStatus() == .authorized }

  /// Records the accelerometer at 50 Hz for `duration` seconds from now (at most 12 h; a longer
  /// request records 12 h). Requests overlap: recording lasts until the latest end. Does nothing
  /// without an accelerometer, when not authorized, or for a duration that is not positive.
  open func recordAccelerometer(forDuration duration: TimeInterval) {
    guard backend.availableSensors.contains(.accelerometer),
      CMAuthorizationStatus.status(for: backend) == .authorized,
      duration.isFinite, duration > 0
    else { return }
    backend.recordAccelerometer(forDuration: Swift.min(duration, Self.longestWindow))
  }

  /// The recorded samples dated in `fromDate ... toDate` (both ends included), oldest first; `nil`
  /// when the window is longer than 12 h or reversed, or recording is not available. Samples that
  /// were not recorded (gaps) are simply absent.
  open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? {
    guard backend.availableSensors.contains(.accelerometer),
      CMAuthorizationStatus.status(for: backend) == .authorized,
      fromDate <= toDate, toDate.timeIntervalSince(fromDate) <= Self.longestWindow
    else { return nil }
    return CMSensorDataList(records: backend.recordedAccelerometer(from: fromDate, to: toDate))
  }
}
