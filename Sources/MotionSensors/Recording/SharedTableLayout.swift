// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The plain CSV layouts of the shared data sets (`../shared/data/`), recognised from the header
/// line so that a tool can read them without a `--columns` mapping.
///
/// The one header sniffer for the step counter's evaluation and `motionctl altitude`: both read at
/// most ``headerByteLimit`` bytes of the first line, so a file without line breaks costs no more.
package enum SharedTableLayout: Sendable, Equatable, CaseIterable {
  /// `t,ax,ay,az[,…]`: seconds and specific force in m/s² (+9.81 up at rest); the Oxford and IPOL
  /// step files.
  case steps
  /// `t` and `pressure_hpa` anywhere in the header: seconds and pressure in hPa.
  case pressureHectopascals
  /// `t` and `pressure_kpa` anywhere in the header: seconds and pressure in kPa.
  case pressureKilopascals
  /// `t`, `gx`, `gy` and `gz` anywhere in the header: seconds and rotation rate in rad/s (IPOL's
  /// lower-back sensor, MotionSense's iPhone). Read together with ``steps``, never alone.
  case gyroscope

  /// The most of a file read to find its header line.
  package static let headerByteLimit = 4096

  /// The column mapping that reads this layout (other columns are ignored).
  package var columnMapping: String {
    switch self {
    case .steps: return "t=t,ax=ax,ay=ay,az=az;units=m/s^2,s"
    case .pressureHectopascals: return "t=t,p=pressure_hpa;units=hPa"
    case .pressureKilopascals: return "t=t,p=pressure_kpa;units=kPa"
    case .gyroscope: return "t=t,gx=gx,gy=gy,gz=gz;units=rad/s,s"
    }
  }

  /// The column mapping that reads every layout of `layouts` at once: a steps table with a
  /// pressure column gives its accelerometer and its barometer (rows without a pressure value
  /// carry none), with gyroscope columns its gyroscope too. `nil` when `layouts` is empty (or
  /// holds only ``gyroscope``, which belongs to a steps table).
  package static func columnMapping(
    reading layouts: [SharedTableLayout], accelerationUnit: String = "m/s^2"
  ) -> String? {
    var columns: [String] = []
    var units: [String] = []
    if layouts.contains(.steps) {
      columns += ["ax=ax", "ay=ay", "az=az"]
      units.append(accelerationUnit)
      if layouts.contains(.gyroscope) {
        columns += ["gx=gx", "gy=gy", "gz=gz"]
        units.append("rad/s")
      }
    }
    if layouts.contains(.pressureHectopascals) {
      columns.append("p=pressure_hpa")
      units.append("hPa")
    } else if layouts.contains(.pressureKilopascals) {
      columns.append("p=pressure_kpa")
      units.append("kPa")
    }
    guard !columns.isEmpty else { return nil }
    return "t=t," + columns.joined(separator: ",") + ";units="
      + (units + ["s"]).joined(
        separator: ",")
  }

  /// Whether the layout carries a barometer column.
  package var hasPressure: Bool { self == .pressureHectopascals || self == .pressureKilopascals }

  /// Every layout the header of the file at `url` matches, in declaration order; empty when the
  /// file cannot be read (the recording reader then reports why) or matches none.
  package static func layouts(of url: URL) -> [SharedTableLayout] {
    guard let names = headerNames(of: url) else { return [] }
    return allCases.filter { $0.matches(names) }
  }

  /// Whether a header with the (lower-cased, trimmed) column `names` has this layout.
  package func matches(_ names: [String]) -> Bool {
    switch self {
    case .steps: return names.count >= 4 && Array(names.prefix(4)) == ["t", "ax", "ay", "az"]
    case .pressureHectopascals: return names.contains("t") && names.contains("pressure_hpa")
    case .pressureKilopascals: return names.contains("t") && names.contains("pressure_kpa")
    case .gyroscope:
      return names.contains("t") && names.contains("gx") && names.contains("gy")
        && names.contains("gz")
    }
  }

  /// Whether a header with the (lower-cased, trimmed) column `names` holds Apple's own
  /// `CMDeviceMotion.gravity` (`apple_gravity_x`, `_y`, `_z`, as the MotionSense tables do). Its
  /// accelerometer and gyroscope columns are then Core Motion's device-motion outputs
  /// (`gravity + userAcceleration`, the bias-corrected `rotationRate`), computed for one instant
  /// each: ``SampleTiming/deviceMotionInstants``, not a sensor's interval means.
  package static func recordsAppleDeviceMotion(_ names: [String]) -> Bool {
    names.contains("apple_gravity_x") && names.contains("apple_gravity_y")
      && names.contains("apple_gravity_z")
  }

  /// The lower-cased, trimmed comma-separated names of the file's first line, or `nil` when it is
  /// not a readable regular file.
  static func headerNames(of url: URL) -> [String]? {
    // Not a regular file (a FIFO would block a plain open): the reader then says what it is.
    guard let head = try? RegularFile.readPrefix(url.path, count: headerByteLimit) else {
      return nil
    }
    var line = String(decoding: head.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
    // A UTF-8 byte-order mark (spreadsheet exports write one) is not part of the first name.
    if line.hasPrefix("\u{FEFF}") { line.removeFirst() }
    // Quoted names (R's `write.csv`, pandas with QUOTE_ALL) are the same names.
    return line.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(
        in: CharacterSet(charactersIn: "\"")
      )
      .lowercased()
    }
  }
}

