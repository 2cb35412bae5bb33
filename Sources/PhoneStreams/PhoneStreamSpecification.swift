// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import PhoneStreamDecoding

/// A phone-stream source chosen by a `COREMOTION_SOURCE` value such as `sensorlogger:8000`.
///
/// Forms (scheme case-insensitive; `[…]` optional; see docs/PhoneStreaming.md):
/// - `sensorlogger[:[<bind address>:]<port>][?platform=auto|ios|android|standardised][&token=<secret>]`,
///   also `sensorlogger://<bind address>:<port>` — listen for Sensor Logger's HTTP push (default
///   `127.0.0.1:8000`: a phone on the LAN needs the machine's LAN address or `0.0.0.0`, given
///   explicitly; `token` makes the receiver accept only `http://<address>:<port>/<secret>`).
/// - `sensorserver:[ws://]<host>[:<port>][?types=accelerometer,gyroscope,…]`, also
///   `sensorserver://<host>:<port>` — connect to the SensorServer app (default port 8080).
/// - `phyphox:[http://]<host>[:<port>][?interval=<seconds>]`, also `phyphox://<host>:<port>` —
///   poll phyphox's remote access (default port 8080, interval 0.1 s).
///
/// Each also takes `clock=boot|phone` (`PhoneStreamClock`; default `boot`). IPv6 addresses go in
/// brackets (`sensorserver:ws://[fe80::1]:8080`).
public enum PhoneStreamSpecification: Sendable, Equatable, CustomStringConvertible {
  /// Listen for the Sensor Logger app's HTTP push.
  case sensorLogger(SensorLoggerReceiver.Configuration)
  /// Connect to the SensorServer app's WebSocket.
  case sensorServer(SensorServerClient.Configuration)
  /// Poll the phyphox app's remote-access interface.
  case phyphox(PhyphoxClient.Configuration)

  /// A `COREMOTION_SOURCE` value that is not a valid phone-stream form; the message says why and
  /// shows the accepted forms.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text that was parsed.
    public var text: String
    /// What is wrong with it.
    public var reason: String

