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
    try load(for: url, indexes: IndexCache())
  }

  /// ``load(for:)`` with the folders' `index.csv` and README tables taken from `indexes`, which
  /// reads each folder's once: a data set of n recordings costs n look-ups, not n readings of an
  /// index of n rows (3 000 recordings took more than a minute when every one re-read them).
  package static func load(for url: URL, indexes: IndexCache) throws -> StepGroundTruth? {
    let standardized = url.standardizedFileURL
    var folder = standardized.deletingLastPathComponent()
    for _ in 0..<3 {
      if let index = try indexes.index(in: folder) {
        let relative = String(standardized.path.dropFirst(folder.path.count)).trimmingPrefix("/")
        if let truth = try index.truth(name: String(relative)) { return truth }
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

  /// The `index.csv` (and README baseline) of each data folder met during one evaluation, read
  /// on first use and kept for the run, so that every recording of a folder is looked up in one
  /// parsed index. A class: one evaluation shares it across its recordings; not `Sendable`, it
  /// belongs to the evaluation that made it.
  package final class IndexCache {
    /// By folder path: the parsed index, or `nil` when the folder has none.
    private var folders: [String: FolderIndex?] = [:]

    package init() {}

    /// The index of `folder`, read the first time it is asked for.
    func index(in folder: URL) throws -> FolderIndex? {
      if let known = folders[folder.path] { return known }
      let url = folder.appendingPathComponent("index.csv")
      let index =
        FileManager.default.fileExists(atPath: url.path) ? try FolderIndex(indexURL: url) : nil
      folders[folder.path] = .some(index)
      return index
    }
  }

  /// One folder's `index.csv`, its rows by file name (the first row of a name wins, as the linear
  /// search it replaces had it), and its README's baseline counts.
  struct FolderIndex {
    private let indexURL: URL
    private let table: CSVTable
    private let rowByName: [String: Int]
    private let baseline: [String: Int]

    init(indexURL: URL) throws {
      self.indexURL = indexURL
      table = try CSVTable(contentsOf: indexURL)
      var rows: [String: Int] = [:]
      if let file = table.column("file") {
        for (number, row) in table.rows.enumerated() where row.indices.contains(file) {
          if rows[row[file]] == nil { rows[row[file]] = number }
        }
      }
      rowByName = rows
      baseline = try StepGroundTruth.baselineCounts(
        readmeURL: indexURL.deletingLastPathComponent().appendingPathComponent("README.md"))
    }

    /// The truth of the recording `name` (relative to the folder), or `nil` when the index has no
    /// usable row for it.
    ///
    /// - Throws: ``InvalidCount`` for a `gt_steps` outside 0…``StepGroundTruth/largestCount``.
    func truth(name: String) throws -> StepGroundTruth? {
      guard let rowNumber = rowByName[name] else { return nil }
      let row = table.rows[rowNumber]
      func value(_ column: String) -> String? {
        guard let index = table.column(column), row.indices.contains(index), !row[index].isEmpty
        else { return nil }
        return row[index]
      }
      func number(_ column: String) -> Double? {
        value(column).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
      }
      guard
        let steps = try value("gt_steps").flatMap({
          try StepGroundTruth.stepCount($0, in: indexURL, of: name, column: "gt_steps")
        }), steps > 0,
        let start = number("gt_window_start_s"), let end = number("gt_window_end_s"), start <= end
      else { return nil }
      return StepGroundTruth(
        name: name, set: value("source") ?? "other", position: value("position") ?? "",
        steps: steps, window: start...end,
        userHeight: number("subject_height_cm").map { $0 / 100 },
        nominalDistance: number("nominal_distance_m"), baselineSteps: baseline[name])
    }
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
        let count = try stepCount(cells[baseline], in: readmeURL, of: cells[1], column: "baseline")
      else { continue }
      counts[cells[1]] = count
    }
    return counts
  }

  /// The largest step count a table may give, as `SensorLogPedometer` bounds Apple's: far more
  /// than anyone walks in one recording, and small enough that the evaluation's sums and
  /// differences of counts cannot overflow `Int` (a crafted 2^62 or `Int.min` trapped there).
  static let largestCount = 1_000_000_000

  /// A count given outside 0…``largestCount`` in the index or the README's table.
  package struct InvalidCount: Error, CustomStringConvertible {
    package var file: String
    package var name: String
    package var column: String
    package var value: String
    package var description: String {
      "\(file): the \(column) count of \(name), \(value), is not a step count between 0 and "
        + "\(largestCount)"
    }
  }

  /// `text` as a step count: `nil` when it is not an integer at all (a dash, a blank cell, as
  /// before), an ``InvalidCount`` when it is one outside 0…``largestCount``, too many digits for
  /// `Int` included, so that such a cell is neither trapped on nor left out without a word.
  static func stepCount(
    _ text: String, in file: URL, of name: String, column: String
  ) throws
    -> Int?
  {
    let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : Substring(text)
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    guard let count = Int(text), (0...largestCount).contains(count) else {
      throw InvalidCount(file: file.path, name: name, column: column, value: text)
    }
    return count
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
