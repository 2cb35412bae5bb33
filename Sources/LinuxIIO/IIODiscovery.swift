// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads IIO devices from a sysfs tree (real or fake) into ``IIODeviceInfo`` values.
struct IIODiscovery {
  let sysfsRoot: String
  let devRoot: String
  let system: IIOSystem

  /// Every `iio:device*` under the root that has at least one motion channel, in directory order.
  /// A missing root means "no IIO on this machine" (empty); an unreadable one is an error.
  func devices() throws -> [IIODeviceInfo] {
    let entries: [String]
    switch system.listDirectory(sysfsRoot) {
    case .success(let names): entries = names
    case .failure(.gone): return []
    case .failure(.permissionDenied): throw IIOError.permissionDenied(path: sysfsRoot)
    case .failure(let error): throw IIOError.unreadable(path: sysfsRoot, reason: error.phrase)
    }
    let deviceDirectories = entries.filter { $0.hasPrefix("iio:device") }
      .sorted { (Self.index(of: $0) ?? Int.max, $0) < (Self.index(of: $1) ?? Int.max, $1) }
    return deviceDirectories.compactMap { device(directoryName: $0) }
      .filter { !$0.kinds.isEmpty }
  }

  /// Trigger names (`triggerN/name`) under the root.
  func triggerNames() -> [String] {
    guard case .success(let entries) = system.listDirectory(sysfsRoot) else { return [] }
    return entries.filter { $0.hasPrefix("trigger") }.compactMap {
      text("\(sysfsRoot)/\($0)/name")
    }
  }

  /// The devices whose name and label equal `name` and `label` (how a device that went away is
  /// found again, whatever its new index).
  func devices(named name: String, label: String?) -> [IIODeviceInfo] {
    ((try? devices()) ?? []).filter { $0.name == name && $0.label == label }
  }

