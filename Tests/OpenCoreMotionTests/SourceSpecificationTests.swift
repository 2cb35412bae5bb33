// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import PhoneStreams
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion
@testable import SourceComposition

/// `COREMOTION_SOURCE` parsing and the default source.
final class SourceSpecificationTests: XCTestCase {
  func testValidForms() throws {
    var cases: [(String, SourceSpecification)] = [
      ("none", .none),
      ("NONE", .none),
      ("", .automatic),
      ("auto", .automatic),
      ("simulator", .simulator(scenario: nil)),
      ("simulator:tour", .simulator(scenario: "tour")),
      ("simulator:tour?speed=2", .simulator(scenario: "tour", speed: .multiplier(2))),
      ("simulator?speed=max", .simulator(scenario: nil, speed: .asFastAsPossible)),
      ("replay:walk.csv", .replay(path: "walk.csv")),
      ("replay:/data/runs/a:b.csv", .replay(path: "/data/runs/a:b.csv")),
      ("replay:walk.csv?speed=0.5", .replay(path: "walk.csv", speed: .multiplier(0.5))),
      ("replay:walk.csv?speed=4", .replay(path: "walk.csv", speed: .multiplier(4))),
      ("replay:walk.csv?speed=max", .replay(path: "walk.csv", speed: .asFastAsPossible)),
      ("replay:walk.csv?speed=0.01", .replay(path: "walk.csv", speed: .multiplier(0.01))),
      ("replay:walk.csv?speed=1000", .replay(path: "walk.csv", speed: .multiplier(1000))),
      ("replay:what?.csv?speed=max", .replay(path: "what?.csv", speed: .asFastAsPossible)),
      ("iio", .iio),
      ("IIO", .iio),
      (" none ", .none),
    ]
    #if PhoneStreams
      cases += [
        (
          "sensorlogger:8000",
          .phoneStream(try PhoneStreamSpecification(parsing: "sensorlogger:8000"))
        ),
        (
          "phyphox:http://192.168.1.20:8080",
          .phoneStream(try PhoneStreamSpecification(parsing: "phyphox:http://192.168.1.20:8080"))
        ),
      ]
    #endif
    for (text, expected) in cases {
      XCTAssertEqual(try SourceSpecification(parsing: text), expected, "“\(text)”")
    }
  }

  /// A Sensor Logger push token stays in the canonical form (it round-trips) but not in the one
  /// shown on the dashboard's pages, its Foxglove name, logs and error messages: whoever reads it
  /// can post readings to the receiver.
  func testTheDisplayedFormHidesAPushToken() throws {
    #if PhoneStreams
      let text = "sensorlogger:192.168.1.5:8000?token=s3cret-Token"
      let specification = try SourceSpecification(parsing: text)
      XCTAssertEqual(try SourceSpecification(parsing: specification.description), specification)
      XCTAssertTrue(specification.description.contains("s3cret-Token"))
      XCTAssertEqual(
        specification.displayDescription, "sensorlogger://192.168.1.5:8000?token=hidden")
    #endif
    XCTAssertEqual(SourceSpecification.iio.displayDescription, "iio")
  }

  func testDescriptionRoundTrips() throws {
    var specifications: [SourceSpecification] = [
      .none, .automatic, .simulator(scenario: nil),
      .simulator(scenario: "walk", speed: .multiplier(3)),
      .replay(path: "/tmp/x.csv"), .replay(path: "a.csv", speed: .multiplier(0.25)),
      .replay(path: "a.csv", speed: .asFastAsPossible), .iio,
    ]
    #if PhoneStreams
      specifications.append(
        .phoneStream(try PhoneStreamSpecification(parsing: "sensorserver:ws://10.0.0.2:8080")))
    #endif
    for specification in specifications {
      XCTAssertEqual(try SourceSpecification(parsing: specification.description), specification)
    }
    XCTAssertEqual(
      SourceSpecification.replay(path: "a.csv", speed: .multiplier(2)).description,
      "replay:a.csv?speed=2")
  }

  /// The phone-stream schemes SourceComposition recognises without the `PhoneStreams` trait are the
  /// ones `PhoneStreamSpecification` parses, so that a build without the trait names the trait
  /// instead of calling the form unknown.
  func testPhoneStreamSchemesMatchThePhoneStreamsModule() {
    XCTAssertEqual(SourceSpecification.phoneStreamSchemes, PhoneStreamSpecification.schemes)
  }