extension RecordingReader {
  /// Opens `url` as ``open(_:format:options:)`` does when its header names a recording format, and
  /// otherwise as the shared plain table its header matches (``SharedTableLayout``): `t,ax,ay,az`
  /// in seconds, with or without a `pressure_hpa` or `pressure_kpa` column. The table is read
  /// through its column mapping, so its samples are in OpenCoreMotion's units like every reader's
  /// (Core Motion's g and sign are applied at the API, as for any recording).
  ///
  /// The shared step tables hold specific force in m/s² (+9.81 up at rest), but iPhone loggers and
  /// the MotionSense files write g with Apple's sign under the same header. As `motionctl steps`
  /// and `activity` do, the magnitudes of the first readings decide (``AccelerationUnitProbe``):
  /// about 1 is g with Apple's sign, about 9.8 is m/s². A table that also holds Apple's gravity
  /// (MotionSense) is Core Motion's device motion, and its stream says so
  /// (``SharedTableLayout/recordsAppleDeviceMotion(_:)``), as the device-motion CSV reader's does.
  ///
  /// - Throws: what ``open(_:format:options:)`` throws; its `.unknownFormat` error when the header
  ///   matches no shared layout either.
  package static func openIncludingSharedTables(
    _ url: URL, options: Options = Options()
  ) throws -> RecordingStream {
    do {
      return try open(url, options: options)
    } catch let error as RecordingError where error.kind == .unknownFormat {
      // The header is read once, for the layouts and for Apple's device-motion columns.
      let names = SharedTableLayout.headerNames(of: url) ?? []
      let layouts = SharedTableLayout.allCases.filter { $0.matches(names) }
      guard let text = SharedTableLayout.columnMapping(reading: layouts) else { throw error }
      var options = options
      options.columnMapping = try ColumnMapping(parsing: text)
      guard layouts.contains(.steps) else {
        return try open(url, format: .columns, options: options)
      }
      var head = try open(url, format: .columns, options: options)
      if try AccelerationUnitProbe.isInG(reading: &head) == true {
        // Read as m/s², these are g: read them again as g with Apple's sign.
        if let appleG = SharedTableLayout.columnMapping(reading: layouts, accelerationUnit: "-g") {
          options.columnMapping = try ColumnMapping(parsing: appleG)
        }
      }
      var stream = try open(url, format: .columns, options: options)
      if SharedTableLayout.recordsAppleDeviceMotion(names) {
        stream.descriptor.sampleTiming = .deviceMotionInstants
      }
      return stream
    }
  }
}
