// SPDX-License-Identifier: Apache-2.0

#if os(Linux)
  import Foundation
  import MotionSensors
  import SourceComposition
  import _LinuxIIOTestSupport
  import XCTest

  @testable import LinuxIIO
  @testable import OpenCoreMotion

  /// `COREMOTION_SOURCE=iio` end to end: a fake sysfs tree (an MPU-6050 lying face up, read by
  /// polling) becomes an ordinary `CMMotionManager` source with Core Motion's units and signs.
  final class IIOSourceIntegrationTests: XCTestCase {
    private var savedEnvironment: [String: String?] = [:]

    private func setEnvironment(_ name: String, _ value: String) {
      if savedEnvironment[name] == nil {
        savedEnvironment[name] = ProcessInfo.processInfo.environment[name]
      }
      setenv(name, value, 1)
    }

    override func tearDown() {
      for (name, value) in savedEnvironment {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
      }
      super.tearDown()
    }

    /// `auto` with no hardware has no sensors and says it is `auto`: it was the `none` source, so
    /// `motionctl monitor --source auto` answered "none has no sensors".
    func testAutomaticWithoutHardwareIsNamedForAuto() throws {
      let tree = try IIOFakeTree()
      setEnvironment("COREMOTION_IIO_ROOT", tree.sysfsRoot)
      setEnvironment("COREMOTION_IIO_DEV", tree.devRoot)
      let source = try SourceFactory.makeSource(.automatic)
      XCTAssertEqual(source.availableSensors, [])
      XCTAssertEqual(source.name, "auto (no motion sensors found)")
    }

    /// An update interval changed while updates run reaches the hardware: the IIO source samples
    /// at the highest rate its subscribers ask for, and a manager started at 1 s and set to
    /// 0.02 s kept its 1 Hz subscription, so the device went on sampling (and the handler being
    /// called) once a second.
    func testAnIntervalChangedWhileUpdatesRunReachesTheDevice() throws {
      let tree = try IIOFakeTree()
      let device = try tree.addDevice(
        index: 0, name: "mpu6050",
        attributes: [
          "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384",
          "in_accel_scale": "0.000598",
          "sampling_frequency": "100", "sampling_frequency_available": "1 10 50 100",
        ])
      setEnvironment("COREMOTION_IIO_ROOT", tree.sysfsRoot)
      setEnvironment("COREMOTION_IIO_DEV", tree.devRoot)
      setEnvironment("COREMOTION_IIO_MODE", "polled")
      let source = try SourceFactory.makeSource(SourceSpecification(parsing: "iio"))
      let manager = CMMotionManager(source: source)
      let queue = makeSerialQueue()
      func deviceRate() -> Double? {
        (try? String(contentsOfFile: device + "/sampling_frequency", encoding: .utf8))
          .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
      }
      /// Whether the device comes to sample at `rate` within a generous bound (a loaded machine).
      func reaches(_ rate: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
          if deviceRate() == rate { return true }
          Thread.sleep(forTimeInterval: 0.01)
        }
        return false
      }
      manager.accelerometerUpdateInterval = 1
      manager.startAccelerometerUpdates(to: queue) { _, _ in }
      defer { manager.stopAccelerometerUpdates() }
      XCTAssertTrue(reaches(1), "sampling at \(String(describing: deviceRate())) Hz")
      manager.accelerometerUpdateInterval = 0.02
      XCTAssertTrue(reaches(50), "sampling at \(String(describing: deviceRate())) Hz")
    }

    func testIIOSourceDeliversCoreMotionUnits() throws {
      let tree = try IIOFakeTree()
      // 16384 counts × 0.000598 m/s² per count = 9.80 m/s² of specific force on z: face up.
      try tree.addDevice(
        index: 0, name: "mpu6050",
        attributes: [
          "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384",
          "in_accel_scale": "0.000598",
          "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0", "in_anglvel_z_raw": "100",
          "in_anglvel_scale": "0.001064724",
          "sampling_frequency": "50", "sampling_frequency_available": "10 20 50 100",
        ])
      setEnvironment("COREMOTION_IIO_ROOT", tree.sysfsRoot)
      setEnvironment("COREMOTION_IIO_DEV", tree.devRoot)
      setEnvironment("COREMOTION_IIO_MODE", "polled")

      let source = try SourceFactory.makeSource(SourceSpecification(parsing: "iio"))
      let manager = CMMotionManager(source: source)
      XCTAssertTrue(manager.isAccelerometerAvailable)
      XCTAssertTrue(manager.isGyroAvailable)
      XCTAssertFalse(manager.isMagnetometerAvailable)
      XCTAssertTrue(manager.isDeviceMotionAvailable)
      XCTAssertEqual(
        CMMotionManager.attitudeReferenceFrames(sensors: source.availableSensors, declination: nil),
        .xArbitraryZVertical)

      let queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
      let received = expectation(description: "accelerometer and gyroscope data")
      received.expectedFulfillmentCount = 2
      received.assertForOverFulfill = false
      let values = Locked<
        (acceleration: CMAcceleration?, rate: CMRotationRate?, timestamp: Double?)
      >((nil, nil, nil))
      manager.accelerometerUpdateInterval = 0.02
      manager.gyroUpdateInterval = 0.02
      manager.startAccelerometerUpdates(to: queue) { data, _ in
        guard let data else { return }
        let first = values.withLock { v -> Bool in
          defer { v.acceleration = data.acceleration; v.timestamp = data.timestamp }
          return v.acceleration == nil
        }
        if first { received.fulfill() }
      }
      manager.startGyroUpdates(to: queue) { data, _ in
        guard let data else { return }
        let first = values.withLock { v -> Bool in
          defer { v.rate = data.rotationRate }
          return v.rate == nil
        }
        if first { received.fulfill() }
      }
      wait(for: [received], timeout: 5)
      manager.stopAccelerometerUpdates()
      manager.stopGyroUpdates()

      let (acceleration, rate, timestamp) = values.withLock {
        ($0.acceleration, $0.rate, $0.timestamp)
      }
      // Face up reads (0, 0, −1) g in Core Motion's sign; 16384 × 0.000598 / 9.80665 = 0.99910.
      XCTAssertEqual(try XCTUnwrap(acceleration).z, -16384 * 0.000598 / 9.80665, accuracy: 1e-9)
      XCTAssertEqual(try XCTUnwrap(acceleration).x, 0, accuracy: 1e-12)
      XCTAssertEqual(try XCTUnwrap(rate).z, 100 * 0.001064724, accuracy: 1e-12)
      // Live sources stamp samples with the boot clock.
      XCTAssertEqual(try XCTUnwrap(timestamp), BootClock.now, accuracy: 5)
    }
  }
#endif
