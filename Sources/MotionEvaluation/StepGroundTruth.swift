// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Ground truth of the shared steps data (`../shared/data/steps/`): the `index.csv` rows and the
/// per-recording `<name>.steps.csv` files, with the README's semantics: the truth is the number of
/// steps with `in_window` = 1, and a detector's steps count when their time lies inside the
/// recording's ground-truth window (both ends included).
package struct StepGroundTruth: Sendable, Equatable {
  /// The recording's path relative to the data folder (`oxford/...csv`), as in `index.csv`.
  package var name: String
  /// `oxford-optimisation`, `oxford-validation`, `ipol`, or `other` without an index row.
  package var set: String
  /// Phone position (`InHand`, `BackPocket`, …; `LowerBack` for IPOL).
  package var position: String
  /// Ground-truth step count.
  package var steps: Int
  /// Ground-truth window, s.
  package var window: ClosedRange<Double>
  /// The walker's height, m, when known (IPOL).
  package var userHeight: Double?
  /// Nominal walked distance, m, when known (IPOL: 2 × 10 m).
  package var nominalDistance: Double?
  /// The README's baseline count for this recording, when its table gives one.
  package var baselineSteps: Int?

  /// Loads the truth of the recording at `url` (`<name>.csv`). Uses the `index.csv` row of the
  /// data folder (found in the recording's folder or up to two levels above) when there is one,
  /// else the recording's `.steps.csv` (window: all of time). Returns `nil` when neither exists.
  package static func load(for url: URL) throws -> StepGroundTruth? {
    let standardized = url.standardizedFileURL
    var folder = standardized.deletingLastPathComponent()
    for _ in 0..<3 {
      let index = folder.appendingPathComponent("index.csv")
      if FileManager.default.fileExists(atPath: index.path) {
        let relative = String(standardized.path.dropFirst(folder.path.count)).trimmingPrefix("/")
        if let truth = try load(name: String(relative), indexURL: index) { return truth }
      }
      folder.deleteLastPathComponent()
    }
    let stepsURL = url.deletingPathExtension().appendingPathExtension("steps.csv")
    guard FileManager.default.fileExists(atPath: stepsURL.path) else { return nil }
    let table = try CSVTable(contentsOf: stepsURL)
    guard let column = table.column("in_window") else { return nil }
    let steps = table.rows.filter { $0.indices.contains(column) && $0[column] == "1" }.count
    return StepGroundTruth(
      name: url.lastPathComponent, set: "other", position: "", steps: steps,
      window: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
  }

  init(
    name: String, set: String, position: String, steps: Int, window: ClosedRange<Double>,
    userHeight: Double? = nil, nominalDistance: Double? = nil, baselineSteps: Int? = nil
  ) {
    self.name = name
    self.set = set
    self.position = position
    self.steps = steps
    self.window = window
    self.userHeight = userHeight
    self.nominalDistance = nominalDistance
    self.baselineSteps = baselineSteps
  }

  private static func load(name: String, indexURL: URL) throws -> StepGroundTruth? {
    let table = try CSVTable(contentsOf: indexURL)
    guard let file = table.column("file"),
      let row = table.rows.first(where: { $0.indices.contains(file) && $0[file] == name })
    else { return nil }
    func value(_ column: String) -> String? {
      guard let index = table.column(column), row.indices.contains(index), !row[index].isEmpty
      else { return nil }
      return row[index]
    }
    func number(_ column: String) -> Double? {
      value(column).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
    }
    guard let steps = value("gt_steps").flatMap(Int.init), steps > 0,
      let start = number("gt_window_start_s"), let end = number("gt_window_end_s"), start <= end
    else { return nil }
    let baseline = try baselineCounts(
      readmeURL: indexURL.deletingLastPathComponent().appendingPathComponent("README.md"))
    return StepGroundTruth(
      name: name, set: value("source") ?? "other", position: value("position") ?? "", steps: steps,
      window: start...end, userHeight: number("subject_height_cm").map { $0 / 100 },
      nominalDistance: number("nominal_distance_m"), baselineSteps: baseline[name])
  }

  /// The `baseline` column of the README's per-recording table (file → count), if the README
  /// exists.
  static func baselineCounts(readmeURL: URL) throws -> [String: Int] {
    guard let text = try? String(contentsOf: readmeURL, encoding: .utf8) else { return [:] }
    var header: [String]?
    var counts: [String: Int] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false)
    where line.hasPrefix("|") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      if cells.count > 2, cells[1] == "file" {
        header = cells
        continue
      }
      guard let header, let baseline = header.firstIndex(of: "baseline"),
        cells.count == header.count,
        let count = Int(cells[baseline])
      else { continue }
      counts[cells[1]] = count
    }
    return counts
  }
}

/// A small CSV table (no quoting: the shared index and step files have none), header by name.
struct CSVTable {
  var header: [String]
  var rows: [[String]]

  init(contentsOf url: URL) throws {
    let text = try String(contentsOf: url, encoding: .utf8)
    var lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).map {
      line in
      line.split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
    header = lines.isEmpty ? [] : lines.removeFirst()
    rows = lines
  }

  func column(_ name: String) -> Int? { header.firstIndex(of: name) }
}