  #if !PhoneStreams
    /// Built with `--disable-default-traits`: a phone-stream form is recognised and says which
    /// trait is missing.
    func testPhoneStreamFormsNameTheMissingTrait() {
      for text in [
        "sensorlogger:8000", "SensorServer:ws://10.0.0.2:8080", "phyphox:http://10.0.0.3",
      ] {
        XCTAssertThrowsError(try SourceSpecification(parsing: text), text) { error in
          let error = error as? SourceSpecificationError
          XCTAssertEqual(error?.kind, .unavailable, text)
          XCTAssertEqual(error?.problem.contains("enable the PhoneStreams trait"), true, text)
        }
      }
    }
  #endif

  func testInvalidFormsExplainThemselves() {
    var cases: [(String, String)] = [
      ("bogus", "unknown source kind `bogus`"),
      ("replay:", "needs a file path"),
      ("replay", "needs a file path"),
      ("replay:walk.csv?speed=0", "not a positive number"),
      ("replay:walk.csv?speed=-1", "not a positive number"),
      ("replay:walk.csv?speed=fast", "not a positive number"),
      ("replay:walk.csv?speed=nan", "not a positive number"),
      // Outside 0.01–1000: 1e-308 froze the source for longer than the universe's age.
      ("replay:walk.csv?speed=1e-308", "is outside 0.01–1000"),
      ("replay:walk.csv?speed=0.009", "is outside 0.01–1000"),
      ("simulator?speed=1000.5", "is outside 0.01–1000"),
      ("replay:walk.csv?rate=2", "unknown option"),
      ("simulator:", "scenario name"),
      ("none:x", "takes no argument"),
      ("iio:", "takes no argument"),
      ("iio:iio:device0", "takes no argument"),
    ]
    #if PhoneStreams
      cases += [("sensorlogger:99999", "port"), ("sensorserver:", "address is missing")]
    #endif
    for (text, fragment) in cases {
      XCTAssertThrowsError(try SourceSpecification(parsing: text), "“\(text)”") { error in
        let message = "\(error)"
        XCTAssertTrue(message.contains(fragment), "“\(text)”: \(message)")
        XCTAssertTrue(message.contains("accepted:"), message)
        XCTAssertTrue(error is SourceSpecificationError)
      }
    }
  }

  func testEnvironment() throws {
    XCTAssertEqual(try SourceSpecification.fromEnvironment([:]), .automatic)
    XCTAssertEqual(try SourceSpecification.fromEnvironment(["COREMOTION_SOURCE": "none"]), .none)
    XCTAssertThrowsError(try SourceSpecification.fromEnvironment(["COREMOTION_SOURCE": "nope"])) {
      XCTAssertTrue("\($0)".contains("COREMOTION_SOURCE"))
    }
  }

  func testBadEnvironmentFallsBackToNoSensorsWithAMessage() {
    let (source, message, _) = SourceFactory.resolveDefaultSource(
      environment: ["COREMOTION_SOURCE": "replay:"])
    XCTAssertEqual(source.availableSensors, [])
    XCTAssertTrue(message?.contains("continuing with no sensors") ?? false, message ?? "no message")
    let manager = CMMotionManager(source: source)
    XCTAssertFalse(manager.isAccelerometerAvailable)

    let (none, noMessage, _) = SourceFactory.resolveDefaultSource(environment: [
      "COREMOTION_SOURCE": "none"
    ])
    XCTAssertEqual(none.name, "none")
    XCTAssertNil(noMessage)
  }

  func testFactoryMakesEmptySourceForNone() throws {
    let source = try SourceFactory.makeSource(.none)
    XCTAssertEqual(source.availableSensors, [])
  }

  #if PhoneStreams
    func testFactoryMakesPhoneStreamSources() throws {
      // Nothing listens or connects until the first subscription.
      let source = try SourceFactory.makeSource(SourceSpecification(parsing: "sensorlogger:0"))
      XCTAssertTrue(source.name.hasPrefix("sensorlogger"), source.name)
    }
  #endif

  func testMissingRecordingIsAnError() {
    XCTAssertThrowsError(
      try SourceFactory.makeSource(.replay(path: "/nonexistent/definitely-not-here.csv"))
    ) { error in
      XCTAssertEqual((error as? SourceSpecificationError)?.kind, .unavailable, "\(error)")
      XCTAssertTrue("\(error)".hasPrefix("cannot open sensor source"), "\(error)")
      XCTAssertFalse("\(error)".contains("accepted:"), "\(error)")
    }
  }