  /// Reads one device directory; nil when it is not readable at all.
  func device(directoryName: String) -> IIODeviceInfo? {
    let path = "\(sysfsRoot)/\(directoryName)"
    guard case .success(let files) = system.listDirectory(path) else { return nil }
    let fileSet = Set(files)
    var notes: [String] = []
    let name = text("\(path)/name") ?? directoryName
    let label = text("\(path)/label").flatMap { $0.isEmpty ? nil : $0 }

    // Buffer directories: the legacy `buffer` + `scan_elements` pair first (always created for
    // buffer 0), else the merged `buffer0` of kernels ≥ 5.11.
    var scanDirectory: String?
    var bufferDirectory: String?
    if fileSet.contains("scan_elements") { scanDirectory = "\(path)/scan_elements" }
    if fileSet.contains("buffer") { bufferDirectory = "\(path)/buffer" }
    if fileSet.contains("buffer0") {
      bufferDirectory = bufferDirectory ?? "\(path)/buffer0"
      if scanDirectory == nil { scanDirectory = "\(path)/buffer0" }
    }
    var scanFiles: Set<String> = []
    if let scanDirectory, case .success(let names) = system.listDirectory(scanDirectory) {
      scanFiles = Set(names)
    }

    var channels: [IIOChannelInfo] = []
    var seen: Set<String> = []
    for file in files {
      guard let parsed = Self.parseValueAttribute(file), !seen.contains(parsed.stem) else {
        continue
      }
      // Prefer the raw value when both `_raw` and `_input` exist (its scale is explicit).
      let isProcessed = parsed.suffix == "input"
      if isProcessed, fileSet.contains("\(parsed.stem)_raw") { continue }
      seen.insert(parsed.stem)
      var channel = IIOChannelInfo(
        kind: parsed.kind, axis: parsed.axis, name: parsed.stem, valueAttribute: file,
        isProcessed: isProcessed)
      if !isProcessed {
        let candidates = [parsed.stem, parsed.typeStem, "in_\(parsed.kind.rawValue)"]
        // A step of one count beyond what the sensor can measure, or an offset that alone moves
        // every reading beyond it, makes every value absurd: such attributes are broken, and are
        // ignored with a note like infinite ones.
        let limit = parsed.kind.measurableMagnitude
        let unit = parsed.kind.sampleUnit
        let factor = parsed.kind.unitFactor
        if let scale = firstNumber(
          path, candidates.map { "\($0)_scale" }, fileSet, &notes,
          unusable: { scale in
            // A zero scale (0 or -0) would read every value as zero for ever, silently.
            if scale == 0 { return "a zero scale" }
            guard abs(scale * factor) <= limit else {
              return "one count would be more than \(IIOFormat.number(limit)) \(unit)"
            }
            return nil
          })
        {
          channel.scale = scale
        }
        let scale = channel.scale
        if let offset = firstNumber(
          path, candidates.map { "\($0)_offset" }, fileSet, &notes,
          unusable: { offset in
            guard abs(offset * scale * factor) <= limit else {
              return "it would move every reading by more than \(IIOFormat.number(limit)) \(unit)"
            }
            return nil
          })
        {
          channel.offset = offset
        }
      }
      if let scanDirectory { attachScanElement(&channel, scanDirectory, scanFiles, &notes) }
      channels.append(channel)
    }
    // Scalar kinds: keep the lowest-numbered channel only (`in_pressure` before `in_pressure1`).
    channels.sort { ($0.kind.rawValue, $0.name) < ($1.kind.rawValue, $1.name) }
    if let scanDirectory, scanFiles.contains("in_timestamp_type") {
      var timestamp = IIOChannelInfo(
        kind: .timestamp, axis: nil, name: "in_timestamp", valueAttribute: nil, isProcessed: false)
      attachScanElement(&timestamp, scanDirectory, scanFiles, &notes)
      channels.append(timestamp)
    }

    var controls: [IIOSamplingControl] = []
    if fileSet.contains("sampling_frequency") {
      controls.append(samplingControl(path, "sampling_frequency", kind: nil, fileSet, &notes))
    }
    for kind in IIOChannelKind.motionKinds {
      let attribute = "in_\(kind.rawValue)_sampling_frequency"
      if fileSet.contains(attribute) {
        controls.append(samplingControl(path, attribute, kind: kind, fileSet, &notes))
      }
    }

    var matrices: [IIOChannelKind: IIOMountMatrix] = [:]
    for kind in [IIOChannelKind.accelerometer, .gyroscope, .magnetometer] {
      let candidates = ["in_\(kind.rawValue)_mount_matrix", "mount_matrix", "in_mount_matrix"]
      guard let attribute = candidates.first(where: fileSet.contains),
        let content = text("\(path)/\(attribute)")
      else { continue }
      if let matrix = IIOMountMatrix(parsing: content) {
        matrices[kind] = matrix
      } else {
        notes.append("ignored unusable \(attribute) \(IIOFormat.quoted(content)) (identity used)")
      }
    }

    // The axes of a kind share their scale and scan format attributes, so one problem gave a
    // note per axis.
    var seenNotes: Set<String> = []
    notes = notes.filter { seenNotes.insert($0).inserted }

    return IIODeviceInfo(
      name: name, label: label, directoryName: directoryName, sysfsPath: path,
      devicePath: "\(devRoot)/\(directoryName)", channels: channels, samplingControls: controls,
      mountMatrices: matrices, scanElementsDirectory: scanDirectory,
      bufferDirectory: bufferDirectory,
      timestampClock: fileSet.contains("current_timestamp_clock")
        ? text("\(path)/current_timestamp_clock") : nil,
      currentTrigger: Self.triggerName(text("\(path)/trigger/current_trigger")),
      notes: notes)
  }

  // MARK: Helpers