    public var description: String {
      "COREMOTION_SOURCE=\(text): \(reason). Expected "
        + "sensorlogger[:[<address>:]<port>][?platform=ios|android][&token=<secret>], "
        + "sensorserver:ws://<phone>[:<port>][?types=accelerometer,gyroscope,...] or "
        + "phyphox:http://<phone>[:<port>][?interval=<seconds>] (each also takes &clock=boot|phone)"
    }
  }

  /// The schemes this type parses.
  public static let schemes = ["sensorlogger", "sensorserver", "phyphox"]

  /// Whether `text` names a phone stream (its scheme is one of ``schemes``), so that a caller can
  /// dispatch before parsing; a malformed value with such a scheme still fails in ``init(parsing:)``.
  public static func isPhoneStream(_ text: String) -> Bool {
    let scheme = text.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" && $0 != "?" }
      .lowercased()
    return schemes.contains(scheme)
  }

  /// Parses a `COREMOTION_SOURCE` value.
  ///
  /// - Throws: ``ParseError`` naming what is wrong (unknown scheme, bad port, missing host, an
  ///   unknown option or value, TLS URLs, which the apps do not serve).
  public init(parsing text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let fail = { (reason: String) in ParseError(text: trimmed, reason: reason) }
    let parts = try Parts(trimmed, fail: fail)
    switch parts.scheme {
    case "sensorlogger": self = .sensorLogger(try Self.sensorLogger(parts, fail: fail))
    case "sensorserver": self = .sensorServer(try Self.sensorServer(parts, fail: fail))
    case "phyphox": self = .phyphox(try Self.phyphox(parts, fail: fail))
    default: throw fail("unknown phone stream \"\(parts.scheme)\"")
    }
  }

  /// A value split into its scheme, optional URL scheme, `host[:port]` and options.
  private struct Parts {
    var scheme: String
    var urlScheme: String?
    var address: String
    var options: [String: String]

    init(_ text: String, fail: (String) -> ParseError) throws {
      scheme = String(text.prefix { $0 != ":" && $0 != "?" }).lowercased()
      var rest = String(text.dropFirst(scheme.count))
      if rest.hasPrefix(":") { rest.removeFirst() }
      guard PhoneStreamSpecification.schemes.contains(scheme) else {
        throw fail("unknown phone stream \"\(scheme)\"")
      }
      options = [:]
      if let mark = rest.firstIndex(of: "?") {
        for pair in rest[rest.index(after: mark)...].split(separator: "&") where !pair.isEmpty {
          let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
          let key = String(parts[0]).lowercased()
          guard parts.count == 2, !parts[1].isEmpty else {
            throw fail("option \"\(key)\" needs a value")
          }
          options[key] = String(parts[1]).removingPercentEncoding ?? String(parts[1])
        }
        rest = String(rest[..<mark])
      }
      if let range = rest.range(of: "://") {
        urlScheme = rest[..<range.lowerBound].lowercased()
        rest = String(rest[range.upperBound...])
      } else {
        urlScheme = nil
        if rest.hasPrefix("//") { rest.removeFirst(2) }
      }
      if rest.hasSuffix("/") { rest.removeLast() }
      guard !rest.contains("/") else {
        throw fail("a path is not allowed here; give only host and port")
      }
      address = rest
    }

    func checkOptions(_ allowed: Set<String>, fail: (String) -> ParseError) throws {
      if let unknown = options.keys.sorted().first(where: { !allowed.contains($0) }) {
        throw fail(
          "unknown option \"\(unknown)\" (allowed: \(allowed.sorted().joined(separator: ", ")))")
      }
    }

    func clock(fail: (String) -> ParseError) throws -> PhoneStreamClock {
      guard let value = options["clock"] else { return .receiverBoot }
      guard let clock = PhoneStreamClock(rawValue: value.lowercased()) else {
        throw fail("clock must be boot or phone, not \"\(value)\"")
      }
      return clock
    }
  }

  private static func sensorLogger(
    _ parts: Parts, fail: (String) -> ParseError
  ) throws
    -> SensorLoggerReceiver.Configuration
  {
    if let urlScheme = parts.urlScheme, urlScheme != "http" {
      throw fail("Sensor Logger pushes plain HTTP; use http:// or no scheme")
    }
    try parts.checkOptions(["platform", "clock", "token"], fail: fail)
    var configuration = SensorLoggerReceiver.Configuration()
    let rest = parts.address
    if !rest.isEmpty {
      if rest.allSatisfy(\.isNumber) {
        guard let port = UInt16(rest) else {
          throw fail("port \"\(rest)\" is not a number from 0 to 65535")
        }
        configuration.port = port
      } else {
        let (host, port) = try hostAndPort(rest, fail: fail)
        configuration.bindAddress = host
        if let port { configuration.port = port }
      }
    }
    if let value = parts.options["platform"] {
      switch value.lowercased() {
      case "auto", "automatic": configuration.platform = .automatic
      case "ios", "iphone": configuration.platform = .iOS
      case "android", "standardised", "standardized": configuration.platform = .android
      default: throw fail("platform must be auto, ios, android or standardised, not \"\(value)\"")
      }
    }
    if let token = parts.options["token"] {
      guard token.utf8.count <= 256,
        token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
      else {
        throw fail("token must be up to 256 letters, digits, -, ., _ or ~")
      }
      configuration.token = token
    }
    configuration.clock = try parts.clock(fail: fail)
    return configuration
  }

  private static func sensorServer(
    _ parts: Parts, fail: (String) -> ParseError
  ) throws
    -> SensorServerClient.Configuration
  {
    if let urlScheme = parts.urlScheme, urlScheme != "ws" {
      throw fail(
        urlScheme == "wss" ? "SensorServer serves plain ws://, not wss://" : "use a ws:// URL")
    }
    try parts.checkOptions(["types", "clock"], fail: fail)
    guard !parts.address.isEmpty else { throw fail("the phone's address is missing") }
    let (host, port) = try hostAndPort(parts.address, fail: fail)
    var configuration = SensorServerClient.Configuration(host: host, port: port ?? 8080)
    if let value = parts.options["types"] {
      let types = value.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        .split(separator: ",").map {
          $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
        .filter { !$0.isEmpty }
      guard !types.isEmpty else { throw fail("types needs at least one sensor type") }
      configuration = SensorServerClient.Configuration(
        host: host, port: port ?? 8080, types: types)
      if configuration.types.allSatisfy({ SensorServerReading.valueCount(for: $0) == nil }) {
        throw fail(
          "none of the types is a motion sensor (accelerometer, gyroscope, magnetic_field, pressure)"
        )
      }
    }
    configuration.clock = try parts.clock(fail: fail)
    return configuration
  }

  private static func phyphox(
    _ parts: Parts, fail: (String) -> ParseError
  ) throws
    -> PhyphoxClient.Configuration
  {
    if let urlScheme = parts.urlScheme, urlScheme != "http" {
      throw fail(
        urlScheme == "https" ? "phyphox serves plain http://, not https://" : "use an http:// URL")
    }
    try parts.checkOptions(["interval", "clock"], fail: fail)
    guard !parts.address.isEmpty else { throw fail("the phone's address is missing") }
    let (host, port) = try hostAndPort(parts.address, fail: fail)
    var configuration = PhyphoxClient.Configuration(host: host, port: port ?? 8080)
    if let value = parts.options["interval"] {
      guard let interval = Double(value), interval >= 0.01, interval <= 10 else {
        throw fail("interval must be a number of seconds between 0.01 and 10, not \"\(value)\"")
      }
      configuration.pollInterval = interval
    }
    configuration.clock = try parts.clock(fail: fail)
    return configuration
  }

  /// Splits `host[:port]` (IPv6 in brackets).
  private static func hostAndPort(
    _ text: String, fail: (String) -> ParseError
  ) throws -> (host: String, port: UInt16?) {
    var host: Substring
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else {
        throw fail("unclosed \"[\" in the address")
      }
      host = text[text.index(after: text.startIndex)..<close]
      let after = text[text.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw fail("unexpected \"\(after)\" after the address") }
        portText = after.dropFirst()
      }
    } else {
      let parts = text.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else {
        throw fail("put an IPv6 address in brackets, e.g. [fe80::1]:8080")
      }
      host = parts[0]
      portText = parts.count == 2 ? parts[1] : nil
    }
    guard !host.isEmpty else { throw fail("the address is empty") }
    guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:%".contains($0) }) else {
      throw fail("\"\(host)\" is not a host name or address")
    }
    guard let portText else { return (String(host), nil) }
    guard let port = UInt16(portText) else {
      throw fail("port \"\(portText)\" is not a number from 0 to 65535")
    }
    return (String(host), port)
  }

  /// Creates the source; it connects or listens when first subscribed to.
  public func makeSource() -> any SensorSource {
    switch self {
    case .sensorLogger(let configuration): return SensorLoggerReceiver(configuration: configuration)
    case .sensorServer(let configuration): return SensorServerClient(configuration: configuration)
    case .phyphox(let configuration): return PhyphoxClient(configuration: configuration)
    }
  }

  /// The canonical `COREMOTION_SOURCE` form.
  public var description: String { text(showingSecrets: true) }

  /// The canonical form with Sensor Logger's push token hidden (`token=hidden`), for what others
  /// may see: the dashboard's pages and its Foxglove server name, logs, error messages. The token
  /// is the only guard on a receiver listening on the network; whoever reads it can post
  /// readings, and viewing a dashboard (or a screenshot of one) must not grant that.
  public var displayDescription: String { text(showingSecrets: false) }

  private func text(showingSecrets: Bool) -> String {
    func address(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
    func query(_ options: [(String, String?)]) -> String {
      let present = options.compactMap { key, value in value.map { "\(key)=\($0)" } }
      return present.isEmpty ? "" : "?" + present.joined(separator: "&")
    }
    switch self {
    case .sensorLogger(let c):
      return "sensorlogger://\(address(c.bindAddress)):\(c.port)"
        + query([
          ("platform", c.platform == .automatic ? nil : c.platform.rawValue),
          ("clock", c.clock == .receiverBoot ? nil : c.clock.rawValue),
          ("token", showingSecrets ? c.token : c.token.map { _ in "hidden" }),
        ])
    case .sensorServer(let c):
      let types = c.types.map { $0.replacingOccurrences(of: "android.sensor.", with: "") }
      return "sensorserver:ws://\(address(c.host)):\(c.port)"
        + query([
          (
            "types",
            c.types == SensorServerClient.Configuration.defaultTypes
              ? nil : types.joined(separator: ",")
          ),
          ("clock", c.clock == .receiverBoot ? nil : c.clock.rawValue),
        ])
    case .phyphox(let c):
      return "phyphox:http://\(address(c.host)):\(c.port)"
        + query([
          ("interval", c.pollInterval == 0.1 ? nil : "\(c.pollInterval)"),
          ("clock", c.clock == .receiverBoot ? nil : c.clock.rawValue),
        ])
    }
  }
}