  func testAvailableFramesFollowTheSensors() {
    XCTAssertEqual(CMMotionManager.attitudeReferenceFrames(sensors: [], declination: nil), [])
    XCTAssertEqual(
      CMMotionManager.attitudeReferenceFrames(
        sensors: [.accelerometer, .magnetometer], declination: 3),
      [])
    XCTAssertEqual(
      CMMotionManager.attitudeReferenceFrames(sensors: .inertial, declination: 3),
      .xArbitraryZVertical)
    XCTAssertEqual(
      CMMotionManager.attitudeReferenceFrames(sensors: .nineAxis, declination: nil),
      [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
    XCTAssertEqual(
      CMMotionManager.attitudeReferenceFrames(sensors: .nineAxis, declination: 0),
      [
        .xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical,
        .xTrueNorthZVertical,
      ])
    // The class method reflects the process's default source; it never advertises true north
    // without a declination.
    XCTAssertFalse(
      CMMotionManager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
    let defaultFrames = CMMotionManager.attitudeReferenceFrames(
      sensors: SourceFactory.defaultSource.availableSensors, declination: nil)
    XCTAssertEqual(CMMotionManager.availableAttitudeReferenceFrames(), defaultFrames)
  }
}

/// `replay:` through the real recording reader: write a recording, play it back as fast as
/// possible.
final class ReplaySourceTests: XCTestCase {
  /// A speed built in code skips the parser; the factory refuses one outside 0.01–1000 too.
  func testFactoryRefusesSpeedsOutsideTheRange() {
    for speed in [1e-308, 0, -1, .nan, .infinity, 0.001, 1e6] {
      for specification in [
        SourceSpecification.replay(path: "/nonexistent.csv", speed: .multiplier(speed)),
        .simulator(scenario: "faceUp", speed: .multiplier(speed)),
      ] {
        XCTAssertThrowsError(try SourceFactory.makeSource(specification), "\(speed)") { error in
          XCTAssertEqual((error as? SourceSpecificationError)?.kind, .invalid, "\(speed)")
          XCTAssertTrue("\(error)".contains("is outside 0.01–1000"), "\(error)")
        }
      }
    }
  }

  func testReplayOfAWrittenRecording() async throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("opencoremotion-replay-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: url) }
    let samples = Synthetic.still(Synthetic.faceUp, count: 200)
    try writeRecording(samples, to: url)

    let source = try SourceFactory.makeSource(
      SourceSpecification(parsing: "replay:\(url.path)?speed=max"))
    XCTAssertTrue(source.availableSensors.isSuperset(of: .nineAxis), "\(source.availableSensors)")
    let manager = CMMotionManager(source: source)
    let updates = manager.accelerometerUpdates()
    let readings = try await withDeadline(seconds: 60, "the end of the replay") {
      var readings: [(timestamp: Double, acceleration: SIMD3<Double>)] = []
      for await data in updates { readings.append((data.timestamp, data.acceleration.vector)) }
      return readings
    }
    for reading in readings {
      XCTAssertVector(reading.acceleration, SIMD3(0, 0, -1), accuracy: 1e-6)
    }
    let stamps = readings.map(\.timestamp)
    XCTAssertEqual(stamps.count, 200)
    XCTAssertEqual(stamps.first ?? 0, 1000, accuracy: 1e-6, "the recording's own clock")
  }
}

private func writeRecording(_ samples: [MotionSample], to url: URL) throws {
  let descriptor = StreamDescriptor(name: "synthetic", sensors: .nineAxis, nominalSampleRate: 100)
  let writer = try RecordingWriter(url: url, descriptor: descriptor)
  for sample in samples { try writer.append(sample) }
  try writer.finish()
}

/// `simulator:` through the real simulator.
final class SimulatorSourceTests: XCTestCase {
  func testSimulatedFaceUpScenarioReadsMinusOneG() async throws {
    let source = try SourceFactory.makeSource(
      SourceSpecification(parsing: "simulator:faceUp?speed=max"))
    XCTAssertTrue(source.availableSensors.isSuperset(of: .nineAxis), "\(source.availableSensors)")
    let manager = CMMotionManager(source: source)
    manager.deviceMotionUpdateInterval = 0.1
    let updates = manager.deviceMotionUpdates()
    let (count, lastGravity) = try await withDeadline(seconds: 60, "the end of the simulation") {
      var last: SIMD3<Double>?
      var count = 0
      for await motion in updates {
        last = motion.gravity.vector
        count += 1
      }
      return (count, last)
    }
    XCTAssertNil(updates.error)
    XCTAssertGreaterThan(count, 50)
    // Simulated noise: the fused gravity is within 0.02 g of straight down after 10 s at rest.
    XCTAssertVector(try XCTUnwrap(lastGravity), SIMD3(0, 0, -1), accuracy: 0.02)
  }

  func testUnknownScenarioNamesTheValidOnes() {
    XCTAssertThrowsError(try SourceFactory.makeSource(.simulator(scenario: "moonwalk"))) { error in
      XCTAssertTrue(error is SourceSpecificationError)
      XCTAssertTrue("\(error)".contains("tour"), "\(error)")
    }
  }

  func testDefaultScenarioExists() throws {
    XCTAssertNoThrow(try SourceFactory.makeSource(.simulator(scenario: nil)))
  }
}