  /// The trimmed content of an attribute, nil when unreadable.
  func text(_ path: String) -> String? {
    guard case .success(let content) = system.readAttribute(path) else { return nil }
    return content.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A trigger name, nil for the "none" spellings (empty, `NULL`).
  static func triggerName(_ text: String?) -> String? {
    guard let text, !text.isEmpty, text != "NULL" else { return nil }
    return text
  }

  static func index(of directoryName: String) -> Int? {
    guard directoryName.hasPrefix("iio:device") else { return nil }
    return Int(directoryName.dropFirst("iio:device".count))
  }

  /// Splits a value attribute such as `in_accel_x_raw`, `in_pressure0_input`, `in_temp_raw` into
  /// kind, axis and stems; nil for anything else (including `in_accel_linear_x_raw`,
  /// `in_temp_x_raw` and channel types the backend does not read).
  static func parseValueAttribute(
    _ file: String
  ) -> (
    kind: IIOChannelKind, axis: Int?, stem: String, typeStem: String, suffix: String
  )? {
    guard file.hasPrefix("in_") else { return nil }
    let suffix: String
    if file.hasSuffix("_raw") {
      suffix = "raw"
    } else if file.hasSuffix("_input") {
      suffix = "input"
    } else {
      return nil
    }
    let stem = String(file.dropLast(suffix.count + 1))
    let parts = stem.dropFirst(3).split(separator: "_", omittingEmptySubsequences: false)
    guard parts.count == 1 || parts.count == 2 else { return nil }
    let typePart = parts[0]
    let letters = typePart.prefix(while: { $0.isLetter })
    let digits = typePart.dropFirst(letters.count)
    guard digits.allSatisfy({ $0.isASCII && $0.isNumber }),
      let kind = IIOChannelKind(rawValue: String(letters)), kind != .timestamp
    else { return nil }
    var axis: Int?
    if parts.count == 2 {
      guard kind.isVector, let index = ["x", "y", "z"].firstIndex(of: String(parts[1])) else {
        return nil
      }
      axis = index
    } else if kind.isVector {
      return nil
    }
    return (kind, axis, stem, "in_\(typePart)", suffix)
  }

  /// The value of the first of `names` that is there and usable: a finite number for which
  /// `unusable` gives no reason to refuse it. Each one passed over is noted.
  private func firstNumber(
    _ path: String, _ names: [String], _ files: Set<String>, _ notes: inout [String],
    unusable: (Double) -> String?
  ) -> Double? {
    for name in names where files.contains(name) {
      // An attribute that is there but cannot be read (a FIFO, a folder) was passed over without a
      // note, so the value was read as if the device had no scale.
      guard let content = text("\(path)/\(name)") else {
        notes.append("ignored unreadable \(name)")
        continue
      }
      if let value = Double(content), value.isFinite {
        if let reason = unusable(value) {
          notes.append("ignored unusable \(name) \(IIOFormat.quoted(content)) (\(reason))")
          continue
        }
        return value
      }
      notes.append("ignored unparsable \(name) \(IIOFormat.quoted(content))")
    }
    return nil
  }

  private func attachScanElement(
    _ channel: inout IIOChannelInfo, _ directory: String, _ files: Set<String>,
    _ notes: inout [String]
  ) {
    let stem = channel.name
    guard files.contains("\(stem)_index"), files.contains("\(stem)_type") else { return }
    guard let indexText = text("\(directory)/\(stem)_index"), let index = Int(indexText) else {
      notes.append("ignored unparsable \(stem)_index")
      return
    }
    guard let typeText = text("\(directory)/\(stem)_type"),
      let type = IIOScanType(parsing: typeText)
    else {
      notes.append("ignored unknown scan format in \(stem)_type")
      return
    }
    channel.scanIndex = index
    channel.scanType = type
  }

  private func samplingControl(
    _ path: String, _ attribute: String, kind: IIOChannelKind?, _ files: Set<String>,
    _ notes: inout [String]
  ) -> IIOSamplingControl {
    var available: IIOFrequencySet?
    let list = "\(attribute)_available"
    if files.contains(list) {
      // Without a usable list the requested rate is written as it is, and the kernel takes or
      // refuses it; the list that could not be used is said, as an unusable scale is.
      if let content = text("\(path)/\(list)") {
        available = IIOFrequencySet(parsing: content)
        if available == nil {
          notes.append("ignored unparsable \(list) \(IIOFormat.quoted(content))")
        }
      } else {
        notes.append("ignored unreadable \(list)")
      }
    }
    // "inf" and "nan" parse as Doubles but are no rate: the current rate is then unknown, as the
    // reader takes it (an infinite one was taken for the device's rate when it could not be set).
    let current = text("\(path)/\(attribute)").flatMap(Double.init).flatMap {
      $0.isFinite ? $0 : nil
    }
    return IIOSamplingControl(
      attribute: attribute, kind: kind, current: current, available: available)
  }
}
