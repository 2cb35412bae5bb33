// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// A loopback stand-in for phyphox's remote-access server, following the documented `/get`
/// semantics (empty → last value, `full`, `T` → from the first value above T, `T|ref`). As in
/// phyphox, a buffer the experiment has is answered even when empty (those `config` names exist,
/// empty until appended to), and one it does not have is left out of the answer.
final class NetworkPhyphoxStubServer: @unchecked Sendable {
  struct State {
    var buffers: [String: [Double?]] = [:]
    var session = "abc123"
    var config = ""
    var requests: [String] = []
    var getAnswerOverride: String?
    /// An experiment the phone switches to right after answering `/config`: its session,
    /// configuration and buffers.
    var switchAfterConfig: (session: String, config: String, buffers: [String: [Double?]])?
    /// Which requests (by target) find a session never seen before, as from a phone or proxy
    /// that starts a new one for them; `nil`: none.
    var newSessionFor: (@Sendable (String) -> Bool)?
    /// How many `/config` requests are still answered HTTP 503, as by a phone too busy to.
    var configUnavailable = 0
  }

  let state = Locked(State())
  private var application: NetworkTestApplication!

  init(config: String) throws {
    state.withLock { $0.config = config }
    let responder = CallbackResponder<BasicRequestContext> { [state] request, _ in
      let target = request.uri.description
      var status = HTTPResponse.Status.ok
      let body = state.withLock { s -> String in
        s.requests.append(target)
        if s.newSessionFor?(target) == true { s.session = "session\(s.requests.count)" }
        if request.uri.path == "/config", s.configUnavailable > 0 {
          s.configUnavailable -= 1
          status = .serviceUnavailable
          return "{}"
        }
        if request.uri.path == "/config" {
          defer {
            if let next = s.switchAfterConfig {
              (s.session, s.config, s.buffers) = next
              s.switchAfterConfig = nil
            }
          }
          return s.config  // empty: answered 404 below
        }
        if let override = s.getAnswerOverride { return override }
        return Self.answer(to: target, state: s)
      }
      var headers = HTTPFields()
      headers[.contentType] = "application/json"
      return Response(
        status: body.isEmpty ? .notFound : status, headers: headers,
        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
    application = try NetworkTestApplication { onRunning in
      Application(
        responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: onRunning, logger: NetworkTestApplication.quietLogger)
    }
  }

  var port: UInt16 { application.port }

  func stop() {
    application.stop()
  }

  /// Appends rows to buffers atomically.
  func append(_ columns: [String: [Double?]]) {
    state.withLock { s in
      for (name, values) in columns { s.buffers[name, default: []] += values }
    }
  }

  var requests: [String] { state.withLock { $0.requests } }

  private static func answer(to target: String, state: State) -> String {
    let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
    var parts: [String] = []
    for parameter in query.split(separator: "&") {
      let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(pair[0]).removingPercentEncoding!
      let value = pair.count > 1 ? String(pair[1]).removingPercentEncoding! : ""
      // Unknown buffers are skipped.
      guard let values = state.buffers[name] ?? (state.config.contains("\"\(name)\"") ? [] : nil)
      else { continue }
      var selected: [Double?]
      var mode = "partial"
      if value.isEmpty {
        selected = values.last.map { [$0] } ?? []
        mode = "single"
      } else if value == "full" {
        selected = values
        mode = "full"
      } else {
        let pieces = value.split(separator: "|")
        let threshold = Double(pieces[0])!
        let reference = pieces.count > 1 ? state.buffers[String(pieces[1])] ?? [] : values
        let start = reference.firstIndex { ($0 ?? -.infinity) > threshold } ?? reference.count
        selected = start < values.count ? Array(values[start...]) : []
      }
      let numbers = selected.map { $0.map { "\($0)" } ?? "null" }.joined(separator: ",")
      parts.append("\"\(name)\":{\"size\":0,\"updateMode\":\"\(mode)\",\"buffer\":[\(numbers)]}")
    }
    return
      "{\"buffer\":{\(parts.joined(separator: ","))},\"status\":{\"session\":\"\(state.session)\","
      + "\"measuring\":true,\"timedRun\":false,\"countDown\":0}}"
  }
}

/// The phyphox remote-access polling client against the loopback stub.
final class NetworkPhyphoxTests: XCTestCase {
  static let config = """
    {"crc32":"1a2b","title":"Acceleration with g","localTitle":"Acceleration with g","category":"Raw Sensors",
     "localCategory":"Raw Sensors","buffers":[{"name":"accX","size":0}],
     "inputs":[{"source":"accelerometer","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"},{"abs":"acc"}]},
               {"source":"gyroscope","outputs":[{"x":"gyrX"},{"y":"gyrY"},{"z":"gyrZ"},{"t":"gyr_time"}]},
               {"source":"magnetic_field","outputs":[{"x":"magX"},{"y":"magY"},{"z":"magZ"},{"t":"mag_time"}]},
               {"source":"pressure","outputs":[{"x":"p"},{"t":"p_time"}]}],
     "export":[]}
    """

  static func accelerometerRows(_ times: [Double]) -> [String: [Double?]] {
    [
      "acc_time": times, "accX": times.map { _ in 0.1 }, "accY": times.map { _ in -0.2 },
      "accZ": times.map { _ in 9.81 }, "acc": times.map { _ in 9.81 },
    ]
  }

  private func makeClient(port: UInt16) -> PhyphoxClient {
    PhyphoxClient(
      configuration: .init(
        host: "127.0.0.1", port: port, pollInterval: 0.01, requestTimeout: 1,
        sampleHoldTime: 0.01, maximumSampleDelay: 0.05, clock: .phone))
  }

  func testIncrementalPollingDeliversEachSampleOnce() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([0.00, 0.01, 0.02]))
    stub.append(["gyr_time": [], "gyrX": [], "gyrY": [], "gyrZ": []])
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }

    // The first poll starts "now": only the last accelerometer value; the empty gyroscope
    // buffer will be read from its start.
    XCTAssertTrue(networkEventually { client.completedPolls >= 2 })
    for step in 3...7 {
      let t = Double(step) / 100
      stub.append(
        Self.accelerometerRows([t]).merging([
          "gyr_time": [t], "gyrX": [0.5], "gyrY": [0], "gyrZ": [nil],
        ]) { $1 })
      stub.append(["gyr_time": [t + 0.005], "gyrX": [0.25], "gyrY": [0], "gyrZ": [-0.1]])
    }
    XCTAssertTrue(
      collector.wait {
        $0.samples.compactMap(\.accelerometer).count >= 6
          && $0.samples.compactMap(\.gyroscope).count >= 5
      },
      "\(collector.all)")
    subscription.cancel()
    let samples = collector.samples
    XCTAssertTrue(collector.failures.isEmpty, "\(collector.failures)")
    XCTAssertEqual(samples.map(\.timestamp), samples.map(\.timestamp).sorted())
    let accelerometerTimes = samples.filter { $0.accelerometer != nil }.map(\.timestamp)
    XCTAssertEqual(accelerometerTimes, [0.02, 0.03, 0.04, 0.05, 0.06, 0.07])
    // Gyroscope rows with a null value (no valid measurement) are skipped.
    let gyroscopeTimes = samples.filter { $0.gyroscope != nil }.map(\.timestamp)
    XCTAssertEqual(gyroscopeTimes.count, 5)
    for (time, expected) in zip(gyroscopeTimes, [0.035, 0.045, 0.055, 0.065, 0.075]) {
      XCTAssertEqual(time, expected, accuracy: 1e-12)  // t + 0.005 in binary floating point
    }
    assertNetworkVectorsClose(samples.first?.accelerometer, SIMD3(0.1, -0.2, 9.81), tolerance: 0)
    XCTAssertTrue(
      stub.requests.contains {
        $0.hasPrefix("/get?acc_time=0.02&accX=0.02%7Cacc_time&accY=0.02%7Cacc_time")
      },
      "\(stub.requests.prefix(4))")
    // The session before and after /config (a /get for no buffer), so that a switch meanwhile
    // is seen.
    XCTAssertEqual(Array(stub.requests.prefix(3)), ["/get", "/config", "/get"])
  }

  func testClearedExperimentKeepsTimestampsIncreasing() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([5.0]))
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { $0.samples.count >= 1 })
    // The user presses "clear" and measures again: experiment time restarts at 0.
    stub.state.withLock { $0.buffers = [:] }
    let polls = client.completedPolls
    XCTAssertTrue(networkEventually { client.completedPolls >= polls + 3 })
    stub.append(Self.accelerometerRows([0.0, 0.5]))
    XCTAssertTrue(collector.wait { $0.samples.count >= 3 }, "\(collector.all)")
    XCTAssertEqual(collector.samples.map(\.timestamp), [5.0, 5.0, 5.5])
  }

  func testMalformedAnswerIsReportedOnceAndPollingRecovers() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.state.withLock { $0.getAnswerOverride = "<html>nope</html>" }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertTrue(networkEventually { stub.requests.count >= 5 })
    stub.state.withLock { $0.getAnswerOverride = "{\"status\":{}}" }
    XCTAssertTrue(collector.wait { $0.failures.count >= 2 })
    stub.append(Self.accelerometerRows([1.0]))
    stub.state.withLock { $0.getAnswerOverride = nil }
    XCTAssertTrue(collector.wait { !$0.samples.isEmpty })
    let failures = collector.failures
    XCTAssertEqual(failures.count, 2, "repeats are reported once: \(failures)")
    XCTAssertEqual(failures[0].kind, .malformedData)
    XCTAssertTrue(failures[0].message.contains("not JSON"), failures[0].message)
    XCTAssertTrue(failures[1].message.contains("no \"buffer\""), failures[1].message)
  }

  func testLinearAccelerationExperimentIsExplained() throws {
    let config = """
      {"inputs":[{"source":"linear_acceleration","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"}]}]}
      """
    let (groups, notes) = PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(config.utf8)))
    XCTAssertTrue(groups.isEmpty)
    XCTAssertEqual(notes.count, 1)
    let stub = try NetworkPhyphoxStubServer(config: config)
    defer { stub.stop() }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    // No input read: no sensor at all, every one gone by the time subscribers hear.
    let atNotice = Locked<SensorSet?>(nil)
    let subscription = client.subscribe(requestedSampleRate: 100) { [weak client] event in
      if case .failure = event { atNotice.withLock { $0 = $0 ?? client?.availableSensors } }
      collector.handler(event)
    }
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { $0.failures.count >= 2 })
    XCTAssertEqual(atNotice.withLock { $0 }, [])
    XCTAssertTrue(
      collector.failures[0].message.contains("without g"), collector.failures[0].message)
    XCTAssertTrue(
      collector.failures[1].message.contains("Acceleration with g"), collector.failures[1].message)
  }

  /// A `/config` answered with an error other than 404 (which only a phyphox without `/config`
  /// gives) is a failed read, reported and retried: it was taken for a phyphox without `/config`,
  /// whose standard buffer names stood for the experiment, so the gyroscope and magnetometer an
  /// "Acceleration with g" lacks stayed offered, with no word.
  func testConfigAnsweredWithAnErrorIsRetriedNotTakenForAnOldPhyphox() throws {
    let accelerometerOnly = """
      {"inputs":[{"source":"accelerometer","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"}]}]}
      """
    let stub = try NetworkPhyphoxStubServer(config: accelerometerOnly)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([1.0]))
    stub.state.withLock { $0.configUnavailable = 1 }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 15) { $0.failures.contains { $0.message.contains("no gyroscope") } },
      "\(collector.failures)")
    XCTAssertEqual(client.availableSensors, [.accelerometer])
    let failures = collector.failures
    XCTAssertEqual(failures.count, 2, "\(failures)")
    XCTAssertTrue(failures[0].message.contains("/config answered HTTP 503"), failures[0].message)
    XCTAssertFalse(failures[0].isFatal)
    XCTAssertEqual(stub.requests.filter { $0 == "/config" }.count, 2)
  }

  func testExperimentWithoutGyroscopeSaysThereIsNoDeviceMotion() throws {
    // The built-in "Acceleration with g" experiment: the accelerometer only. Device motion was
    // started on it (the client offers every sensor before reading /config) and never updated,
    // with no failure to say why.
    let config = """
      {"inputs":[{"source":"accelerometer","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"}]}]}
      """
    let (groups, notes) = PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(config.utf8)))
    XCTAssertEqual(groups.map(\.sensor), [.accelerometer])
    XCTAssertEqual(notes.count, 1, "\(notes)")
    let stub = try NetworkPhyphoxStubServer(config: config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([1.0]))
    let client = makeClient(port: stub.port)
    XCTAssertTrue(client.availableSensors.contains(.gyroscope), "offered before /config is read")
    let collector = NetworkEventCollector()
    // What a subscriber told "no gyroscope" reads: the gyroscope already gone, so that device
    // motion is not available (the client kept offering it).
    let atNotice = Locked<SensorSet?>(nil)
    let subscription = client.subscribe(requestedSampleRate: 100) { [weak client] event in
      if case .failure = event { atNotice.withLock { $0 = $0 ?? client?.availableSensors } }
      collector.handler(event)
    }
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 20) { !$0.failures.isEmpty && !$0.samples.isEmpty },
      "\(collector.all)")
    let notice = collector.failures.first
    XCTAssertTrue(
      notice?.message.contains("no gyroscope, magnetometer or pressure input") ?? false,
      "\(collector.all)")
    XCTAssertTrue(notice?.message.contains("no device motion") ?? false, "\(collector.all)")
    XCTAssertEqual(notice?.isFatal, false, "the accelerometer still streams")
    XCTAssertEqual(atNotice.withLock { $0 }, [.accelerometer])
    XCTAssertEqual(client.availableSensors, [.accelerometer])
    // With every sensor, as in a custom experiment, there is nothing to say.
    XCTAssertTrue(
      PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(Self.config.utf8))).notes
        .isEmpty)
  }

  func testSwitchingBackToAnExperimentThatLacksASensorSaysSoAgain() throws {
    // "Acceleration with g", then a full experiment, then "Acceleration with g" again: the second
    // "no gyroscope" was not sent (notes went out once per polling run), so gyroscope or device
    // motion updates started on the full experiment waited in silence after the switch back.
    let accelerometerOnly = """
      {"inputs":[{"source":"accelerometer","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"}]}]}
      """
    let stub = try NetworkPhyphoxStubServer(config: accelerometerOnly)
    defer { stub.stop() }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 20) { $0.failures.count >= 1 }, "\(collector.all)")
    XCTAssertFalse(client.availableSensors.contains(.gyroscope))
    // A poll of the experiment: its session is the one the client knows before the switch.
    let firstPolls = client.completedPolls
    XCTAssertTrue(networkEventually(timeout: 20) { client.completedPolls >= firstPolls + 2 })
    for (session, config) in [("full", Self.config), ("again", accelerometerOnly)] {
      let configReads = stub.requests.filter { $0 == "/config" }.count
      stub.state.withLock { s in
        s.session = session
        s.buffers = [:]
        s.config = config
      }
      Thread.sleep(forTimeInterval: 0.3)
      XCTAssertTrue(
        networkEventually(timeout: 20) {
          stub.requests.filter { $0 == "/config" }.count > configReads
        }, session)
      // Polls of the new experiment: its session is the one the client knows before the next.
      let polls = client.completedPolls
      XCTAssertTrue(networkEventually(timeout: 20) { client.completedPolls >= polls + 2 })
    }
    XCTAssertTrue(collector.wait(timeout: 20) { $0.failures.count >= 2 }, "\(collector.all)")
    let notices = collector.failures.map(\.message)
    XCTAssertEqual(notices.count, 2, "\(notices)")
    XCTAssertEqual(notices.first, notices.last, "the same note for the same experiment")
    XCTAssertFalse(client.availableSensors.contains(.gyroscope))
    // A poll of the same experiment after a clear rediscovers it and says nothing new.
    let configReads = stub.requests.filter { $0 == "/config" }.count
    stub.state.withLock { $0.session = "cleared" }
    XCTAssertTrue(
      networkEventually(timeout: 20) {
        stub.requests.filter { $0 == "/config" }.count > configReads
      })
    XCTAssertFalse(networkEventually(timeout: 0.5) { collector.failures.count > 2 })
  }

  func testSwitchBetweenConfigAndFirstPollIsNoticed() throws {
    // The phone runs "Acceleration with g" when the client reads /config, and the user switches
    // to a full experiment before the first /get. The client took the first session it polled
    // as the one it had read, so it kept polling the old experiment's buffers and said there was
    // no gyroscope while the phone measured one (`motionctl monitor gyroscope` exited with "…
    // has no gyroscope").
    let accelerometerOnly = """
      {"inputs":[{"source":"accelerometer","outputs":[{"x":"accX"},{"y":"accY"},{"z":"accZ"},{"t":"acc_time"}]}]}
      """
    let stub = try NetworkPhyphoxStubServer(config: accelerometerOnly)
    defer { stub.stop() }
    stub.state.withLock { s in
      s.session = "acceleration"
      s.buffers = Self.accelerometerRows([1.0])
      var full = Self.accelerometerRows([0.5])
      for (name, value) in [("gyr_time", 0.5), ("gyrX", 0.25), ("gyrY", 0), ("gyrZ", -0.5)] {
        full[name] = [value]
      }
      s.switchAfterConfig = ("full", Self.config, full)
    }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 20) { $0.samples.contains { $0.gyroscope != nil } },
      "the full experiment's gyroscope: \(collector.all), requests \(stub.requests)")
    XCTAssertEqual(stub.requests.filter { $0 == "/config" }.count, 2, "\(stub.requests)")
    XCTAssertTrue(client.availableSensors.contains(.gyroscope))
    let gyroscope = try XCTUnwrap(collector.samples.first { $0.gyroscope != nil })
    assertNetworkVectorsClose(gyroscope.gyroscope, SIMD3(0.25, 0, -0.5), tolerance: 0)
    // Nothing is said of the old experiment, which had gone when its /config was used.
    XCTAssertEqual(collector.failures.map(\.message), [])
  }

  func testPollerGivenItsSessionTakesAnotherOnItsFirstAnswerForASwitch() throws {
    // The client gives its poller the session it read /config in, so that a switch between that
    // read and the first /get is seen; without one the first answer's session is taken.
    let answer = try PhoneJSON.parse(
      Array(
        """
        {"buffer":{"acc_time":{"buffer":[1.5]},"accX":{"buffer":[0.1]},"accY":{"buffer":[0.2]},
         "accZ":{"buffer":[9.81]}},"status":{"session":"new"}}
        """.utf8))
    let groups = Array(PhyphoxBufferGroup.standard.prefix(1))
    var given = PhyphoxPoller(groups: groups, session: "old")
    let switched = try given.consume(answer)
    XCTAssertTrue(switched.sessionChanged)
    XCTAssertEqual(switched.samples.count, 0, "the rows may belong to other buffers")
    XCTAssertEqual(given.session, "new")
    var unaware = PhyphoxPoller(groups: groups)
    let first = try unaware.consume(answer)
    XCTAssertFalse(first.sessionChanged)
    XCTAssertEqual(first.samples.map(\.timestamp), [1.5])
    var same = PhyphoxPoller(groups: groups, session: "new")
    XCTAssertFalse(try same.consume(answer).sessionChanged)
  }

  func testSensorsTheExperimentLacksLeaveTheAvailableSensorsBeforeOneNote() throws {
    // The client offers every sensor until /config is read. It took out a missing accelerometer
    // or gyroscope, but kept offering a missing magnetometer or barometer and said nothing, so
    // magnetometer and altitude updates started before /config was read waited in silence.
    func experiment(_ inputs: [(String, String)]) -> String {
      let list = inputs.map { source, outputs in
        "{\"source\":\"\(source)\",\"outputs\":[\(outputs)]}"
      }
      return "{\"inputs\":[\(list.joined(separator: ","))]}"
    }
    let xyz = { (p: String) in
      "{\"x\":\"\(p)X\"},{\"y\":\"\(p)Y\"},{\"z\":\"\(p)Z\"},{\"t\":\"\(p)_time\"}"
    }
    let accelerometer = ("accelerometer", xyz("acc"))
    let gyroscope = ("gyroscope", xyz("gyr"))
    let magnetometer = ("magnetic_field", xyz("mag"))
    let pressure = ("pressure", "{\"x\":\"p\"},{\"t\":\"p_time\"}")
    for (inputs, expected, available): ([(String, String)], String, SensorSet) in [
      ([accelerometer, gyroscope], "has no magnetometer or pressure input", .inertial),
      (
        [accelerometer, gyroscope, magnetometer], "has no pressure input",
        SensorSet.nineAxis
      ),
      ([pressure], "has no accelerometer, gyroscope or magnetometer input", [.barometer]),
      ([magnetometer], "has no accelerometer, gyroscope or pressure input", [.magnetometer]),
      ([gyroscope], "has no accelerometer, magnetometer or pressure input", [.gyroscope]),
    ] {
      let config = experiment(inputs)
      XCTAssertEqual(
        PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(config.utf8))).notes.count, 1,
        "one note naming all it lacks")
      let stub = try NetworkPhyphoxStubServer(config: config)
      defer { stub.stop() }
      let client = makeClient(port: stub.port)
      XCTAssertTrue(client.availableSensors.contains(.accelerometer), "offered before /config")
      let collector = NetworkEventCollector()
      let atNotice = Locked<SensorSet?>(nil)
      let subscription = client.subscribe(requestedSampleRate: 100) { [weak client] event in
        if case .failure = event { atNotice.withLock { $0 = $0 ?? client?.availableSensors } }
        collector.handler(event)
      }
      defer { subscription.cancel() }
      XCTAssertTrue(collector.wait(timeout: 20) { !$0.failures.isEmpty }, "\(collector.all)")
      let notice = try XCTUnwrap(collector.failures.first)
      XCTAssertTrue(notice.message.contains(expected), notice.message)
      XCTAssertFalse(notice.isFatal, "the experiment's other sensors still stream")
      XCTAssertEqual(atNotice.withLock { $0 }, available, notice.message)
      XCTAssertEqual(client.availableSensors, available)
    }
  }

  func testSessionChangeRediscoversBuffers() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([2.0]))
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { $0.samples.count >= 1 })
    stub.state.withLock { s in
      s.session = "other"
      s.buffers = [:]
      s.config = """
        {"inputs":[{"source":"magnetic_field","outputs":[{"x":"magX"},{"y":"magY"},{"z":"magZ"},{"t":"mag_time"}]}]}
        """
    }
    XCTAssertTrue(networkEventually { stub.requests.filter { $0 == "/config" }.count >= 2 })
    stub.append(["mag_time": [0.25], "magX": [20], "magY": [0], "magZ": [-40]])
    XCTAssertTrue(collector.wait { $0.samples.count >= 2 }, "\(collector.all)")
    let last = try XCTUnwrap(collector.samples.last)
    assertNetworkVectorsClose(last.magnetometer, SIMD3(20, 0, -40), tolerance: 0)
    XCTAssertEqual(
      last.timestamp, 2.25, accuracy: 1e-12, "time continues after the old session's last sample")
  }

  func testSessionChangingOnEveryRequestIsReportedAndRediscoveryPaced() throws {
    // Every request in a new session: the session read around /config never matches.
    try assertSessionChurnIsReportedAndPaced { _ in true }
  }

  func testSessionChangingOnEveryPollIsReportedAndRediscoveryPaced() throws {
    // /config is read in one session, and every poll for buffers finds another.
    try assertSessionChurnIsReportedAndPaced { $0.hasPrefix("/get?") }
  }

  /// A phone whose session changes on the requests `newSessionFor` picks is told of once, its
  /// experiment is read again at most about once a second, and samples come when it settles.
  private func assertSessionChurnIsReportedAndPaced(
    newSessionFor: @escaping @Sendable (String) -> Bool, line: UInt = #line
  ) throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([1.0]))
    stub.state.withLock { $0.newSessionFor = newSessionFor }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let isChurnNotice = { (failure: SourceFailure) in
      failure.message.contains("changed its session on every request")
    }
    XCTAssertTrue(
      collector.wait(timeout: 15) { $0.failures.contains(where: isChurnNotice) },
      "\(stub.requests.count) requests, \(collector.all)", line: line)
    // Rediscovery (three requests) at most once a second from now on; at the 0.01 s interval
    // configured it would be a hundred times as often. A loaded machine only makes fewer.
    let before = stub.requests.count
    Thread.sleep(forTimeInterval: 2)
    let made = stub.requests.count - before
    XCTAssertLessThanOrEqual(made, 4 * 3, "\(stub.requests.suffix(made))", line: line)
    XCTAssertTrue(collector.samples.isEmpty, "\(collector.samples)", line: line)
    let notice = try XCTUnwrap(collector.failures.first(where: isChurnNotice), line: line)
    XCTAssertEqual(collector.failures.filter(isChurnNotice).count, 1, "reported once", line: line)
    XCTAssertTrue(notice.message.hasPrefix("phyphox at http://127.0.0.1:"), notice.message)
    XCTAssertFalse(notice.isFatal, "polling goes on", line: line)
    // The phone settles: samples resume.
    stub.state.withLock { $0.newSessionFor = nil }
    stub.append(Self.accelerometerRows([2.0]))
    XCTAssertTrue(
      collector.wait(timeout: 15) { !$0.samples.isEmpty }, "\(collector.all)", line: line)
  }

  func testOldPhyphoxWithoutConfigUsesTheStandardBufferNames() throws {
    let stub = try NetworkPhyphoxStubServer(config: "")
    defer { stub.stop() }
    stub.append(["gyr_time": [], "gyrX": [], "gyrY": [], "gyrZ": []])
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(networkEventually { client.completedPolls >= 2 })
    stub.append(["gyr_time": [0.5, 0.6], "gyrX": [0.1, 0.2], "gyrY": [0, 0], "gyrZ": [0, 0]])
    XCTAssertTrue(collector.wait { $0.samples.count >= 2 }, "\(collector.all)")
    XCTAssertEqual(collector.samples.compactMap(\.gyroscope?.x), [0.1, 0.2])
    let firstPoll = try XCTUnwrap(stub.requests.first { $0.hasPrefix("/get?") })
    XCTAssertTrue(firstPoll.contains("acc_time") && firstPoll.contains("mag_time"), firstPoll)
  }

  /// A poll interval of 0, below 0, NaN or infinite polls every 0.01 s at most: each polled
  /// without a pause, as fast as the phone answered.
  func testAPollIntervalBelowTheFloorOrNotANumberPollsAtMostEvery10Milliseconds() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([1.0]))
    for interval in [0, -1, Double.nan, .infinity] {
      let client = PhyphoxClient(
        configuration: .init(host: "127.0.0.1", port: stub.port, pollInterval: interval))
      let subscription = client.subscribe(requestedSampleRate: 100) { _ in }
      defer { subscription.cancel() }
      XCTAssertTrue(networkEventually(timeout: 15) { client.completedPolls >= 1 }, "\(interval)")
      // A second holds at most 100 pauses of 0.01 s; a loaded machine only makes fewer polls.
      let before = client.completedPolls
      Thread.sleep(forTimeInterval: 1)
      XCTAssertLessThanOrEqual(client.completedPolls - before, 100, "\(interval)")
      subscription.cancel()
    }
  }

  /// A phone whose answers hold none of the buffers polled (a phyphox without `/config` running
  /// an experiment other than the raw sensors, whose buffers have other names) is told of once;
  /// it was polled in silence for ever, with no sample.
  func testAnswersWithoutAnyBufferPolledAreReportedOnce() throws {
    let stub = try NetworkPhyphoxStubServer(config: "")
    defer { stub.stop() }
    stub.append(["pendulum_time": [0.5], "angle": [0.1]])
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    // Not the discovery's note that there is no pressure input (phyphox without /config has
    // none), which comes first.
    let isNotice = { (failure: SourceFailure) in failure.message.contains("none of the buffers") }
    XCTAssertTrue(
      collector.wait(timeout: 15) { $0.failures.contains(where: isNotice) },
      "\(stub.requests.count) requests, \(collector.failures)")
    let requests = stub.requests.count
    XCTAssertTrue(networkEventually(timeout: 15) { stub.requests.count >= requests + 5 })
    let failures = collector.failures.filter(isNotice)
    XCTAssertEqual(failures.count, 1, "reported once: \(failures)")
    let failure = try XCTUnwrap(failures.first)
    XCTAssertTrue(failure.message.contains("acc_time, gyr_time, mag_time"), failure.message)
    XCTAssertFalse(failure.isFatal, "polling goes on")
    // The user opens a raw-sensor experiment: samples come.
    stub.append(Self.accelerometerRows([1.0]))
    XCTAssertTrue(collector.wait(timeout: 15) { !$0.samples.isEmpty }, "\(collector.all)")
  }

  /// An answer larger than the client reads (2 MiB) is reported as what it is, once, and polling
  /// goes on; it was a `.disconnected` quoting NIO's `NIOTooManyBytesError(maxBytes: …)`.
  func testAnOversizedAnswerIsReportedAsSuchOnce() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    stub.append(Self.accelerometerRows([1.0]))
    let padding = String(repeating: " ", count: PhyphoxClient.maximumAnswerSize)
    stub.state.withLock { $0.getAnswerOverride = "{\"buffer\":{}" + padding + "}" }
    let client = makeClient(port: stub.port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 15) { !$0.failures.isEmpty }, "\(stub.requests.count)")
    let requests = stub.requests.count
    XCTAssertTrue(networkEventually(timeout: 15) { stub.requests.count >= requests + 3 })
    let failures = collector.failures
    XCTAssertEqual(failures.count, 1, "reported once: \(failures)")
    let failure = try XCTUnwrap(failures.first)
    XCTAssertEqual(failure.kind, .malformedData, failure.message)
    XCTAssertTrue(failure.message.contains("more than 2 MiB"), failure.message)
    XCTAssertFalse(failure.message.contains("NIO"), failure.message)
    XCTAssertFalse(failure.isFatal)
    stub.state.withLock { $0.getAnswerOverride = nil }
    XCTAssertTrue(collector.wait(timeout: 15) { !$0.samples.isEmpty }, "\(collector.all)")
  }

  func testCancelStopsPolling() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config)
    defer { stub.stop() }
    let client = makeClient(port: stub.port)
    let subscription = client.subscribe(requestedSampleRate: 100) { _ in }
    XCTAssertTrue(networkEventually { client.completedPolls >= 2 })
    subscription.cancel()
    let count = stub.requests.count
    XCTAssertFalse(
      networkEventually(timeout: 0.1) { stub.requests.count > count }, "no requests after cancel")
  }

  func testUnreachablePhoneIsReportedOnce() throws {
    let (probe, port) = try NetworkTestSocket.listen()
    probe.close()
    let client = makeClient(port: port)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertFalse(collector.wait(timeout: 0.1) { $0.failures.count > 1 })
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    // A refusal is told in the system's words ("Connection refused (errno 111)"), not SwiftNIO's
    // "connection reset (error set): Connection refused)"; AsyncHTTPClient may also retry the
    // refused connection until the request's deadline, which is reported as such.
    let message = try XCTUnwrap(collector.failures.first?.message)
    XCTAssertFalse(message.contains("connection reset"), message)
  }

  /// A client for a fake phone that is not the stub: the standard buffers, so no `/config`.
  private func makeClient(port: UInt16, requestTimeout: Double) -> PhyphoxClient {
    PhyphoxClient(
      configuration: .init(
        host: "127.0.0.1", port: port, pollInterval: 0.01, requestTimeout: requestTimeout,
        buffers: PhyphoxBufferGroup.standard, sampleHoldTime: 0.01, maximumSampleDelay: 0.05,
        clock: .phone))
  }

  func testStalledBodyFailsThePollAndPollingGoesOn() throws {
    // Every answer promises 1000 bytes, sends 10 and stalls.
    let phone = try NetworkTestStallingPeer(
      answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        + "{\"buffer\":")
    defer { phone.stop() }
    let client = makeClient(port: phone.port, requestTimeout: 0.3)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 5) {
        $0.failures.contains { $0.message.contains("no complete answer within 0.3 s") }
      }, "\(collector.all)")
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    XCTAssertTrue(networkEventually(timeout: 5) { phone.acceptedCount >= 2 }, "polling goes on")
  }

  /// A phone that accepts the connection and never answers: AsyncHTTPClient's deadline (on the
  /// answer's head) and the client's own (on the whole answer) have the same length, and whichever
  /// passed first named the failure, so it came both as "no complete answer within …" and as the
  /// library's raw `deadlineExceeded`, in turn. It is now said one way.
  func testAPhoneThatNeverAnswersIsReportedOneWay() throws {
    let phone = try NetworkTestStallingPeer()
    defer { phone.stop() }
    let client = makeClient(port: phone.port, requestTimeout: 0.1)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(networkEventually(timeout: 20) { phone.acceptedCount >= 12 }, "polling goes on")
    let messages = Set(collector.failures.map(\.message))
    XCTAssertEqual(messages.count, 1, "\(messages)")
    XCTAssertTrue(
      messages.allSatisfy { $0.contains("no complete answer within 0.1 s") }, "\(messages)")
  }

  func testRedirectsAreNotFollowed() throws {
    let elsewhere = try NetworkTestStallingPeer()
    defer { elsewhere.stop() }
    let phone = try NetworkTestStallingPeer(
      answer: "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:\(elsewhere.port)/get\r\n"
        + "Content-Length: 0\r\nConnection: close\r\n\r\n")
    defer { phone.stop() }
    let client = makeClient(port: phone.port, requestTimeout: 1)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 5) { $0.failures.contains { $0.message.contains("HTTP 302") } },
      "\(collector.all)")
    XCTAssertTrue(networkEventually(timeout: 5) { phone.acceptedCount >= 2 }, "polling goes on")
    XCTAssertEqual(elsewhere.acceptedCount, 0, "the redirect target was never contacted")
  }
}
