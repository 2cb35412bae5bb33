// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// How the IIO backend reads devices and which per-device corrections it applies.
///
/// **Sign convention.** The backend delivers accelerometer values as *specific force* (a device
/// lying face up reads (0, 0, +9.81) m/s² after the mount matrix), which is what the device-tree
/// mount-matrix binding documents and what MEMS chips such as the MPU-6050, LSM6DSx and BMI160
/// report. The kernel ABI does not fix the sign, and HID sensor hubs follow the Windows convention
/// (gravity: face up reads −9.81 on z, upright reads −9.81 on y), so the built-in table flips
/// `accel_3d`. Anything else that reports the other sign is corrected with an override:
///
/// - environment `COREMOTION_IIO_ACCEL_SIGN=-1` (every accelerometer), or a list
///   `COREMOTION_IIO_ACCEL_SIGN=accel_3d:+1,mxc4005:-1` (by device name or label);
/// - a configuration file (`COREMOTION_IIO_CONFIG`, default `/etc/opencoremotion/iio.conf`):
///   ```
///   [mxc4005]            # device name or label; [*] = every device
///   accel_sign = -1
///   mount_matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1        # replaces the kernel's, all kinds
///   accel_mount_matrix = -1, 0, 0; 0, -1, 0; 0, 0, 1 # one kind only (accel, anglvel, magn)
///   ```
///
/// Precedence for the sign: a bare environment value, then an entry for the device's label, then
/// its name (environment before file before built-in), then the file's `[*]` section, then +1.
public struct IIOConfiguration: Sendable, Equatable {
  /// How devices are read.
  public enum Mode: String, Sendable, Equatable {
    /// Buffered when possible, else sysfs polling (with a warning saying why). The default.
    case automatic = "auto"
    /// Buffered only; failing to start the buffer is reported as a failure.
    case buffered
    /// Sysfs polling only (needs no write access).
    case polled
  }

  /// How devices are read (`COREMOTION_IIO_MODE=auto|buffered|polled`). Default `.automatic`.
  public var mode: Mode = .automatic
  /// A sign for every accelerometer, overriding all other sign settings; nil when not set.
  public var accelerometerSign: Double?
  /// Accelerometer signs by device name or label (`"*"`: devices without their own entry).
  public var accelerometerSigns: [String: Double] = [:]
  /// Mount-matrix replacements by device name or label, then by kind (nil kind: every kind).
  public var mountMatrices: [String: [IIOChannelKind?: IIOMountMatrix]] = [:]
  /// Seconds between attempts to find a device again after it disappeared. Default 1 s.
  public var recoveryInterval: Double = 1

  /// Accelerometer signs of drivers known to report gravity instead of specific force: the HID
  /// sensor hub's `accel_3d` (Windows convention; an upright laptop reads y ≈ −9.2 m/s²).
  public static let builtInAccelerometerSigns: [String: Double] = ["accel_3d": -1]

  /// The default configuration: automatic mode, built-in signs only.
  public init() {}

  /// The configuration from the process environment and the configuration file it names (or the
  /// default file, when present).
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> IIOConfiguration {
    var configuration = IIOConfiguration()
    let explicitFile = environment["COREMOTION_IIO_CONFIG"]
    let file = explicitFile ?? "/etc/opencoremotion/iio.conf"
    if let text = try readFile(file, isExplicit: explicitFile != nil) {
      try configuration.apply(fileContents: text, origin: file)
    }
    if let mode = environment["COREMOTION_IIO_MODE"] {
      guard let parsed = Mode(rawValue: mode.lowercased()) else {
        throw IIOError.invalidConfiguration(
          "COREMOTION_IIO_MODE=\(mode) (expected auto, buffered or polled)")
      }
      configuration.mode = parsed
    }
    if let signs = environment["COREMOTION_IIO_ACCEL_SIGN"] {
      try configuration.apply(signList: signs)
    }
    return configuration
  }

  /// The largest configuration file read, in bytes (a real one is a few lines).
  public static let maximumFileSize = 64 * 1024

