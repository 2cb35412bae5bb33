// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import SwiftProtobuf

// Short names for the generated protocol types (Protocol/motiond.proto).
package typealias WireClientMessage = Opencoremotion_Daemon_V1_ClientMessage
package typealias WireServerMessage = Opencoremotion_Daemon_V1_ServerMessage
package typealias WireSample = Opencoremotion_Daemon_V1_Sample
package typealias WireVector = Opencoremotion_Daemon_V1_Vector3
package typealias WireError = Opencoremotion_Daemon_V1_ErrorReply
package typealias WireStatus = Opencoremotion_Daemon_V1_DaemonStatus
package typealias WireActivitySegment = Opencoremotion_Daemon_V1_ActivitySegment

/// Conversions between ``MotionSample``/``SensorSet`` and their wire forms.
package enum Wire {
  /// The protocol version this code speaks.
  package static let protocolVersion: UInt32 = 1

  /// `SensorSet` bits are the protocol's `Sensor` bits (accelerometer 1, gyroscope 2,
  /// magnetometer 4, barometer 8, thermometer 16).
  package static func sensorBits(_ set: SensorSet) -> UInt32 { UInt32(set.rawValue) }

  package static func sensorSet(_ bits: UInt32) -> SensorSet {
    SensorSet(rawValue: UInt8(truncatingIfNeeded: bits & 0x1f))
  }

  package static func vector(_ value: SIMD3<Double>) -> WireVector {
    var vector = WireVector()
    vector.x = value.x
    vector.y = value.y
    vector.z = value.z
    return vector
  }

  package static func simd(_ vector: WireVector) -> SIMD3<Double> {
    SIMD3(vector.x, vector.y, vector.z)
  }

  /// The wire sample holding the readings of `sample` that `sensors` asks for.
  package static func sample(
    _ sample: MotionSample, sensors: SensorSet, receivedBootNanoseconds: UInt64
  ) -> WireSample {
    var wire = WireSample()
    wire.timestamp = sample.timestamp
    if sensors.contains(.accelerometer), let value = sample.accelerometer {
      wire.accelerometer = vector(value)
    }
    if sensors.contains(.gyroscope), let value = sample.gyroscope { wire.gyroscope = vector(value) }
    if sensors.contains(.magnetometer), let value = sample.magnetometer {
      wire.magnetometer = vector(value)
    }
    if sensors.contains(.barometer), let value = sample.pressure { wire.pressure = value }
    if sensors.contains(.thermometer), let value = sample.temperature { wire.temperature = value }
    wire.receivedBootNs = receivedBootNanoseconds
    return wire
  }

  /// The ``MotionSample`` a wire sample carries (no ground truth crosses the socket).
  package static func motionSample(_ wire: WireSample) -> MotionSample {
    MotionSample(
      timestamp: wire.timestamp,
      accelerometer: wire.hasAccelerometer ? simd(wire.accelerometer) : nil,
      gyroscope: wire.hasGyroscope ? simd(wire.gyroscope) : nil,
      magnetometer: wire.hasMagnetometer ? simd(wire.magnetometer) : nil,
      pressure: wire.hasPressure ? wire.pressure : nil,
      temperature: wire.hasTemperature ? wire.temperature : nil)
  }

  /// A length-delimited frame holding `message`.
  package static func frame(_ message: some SwiftProtobuf.Message) -> [UInt8] {
    // Serialising a message without required fields cannot fail; an empty frame would be a
    // harmless empty message for the peer.
    let payload: [UInt8] = (try? message.serializedBytes()) ?? []
    var output: [UInt8] = []
    output.reserveCapacity(payload.count + 5)
    FrameDecoder.appendFrame(payload, to: &output)
    return output
  }

  /// An error reply.
  package static func error(
    _ code: WireError.Code, _ message: String, requestID: UInt64
  ) -> WireServerMessage {
    var reply = WireServerMessage()
    reply.requestID = requestID
    var error = WireError()
    error.code = code
    error.message = message
    reply.error = error
    return reply
  }
}
