// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// Parsing `COREMOTION_SOURCE` values for phone streams.
final class NetworkPhoneStreamSpecificationTests: XCTestCase {
  func testSensorLoggerForms() throws {
    let defaults = SensorLoggerReceiver.Configuration()
    XCTAssertEqual(try PhoneStreamSpecification(parsing: "sensorlogger"), .sensorLogger(defaults))
    var custom = defaults
    custom.port = 9000
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorlogger:9000"), .sensorLogger(custom))
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "SensorLogger://127.0.0.1:9000/"), .sensorLogger(custom)
    )
    // The default listens on loopback only; the LAN (or every interface) must be asked for.
    XCTAssertEqual(defaults.bindAddress, "127.0.0.1")
    var everywhere = custom
    everywhere.bindAddress = "0.0.0.0"
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorlogger://0.0.0.0:9000"),
      .sensorLogger(everywhere))
    custom.platform = .iOS
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorlogger:127.0.0.1:9000?platform=ios"),
      .sensorLogger(custom))
    custom.bindAddress = "::"
    custom.platform = .android
    let ipv6 = try PhoneStreamSpecification(
      parsing: "sensorlogger://[::]:9000?platform=standardised")
    XCTAssertEqual(ipv6, .sensorLogger(custom))
    XCTAssertEqual(ipv6.description, "sensorlogger://[::]:9000?platform=android")
    XCTAssertEqual(try PhoneStreamSpecification(parsing: ipv6.description), ipv6)
  }

  func testSensorServerForms() throws {
    let expected = PhoneStreamSpecification.sensorServer(.init(host: "192.168.1.20", port: 8080))
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorserver:ws://192.168.1.20:8080"), expected)
    XCTAssertEqual(try PhoneStreamSpecification(parsing: "sensorserver:192.168.1.20"), expected)
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorserver://192.168.1.20:8080/"), expected)
    let typed = try PhoneStreamSpecification(
      parsing:
        "sensorserver:ws://phone.local:8081?types=accelerometer,gyroscope_uncalibrated,android.sensor.pressure"
    )
    guard case .sensorServer(let configuration) = typed else { return XCTFail("\(typed)") }
    XCTAssertEqual(configuration.host, "phone.local")
    XCTAssertEqual(configuration.port, 8081)
    XCTAssertEqual(
      configuration.types,
      [
        "android.sensor.accelerometer", "android.sensor.gyroscope_uncalibrated",
        "android.sensor.pressure",
      ])
    XCTAssertEqual(try PhoneStreamSpecification(parsing: typed.description), typed)
    XCTAssertEqual(
      (typed.makeSource() as? SensorServerClient)?.availableSensors,
      [.accelerometer, .gyroscope, .barometer])
  }

  func testPhyphoxForms() throws {
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "phyphox:http://192.168.1.30:8080"),
      .phyphox(.init(host: "192.168.1.30", port: 8080)))
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "phyphox:192.168.1.30:80?interval=0.05"),
      .phyphox(.init(host: "192.168.1.30", port: 80, pollInterval: 0.05)))
    XCTAssertTrue(PhoneStreamSpecification.isPhoneStream("phyphox:http://x"))
    XCTAssertTrue(PhoneStreamSpecification.isPhoneStream("SENSORLOGGER"))
    XCTAssertFalse(PhoneStreamSpecification.isPhoneStream("simulator:tour"))
    XCTAssertTrue(
      try PhoneStreamSpecification(parsing: "phyphox:10.0.0.2").makeSource() is PhyphoxClient)
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorlogger").makeSource().name,
      "sensorlogger:127.0.0.1:8000")
  }

  func testClockOption() throws {
    let phone = try PhoneStreamSpecification(parsing: "phyphox:10.0.0.2?clock=phone&interval=0.2")
    XCTAssertEqual(phone, .phyphox(.init(host: "10.0.0.2", pollInterval: 0.2, clock: .phone)))
    XCTAssertEqual(phone.description, "phyphox:http://10.0.0.2:8080?interval=0.2&clock=phone")
    XCTAssertEqual(try PhoneStreamSpecification(parsing: phone.description), phone)
    let logger = try PhoneStreamSpecification(parsing: "sensorlogger:8000?clock=PHONE&platform=ios")
    XCTAssertEqual(logger.description, "sensorlogger://127.0.0.1:8000?platform=ios&clock=phone")
    XCTAssertEqual(
      try PhoneStreamSpecification(parsing: "sensorserver:phone?clock=boot"),
      .sensorServer(.init(host: "phone", clock: .receiverBoot)))
    XCTAssertThrowsError(try PhoneStreamSpecification(parsing: "sensorserver:phone?clock=utc")) {
      XCTAssertTrue("\($0)".contains("clock must be boot or phone"), "\($0)")
    }
  }

  func testMalformedFormsHaveClearErrors() {
    let cases: [(String, String)] = [
      ("sensorlogger:99999", "not a number from 0 to 65535"),
      ("sensorlogger:8000?platform=windows", "platform must be auto, ios, android or standardised"),
      ("sensorlogger:8000?colour=red", "unknown option \"colour\""),
      ("sensorserver:", "address is missing"),
      ("sensorserver:wss://phone:8080", "not wss://"),
      ("sensorserver:ws://phone:8080/sensors/connect", "a path is not allowed"),
      ("sensorserver:ws://phone?types=light", "none of the types is a motion sensor"),
      ("sensorserver:fe80::1:8080", "IPv6 address in brackets"),
      ("phyphox:https://phone", "not https://"),
      ("phyphox:phone?interval=0", "interval must be a number of seconds"),
      ("phyphox:[::1", "unclosed"),
      ("phyphox:ph one", "not a host name"),
      ("sensorlog:8000", "unknown phone stream \"sensorlog\""),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try PhoneStreamSpecification(parsing: text), text) { error in
        let message = "\(error)"
        XCTAssertTrue(message.contains(expected), "\(text): \(message)")
        XCTAssertTrue(message.contains("COREMOTION_SOURCE=\(text)"), message)
      }
    }
  }

  func testSensorLoggerToken() throws {
    let spec = try PhoneStreamSpecification(
      parsing: "sensorlogger:192.168.1.5:8000?token=s3cret-Token")
    guard case .sensorLogger(let configuration) = spec else { return XCTFail("\(spec)") }
    XCTAssertEqual(configuration.token, "s3cret-Token")
    XCTAssertEqual(configuration.bindAddress, "192.168.1.5")
    XCTAssertEqual(try PhoneStreamSpecification(parsing: spec.description), spec)
    XCTAssertThrowsError(try PhoneStreamSpecification(parsing: "sensorlogger:8000?token=a/b")) {
      XCTAssertTrue("\($0)".contains("token must be"), "\($0)")
    }
  }
}