  /// The text of the configuration file at `path`: a regular file (a FIFO or a device is refused
  /// at once, saying what it is) of at most ``maximumFileSize`` bytes of UTF-8 (it used to be read
  /// whole, whatever its size).
  ///
  /// - Returns: nil when the default file is missing, or is there but unusable (it is optional, as
  ///   it always was; the reason is logged).
  /// - Throws: ``IIOError/invalidConfiguration(_:)`` saying why the file named by
  ///   `COREMOTION_IIO_CONFIG` (`isExplicit`) cannot be used.
  private static func readFile(_ path: String, isExplicit: Bool) throws -> String? {
    let problem: String
    do {
      let data = try RegularFile.readPrefix(
        path, count: maximumFileSize + 1, purpose: "IIO configuration files")
      if data.count > maximumFileSize {
        problem =
          "is larger than \(maximumFileSize >> 10) KiB, more than a configuration file may be"
      } else if let text = String(data: data, encoding: .utf8) {
        return text
      } else {
        problem = "is not UTF-8 text"
      }
    } catch let error as RecordingError {
      if !isExplicit, error.kind == .fileNotFound { return nil }
      problem = error.message
    }
    guard isExplicit else {
      IIOSensorSource.logger.warning("iio: ignoring the configuration file \(path): \(problem)")
      return nil
    }
    throw IIOError.invalidConfiguration("COREMOTION_IIO_CONFIG=\(path): \(problem)")
  }

  /// Applies `COREMOTION_IIO_ACCEL_SIGN`: `-1`, `+1`, or `name:sign,name:sign`.
  public mutating func apply(signList text: String) throws {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let sign = Self.parseSign(trimmed) {
      accelerometerSign = sign
      return
    }
    for entry in trimmed.split(separator: ",") {
      let parts = entry.split(separator: ":", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard parts.count == 2, !parts[0].isEmpty, let sign = Self.parseSign(parts[1]) else {
        throw IIOError.invalidConfiguration(
          "COREMOTION_IIO_ACCEL_SIGN entry \"\(entry)\" (expected name:+1 or name:-1)")
      }
      accelerometerSigns[parts[0]] = sign
    }
  }

  /// Applies a configuration file's text (INI-like sections per device name or label).
  public mutating func apply(fileContents text: String, origin: String = "configuration") throws {
    var section: String?
    var fileSigns: [String: Double] = [:]
    for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let line =
        rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        .first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
      if line.isEmpty { continue }
      let place = "\(origin):\(number + 1)"
      if line.hasPrefix("[") && line.hasSuffix("]") {
        section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        continue
      }
      let parts = line.split(separator: "=", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard parts.count == 2, let device = section else {
        throw IIOError.invalidConfiguration("\(place): expected `key = value` inside a [device]")
      }
      switch parts[0] {
      case "accel_sign":
        guard let sign = Self.parseSign(parts[1]) else {
          throw IIOError.invalidConfiguration("\(place): accel_sign must be +1 or -1")
        }
        fileSigns[device] = sign
      case "mode":
        guard device == "*", let mode = Mode(rawValue: parts[1]) else {
          throw IIOError.invalidConfiguration(
            "\(place): mode belongs in [*] as auto|buffered|polled")
        }
        self.mode = mode
      default:
        guard parts[0].hasSuffix("mount_matrix") else {
          throw IIOError.invalidConfiguration("\(place): unknown key \(parts[0])")
        }
        let prefix = parts[0].dropLast("mount_matrix".count)
        let kind: IIOChannelKind?
        switch prefix {
        case "": kind = nil
        case "accel_": kind = .accelerometer
        case "anglvel_": kind = .gyroscope
        case "magn_": kind = .magnetometer
        default: throw IIOError.invalidConfiguration("\(place): unknown key \(parts[0])")
        }
        guard let matrix = IIOMountMatrix(parsing: parts[1]) else {
          throw IIOError.invalidConfiguration("\(place): unusable matrix \"\(parts[1])\"")
        }
        mountMatrices[device, default: [:]][kind] = matrix
      }
    }
    // File entries rank below environment entries already present.
    accelerometerSigns.merge(fileSigns) { environment, _ in environment }
  }

  /// The sign applied to `device`'s accelerometer (see the type's precedence rules).
  public func accelerometerSign(for device: IIODeviceInfo) -> Double {
    if let accelerometerSign { return accelerometerSign }
    for key in [device.label, device.name].compactMap({ $0 }) {
      if let sign = accelerometerSigns[key] ?? Self.builtInAccelerometerSigns[key] { return sign }
    }
    return accelerometerSigns["*"] ?? 1
  }

  /// The mount matrix used for `kind` on `device`: a configured replacement, else the kernel's.
  public func mountMatrix(for kind: IIOChannelKind, on device: IIODeviceInfo) -> IIOMountMatrix {
    for key in [device.label, device.name, "*"].compactMap({ $0 }) {
      if let entries = mountMatrices[key], let matrix = entries[kind] ?? entries[nil] {
        return matrix
      }
    }
    return device.mountMatrix(for: kind)
  }

  private static func parseSign(_ text: String) -> Double? {
    switch text {
    case "1", "+1": return 1
    case "-1": return -1
    default: return nil
    }
  }
}
