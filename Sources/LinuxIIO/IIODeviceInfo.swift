// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// What the backend found about one IIO device (`iio:deviceN`): identity, motion channels, rates,
/// conversions and mount matrices. `motionctl sensors` lists these.
public struct IIODeviceInfo: Hashable, Sendable, CustomStringConvertible {
  /// The driver's `name`, e.g. `mpu6050`, `accel_3d`, `lsm9ds1_accel`, `bmp280`.
  public var name: String
  /// The optional `label` (e.g. `accel-display`, `accel-base` on 2-in-1s).
  public var label: String?
  /// The sysfs directory name, e.g. `iio:device0`. Informational only: indices change across boots,
  /// so the backend identifies devices by ``name`` and ``label``.
  public var directoryName: String
  /// The sysfs directory.
  public var sysfsPath: String
  /// The buffer character device, e.g. `/dev/iio:device0`.
  public var devicePath: String
  /// Motion channels (accelerometer, gyroscope, magnetometer, pressure, temperature) and, when the
  /// device has a buffer, the timestamp channel.
  public var channels: [IIOChannelInfo]
  /// The device's sampling-frequency attributes.
  public var samplingControls: [IIOSamplingControl]
  /// Mount matrices per vector kind; identity when the device provides none.
  public var mountMatrices: [IIOChannelKind: IIOMountMatrix]
  /// The directory with `*_en`, `*_index`, `*_type` (`scan_elements`, or `buffer0` on kernels that
  /// only have the new layout); nil when the device has no buffer.
  public var scanElementsDirectory: String?
  /// The directory with `enable`, `length`, `watermark` (`buffer` or `buffer0`).
  public var bufferDirectory: String?
  /// The clock of buffer timestamps (`current_timestamp_clock`), when the device has one.
  public var timestampClock: String?
  /// The trigger currently attached (`trigger/current_trigger`), when any.
  public var currentTrigger: String?
  /// Problems found while reading the device (unparsable or unreadable attributes, each once), for
  /// listings and logs: a source reading the device gives each as one of its warnings.
  public var notes: [String]

  public init(
    name: String, label: String? = nil, directoryName: String, sysfsPath: String,
    devicePath: String, channels: [IIOChannelInfo] = [],
    samplingControls: [IIOSamplingControl] = [],
    mountMatrices: [IIOChannelKind: IIOMountMatrix] = [:], scanElementsDirectory: String? = nil,
    bufferDirectory: String? = nil, timestampClock: String? = nil, currentTrigger: String? = nil,
    notes: [String] = []
  ) {
    self.name = name
    self.label = label
    self.directoryName = directoryName
    self.sysfsPath = sysfsPath
    self.devicePath = devicePath
    self.channels = channels
    self.samplingControls = samplingControls
    self.mountMatrices = mountMatrices
    self.scanElementsDirectory = scanElementsDirectory
    self.bufferDirectory = bufferDirectory
    self.timestampClock = timestampClock
    self.currentTrigger = currentTrigger
    self.notes = notes
  }

  /// The IIO index parsed from ``directoryName`` (not stable across boots).
  public var index: Int? {
    guard directoryName.hasPrefix("iio:device") else { return nil }
    return Int(directoryName.dropFirst("iio:device".count))
  }

  /// The sensors this device has channels for.
  public var sensors: SensorSet {
    var set: SensorSet = []
    for channel in channels { set.formUnion(channel.kind.sensor) }
    return set
  }

  /// The motion kinds present, in a fixed order.
  public var kinds: [IIOChannelKind] {
    IIOChannelKind.motionKinds.filter { kind in channels.contains { $0.kind == kind } }
  }

  /// The channels of `kind`: vector kinds in x, y, z order (only complete triples count), scalar
  /// kinds the lowest-numbered one.
  public func channels(of kind: IIOChannelKind) -> [IIOChannelInfo] {
    let matching = channels.filter { $0.kind == kind }
    if kind.isVector {
      let axes = (0..<3).compactMap { axis in matching.first { $0.axis == axis } }
      return axes.count == 3 ? axes : []
    }
    return matching.first.map { [$0] } ?? []
  }

  /// The timestamp channel, when the device has a buffer with one.
  public var timestampChannel: IIOChannelInfo? {
    channels.first { $0.kind == .timestamp && $0.isBufferable }
  }

  /// Whether the device has a buffer that can stream every motion channel.
  public var supportsBuffer: Bool {
    scanElementsDirectory != nil && bufferDirectory != nil
      && channels.filter { $0.kind != .timestamp }.allSatisfy(\.isBufferable)
  }

  /// The sampling control governing `kind` (a per-type one wins over the device-wide one).
  public func samplingControl(for kind: IIOChannelKind) -> IIOSamplingControl? {
    samplingControls.first { $0.kind == kind } ?? samplingControls.first { $0.kind == nil }
  }

  /// The rates in Hz the device offers over all its controls, when any are listed.
  public var sampleRateBounds: ClosedRange<Double>? {
    let bounds = samplingControls.compactMap { $0.available?.bounds }
    guard let low = bounds.map(\.lowerBound).min(), let high = bounds.map(\.upperBound).max()
    else { return nil }
    return low...high
  }

  /// The mount matrix for `kind` (identity when none).
  public func mountMatrix(for kind: IIOChannelKind) -> IIOMountMatrix {
    mountMatrices[kind] ?? .identity
  }

  /// ``name`` with the label, e.g. `accel_3d (accel-display)`.
  public var displayName: String {
    label.map { "\(name) (\($0))" } ?? name
  }

  /// A multi-line summary: identity, channels with scale, rates, mount matrices, buffer.
  public var description: String {
    var lines = ["\(displayName) at \(sysfsPath)"]
    for kind in kinds {
      let group = channels(of: kind)
      guard let first = group.first else { continue }
      var line = "  \(kind.sensor.names.first ?? kind.rawValue): "
      line += group.map { $0.valueAttribute ?? $0.name }.joined(separator: ", ")
      if first.isProcessed {
        line += " (processed, \(kind.kernelUnit))"
      } else {
        let scales = Set(group.map(\.scale)).sorted().map { IIOFormat.number($0) }
        line += " scale \(scales.joined(separator: "/")) \(kind.kernelUnit)/LSB"
        let offsets = Set(group.map(\.offset))
        if offsets != [0] {
          line += ", offset \(offsets.sorted().map { IIOFormat.number($0) }.joined(separator: "/"))"
        }
      }
      if kind.isVector, let matrix = mountMatrices[kind], !matrix.isIdentity {
        line += ", mount matrix \(matrix)"
      }
      if let control = samplingControl(for: kind) {
        if let current = control.current { line += ", \(IIOFormat.number(current)) Hz" }
        if let available = control.available { line += " (available \(available))" }
      }
      lines.append(line)
    }
    if supportsBuffer {
      var line = "  buffer: \(devicePath)"
      if let clock = timestampClock { line += ", timestamps \(clock)" }
      if let trigger = currentTrigger { line += ", trigger \(trigger)" }
      lines.append(line)
    } else {
      lines.append("  buffer: none (sysfs polling only)")
    }
    for note in notes { lines.append("  note: \(note)") }
    return lines.joined(separator: "\n")
  }
}
