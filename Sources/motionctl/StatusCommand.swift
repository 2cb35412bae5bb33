// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionDaemonClient
import MotionSensors

/// `motionctl status`: the motion daemon's source, rates, clients and history.
struct StatusCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show the motion daemon's source, sensors, clients and history.")

  @Option(
    help:
      "The daemon's socket (default: $MOTIOND_SOCKET, else $XDG_RUNTIME_DIR/opencoremotion/motiond.sock)."
  )
  var socket: String?

  func run() throws {
    let status = try DaemonRequest.run(socket: socket) { try await $0.status() }
    for line in Self.lines(status) { print(line) }
  }

  static func lines(_ status: DaemonStatus) -> [String] {
    func date(_ value: Date?) -> String {
      value.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
    }
    var lines = [
      "source:      \(status.sourceName)",
      "sensors:     \(status.availableSensors.isEmpty ? "none" : status.availableSensors.names.joined(separator: ", "))",
      "source rate: "
        + (status.sourceSubscribed ? "\(format(status.sourceRate)) Hz" : "off (nobody needs it)"),
      "sensors on:  " + sensorsOn(status),
      "samples:     \(status.samplesReceived) received",
      "clients:     \(status.clients.count)",
    ]
    for client in status.clients {
      let streams = client.subscriptions.map { s -> String in
        var parts: [String] = []
        if !s.sensors.isEmpty {
          parts.append(s.sensors.names.joined(separator: "+") + " @ \(format(s.rate)) Hz")
        }
        if s.fusedMotion { parts.append("fused motion @ \(format(s.rate)) Hz") }
        if let frame = s.deviceMotionFrame {
          parts.append("device motion (\(frame)) @ \(format(s.rate)) Hz")
        }
        if s.pedometer { parts.append("pedometer") }
        if s.activity { parts.append("activity") }
        if s.altitude { parts.append("altitude") }
        return parts.isEmpty ? "(nothing)" : parts.joined(separator: ", ")
      }
      lines.append(
        "  - \(client.name) pid \(client.processID): "
          + (streams.isEmpty ? "no streams" : streams.joined(separator: "; "))
          + "; dropped \(client.dropped), queued \(client.queued)")
    }
    lines.append(
      "history:     \(status.historyState)"
        + (status.historyAuthorized ? "" : " (motionctl privacy allow)"))
    if !status.storePath.isEmpty {
      lines.append("store:       \(status.storePath), \(status.historyBytes) bytes")
      lines.append("extent:      \(date(status.historyOldest)) … \(date(status.historyNewest))")
    }
    if let until = status.recordingUntil, until > Date() {
      lines.append("recording:   accelerometer at 50 Hz until \(date(until))")
    }
    return lines
  }

  /// The sensors the source delivers, and those switched off because nobody needs them.
  private static func sensorsOn(_ status: DaemonStatus) -> String {
    let on: String =
      status.sourceSensors.isEmpty ? "none" : status.sourceSensors.names.joined(separator: ", ")
    let off: SensorSet = status.availableSensors.subtracting(status.sourceSensors)
    return off.isEmpty ? on : on + " (off: " + off.names.joined(separator: ", ") + ")"
  }

  /// A rate the daemon reported, to two decimals, and without them when they are zero: "50",
  /// "12.50". Whether it is whole is read from the rounded text, so that 29.999 is "30", not
  /// "30.00", and a small negative rate that rounds to zero is "0", not "-0.00". The daemon is
  /// another process (its source may be a recording with any header), so a value that is not
  /// finite or too large for two decimals to mean anything is written as it is instead of trapping.
  static func format(_ value: Double) -> String {
    guard value.isFinite, Swift.abs(value) < 1e15 else { return "\(value)" }
    let text = String(format: "%.2f", value)
    guard text.hasSuffix(".00") else { return text }
    let whole = text.dropLast(3)
    return whole == "-0" ? "0" : String(whole)
  }
}
