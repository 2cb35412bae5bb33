// SPDX-License-Identifier: Apache-2.0
//
// TestDoubles: how iOS apps fake Core Motion in their unit tests (subclass a manager or a data
// class and override what the code under test reads), written as they are on iOS. It imports
// CoreMotion and nothing else, as such files often do (Apple's module re-exports Foundation), so
// building it checks that these patterns compile unchanged on Linux; ExamplesTests runs it.

import CoreMotion

/// A data object whose value the test chooses: a designated initializer of its own that calls
/// `super.init()`.
final class FakePedometerData: CMPedometerData {
  private let steps: NSNumber

  init(steps: Int) {
    self.steps = NSNumber(value: steps)
    super.init()
  }

  required init?(coder: NSCoder) { nil }

  override var numberOfSteps: NSNumber { steps }
}

/// A pedometer that answers every query with canned data: a stored property and no initializer
/// of its own, so it inherits `init()`.
final class FakePedometer: CMPedometer {
  var cannedData: CMPedometerData?

  override func queryPedometerData(
    from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler
  ) {
    handler(cannedData, nil)
  }
}

final class WalkingActivity: CMMotionActivity {
  override var walking: Bool { true }
}

final class FakeMotionManager: CMMotionManager {
  let reportsDeviceMotion: Bool

  init(reportsDeviceMotion: Bool) {
    self.reportsDeviceMotion = reportsDeviceMotion
    super.init()
  }

  override var isDeviceMotionAvailable: Bool { reportsDeviceMotion }
}

final class FakeAltimeter: CMAltimeter {
  var readings: [CMAltitudeData] = []
}

/// The code under test: the step count of the last hour, as an app would display it.
func stepsInTheLastHour(_ pedometer: CMPedometer, completion: @escaping (Int?) -> Void) {
  let now = Date()
  pedometer.queryPedometerData(from: now.addingTimeInterval(-3600), to: now) { data, _ in
    completion(data?.numberOfSteps.intValue)
  }
}

let pedometer = FakePedometer()
pedometer.cannedData = FakePedometerData(steps: 4_321)
stepsInTheLastHour(pedometer) { steps in print("steps in the last hour:", steps ?? -1) }
print("walking:", WalkingActivity().walking)
print(
  "device motion available:", FakeMotionManager(reportsDeviceMotion: true).isDeviceMotionAvailable)
print("altimeter readings:", FakeAltimeter().readings.count)
print(
  "recorded samples:", Array(CMSensorDataList()).count, CMRecordedAccelerometerData().identifier)
