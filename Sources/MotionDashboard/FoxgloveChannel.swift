// SPDX-License-Identifier: Apache-2.0

/// The channels the dashboard advertises to Foxglove clients (`foxglove.websocket.v1`), one per
/// stream of a ``DashboardBatch``. Every channel is JSON-encoded with a JSON Schema; the device's
/// attitude is also published as Foxglove's own `foxglove.FrameTransform`, so its 3D panel shows
/// the device turning without any set-up.
package enum FoxgloveChannel: UInt32, CaseIterable, Sendable {
  case deviceMotion = 1
  case attitude = 2
  case accelerometer = 3
  case gyroscope = 4
  case magnetometer = 5
  case pressure = 6
  case events = 7

  package var topic: String {
    switch self {
    case .deviceMotion: return "/device_motion"
    case .attitude: return "/tf"
    case .accelerometer: return "/accelerometer"
    case .gyroscope: return "/gyroscope"
    case .magnetometer: return "/magnetometer"
    case .pressure: return "/pressure"
    case .events: return "/events"
    }
  }

  package var schemaName: String {
    switch self {
    case .deviceMotion: return "opencoremotion.DeviceMotion"
    case .attitude: return "foxglove.FrameTransform"
    case .accelerometer, .gyroscope, .magnetometer: return "opencoremotion.Vector3Sample"
    case .pressure: return "opencoremotion.PressureSample"
    case .events: return "opencoremotion.Event"
    }
  }

  /// The message's JSON Schema (draft 2020-12), as the `schema` string of an advertisement.
  package var schema: String {
    let vector =
      #"{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}"#
    let time = #""timestamp":{"type":"number","description":"source clock, s"}"#
    switch self {
    case .deviceMotion:
      return #"{"type":"object","properties":{"#
        + time
        + #","attitude":{"type":"object","description":"reference from device, unit quaternion","properties":{"w":{"type":"number"},"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}"#
        + #","gravity":"# + vector + #","userAcceleration":"# + vector + #","rotationRate":"#
        + vector + #","magneticField":"# + vector
        + #","magneticFieldAccuracy":{"type":"integer"},"heading":{"type":"number"}}}"#
    case .attitude:
      return
        #"{"type":"object","properties":{"timestamp":{"type":"object","properties":{"sec":{"type":"integer"},"nsec":{"type":"integer"}}},"parent_frame_id":{"type":"string"},"child_frame_id":{"type":"string"},"translation":"#
        + vector
        + #","rotation":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"},"w":{"type":"number"}}}}}"#
    case .accelerometer, .gyroscope, .magnetometer:
      return #"{"type":"object","properties":{"# + time
        + #","x":{"type":"number"},"y":{"type":"number"},"z":{"type":"number"}}}"#
    case .pressure:
      return #"{"type":"object","properties":{"# + time
        + #","pressure":{"type":"number","description":"kPa"},"relativeAltitude":{"type":"number","description":"m"}}}"#
    case .events:
      return #"{"type":"object","properties":{"# + time
        + #","kind":{"type":"string"},"detail":{"type":"string"}}}"#
    }
  }
}
