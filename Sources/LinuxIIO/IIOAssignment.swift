// SPDX-License-Identifier: Apache-2.0

/// Which channel kinds the source reads from one device.
///
/// One chip may be one IIO device (mpu6050: accelerometer, gyroscope and temperature) or several
/// (HID hubs' `accel_3d`, `gyro_3d`, `magn_3d`; st_lsm6dsx's `<chip>_accel` and `<chip>_gyro`);
/// each kind is read from exactly one device.
public struct IIOAssignment: Hashable, Sendable {
  /// The device.
  public var device: IIODeviceInfo
  /// The kinds read from it, in the fixed order accelerometer, gyroscope, magnetometer, pressure,
  /// temperature.
  public var kinds: [IIOChannelKind]

  public init(device: IIODeviceInfo, kinds: [IIOChannelKind]) {
    self.device = device
    self.kinds = kinds
  }

  /// Distributes the kinds over `devices`: a device already in use wins (one reader per chip),
  /// then devices offering more kinds (an IMU over a lone accelerometer), then discovery order.
  /// Devices labelled `accel-base` (the keyboard half of a 2-in-1) are used only when nothing
  /// else has the kind. Temperature is taken only from a device already read for motion, so a
  /// lone SoC thermometer does not make a motion source.
  public static func assign(_ devices: [IIODeviceInfo]) -> [IIOAssignment] {
    var result: [IIOAssignment] = []
    for kind in IIOChannelKind.motionKinds {
      if let index = result.firstIndex(where: { !$0.device.channels(of: kind).isEmpty }) {
        result[index].kinds.append(kind)
        continue
      }
      guard kind != .temperature else { continue }
      let providers = devices.enumerated().filter { !$0.element.channels(of: kind).isEmpty }
      let best = providers.min { a, b in
        let keyA = (a.element.label == "accel-base" ? 1 : 0, -a.element.kinds.count, a.offset)
        let keyB = (b.element.label == "accel-base" ? 1 : 0, -b.element.kinds.count, b.offset)
        return keyA < keyB
      }
      if let best { result.append(IIOAssignment(device: best.element, kinds: [kind])) }
    }
    return result
  }
}
