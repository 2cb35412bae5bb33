// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// Scores ``StepDetector`` (and the ``StrideModel`` distance) against the shared step ground truth.
///
/// Error of a recording = (counted − truth) / truth, in %; counted = detected steps whose time lies
/// in the truth window (see ``StepGroundTruth``). Groups report MAPE (mean |error|), median
/// |error|, mean signed error, the error of the summed counts and the worst |error|, next to the
/// same figures of the README's baseline (its per-recording counts) for the same recordings.
package enum StepEvaluation {
  /// One scored recording.
  package struct Recording: Codable, Sendable, Equatable {
    package var file: String
    package var set: String
    package var position: String
    package var truth: Int
    package var steps: Int
    /// (steps − truth) / truth, %.
    package var error: Double
    package var baselineSteps: Int?
    package var baselineError: Double?
    /// Distance of the counted steps, m, and its error against the nominal distance, % (IPOL).
    package var distance: Double
    package var nominalDistance: Double?
    package var distanceError: Double?
  }

  /// Error statistics of a group of recordings, %.
  package struct Statistics: Codable, Sendable, Equatable {
    package var recordings: Int
    package var mape: Double
    package var medianAPE: Double
    package var meanSignedError: Double
    package var totalCountError: Double
    package var worst: Double

    init?(errors: [Double], counted: [Int], truths: [Int]) {
      guard !errors.isEmpty else { return nil }
      let absolute = errors.map(abs).sorted()
      recordings = errors.count
      mape = absolute.reduce(0, +) / Double(absolute.count)
      let middle = absolute.count / 2
      medianAPE =
        absolute.count % 2 == 1 ? absolute[middle] : (absolute[middle - 1] + absolute[middle]) / 2
      meanSignedError = errors.reduce(0, +) / Double(errors.count)
      let truth = truths.reduce(0, +)
      totalCountError = truth > 0 ? Double(counted.reduce(0, +) - truth) / Double(truth) * 100 : 0
      worst = absolute.last ?? 0
    }
  }

  /// Ours and the baseline's statistics for one set or placement.
  package struct Group: Codable, Sendable, Equatable {
    package var name: String
    package var ours: Statistics
    package var baseline: Statistics?
    /// Mean |distance error| and mean signed distance error, %, where a nominal distance is known.
    package var distanceMAPE: Double?
    package var distanceMeanSignedError: Double?
  }

  /// A resampling rate that is not a positive, finite number of Hz.
  package struct InvalidRate: Error, CustomStringConvertible {
    package var rate: Double
    package var description: String { "the rate must be a positive number of Hz, not \(rate)" }
  }

  /// A recording whose ground truth counts no step: its relative error would be infinite.
  package struct NoTruthSteps: Error, CustomStringConvertible {
    package var file: String
    package var description: String {
      "\(file): the ground truth has no step in its window, so there is no relative error to score"
    }
  }

  /// A path given to the evaluation that names no file or folder: skipping it would score the
  /// others as if it had never been asked for.
  package struct NoSuchPath: Error, CustomStringConvertible {
    package var path: String
    package var description: String { "\(path): no such file or folder" }
  }

  package struct Result: Codable, Sendable, Equatable {
    package var recordings: [Recording]
    package var sets: [Group]
    package var placements: [Group]
  }

  /// The recordings under `paths` (files, or folders searched recursively for `*.csv` other than
  /// `index.csv` and `*.steps.csv`), sorted by path. A recording that more than one path reaches
  /// (a folder and a file in it, or one folder given twice) is listed once, as
  /// ``ActivityDataset/load(paths:)`` has it: scored twice, it would weigh double in every group.
  ///
  /// - Throws: ``NoSuchPath`` for a path that names nothing.
  package static func recordingFiles(in paths: [String]) throws -> [URL] {
    var files: [URL] = []
    var seen = Set<String>()
    func add(_ url: URL) {
      if seen.insert(url.standardizedFileURL.path).inserted { files.append(url) }
    }
    for path in paths {
      let url = URL(fileURLWithPath: path)
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
        throw NoSuchPath(path: path)
      }
      if !isDirectory.boolValue {
        add(url)
        continue
      }
      let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
      while let next = enumerator?.nextObject() as? URL {
        let name = next.lastPathComponent
        if name.hasSuffix(".csv"), !name.hasSuffix(".steps.csv"), name != "index.csv" {
          add(next)
        }
      }
    }
    return files.sorted { $0.path < $1.path }
  }

  /// Scores every recording under `paths` that has ground truth (others are skipped).
  ///
  /// Each recording is counted while it is read (``StepCounter``), as `motionctl steps` does:
  /// scoring needs only the detected step times (the truth window is applied to them afterwards),
  /// so memory holds those rather than the samples, and the count is the one a loaded recording
  /// gives, sample for sample.
  ///
  /// - Parameter rate: when given (Hz), each recording is first brought to that rate by averaging
  ///   its samples over intervals of `1 / rate` (``IntervalAverager``), to measure the counter at
  ///   the rates phones deliver rather than at the recording's own; `nil` counts the samples as
  ///   recorded.
  package static func evaluate(
    paths: [String], parameters: StepDetector.Parameters = .default, rate: Double? = nil
  ) throws -> Result {
    // Checked once, before any file is read: an empty averager, copied for each recording.
    let emptyAverager = try rate.map { rate in
      guard let averager = IntervalAverager(rate: rate) else { throw InvalidRate(rate: rate) }
      return averager
    }
    var recordings: [Recording] = []
    // Each folder's index.csv and README are read once for the whole run.
    let indexes = StepGroundTruth.IndexCache()
    for url in try recordingFiles(in: paths) {
      guard let truth = try StepGroundTruth.load(for: url, indexes: indexes) else { continue }
      guard truth.steps > 0 else { throw NoTruthSteps(file: url.path) }
      var counter = StepCounter(parameters: parameters)
      if var averager = emptyAverager {
        // The gyroscope (IPOL's) is averaged to the same rate, as a slower sensor would be.
        var gyroscopeAverager = averager
        try StepRecording.read(
          url,
          accelerometer: {
            if let sample = averager.add(time: $0, value: $1) {
              counter.add(time: sample.time, specificForce: sample.value)
            }
          },
          gyroscope: {
            if let sample = gyroscopeAverager.add(time: $0, value: $1) {
              counter.add(time: sample.time, rotationRate: sample.value)
            }
          })
        if let last = gyroscopeAverager.finish() {
          counter.add(time: last.time, rotationRate: last.value)
        }
        if let last = averager.finish() { counter.add(time: last.time, specificForce: last.value) }
      } else {
        try StepRecording.read(
          url, accelerometer: { counter.add(time: $0, specificForce: $1) },
          gyroscope: { counter.add(time: $0, rotationRate: $1) })
      }
      recordings.append(score(counter.finish(userHeight: truth.userHeight), truth))
    }
    return Result(
      recordings: recordings,
      sets: groups(recordings, by: \.set),
      placements: groups(recordings.filter { $0.set.hasPrefix("oxford") }, by: \.position))
  }

  static func score(_ count: StepCount, _ truth: StepGroundTruth) -> Recording {
    let steps = count.steps(in: truth.window)
    func error(_ n: Int) -> Double { Double(n - truth.steps) / Double(truth.steps) * 100 }
    let distance = count.distance(in: truth.window, userHeight: truth.userHeight)
    return Recording(
      file: truth.name, set: truth.set, position: truth.position, truth: truth.steps, steps: steps,
      error: error(steps), baselineSteps: truth.baselineSteps,
      baselineError: truth.baselineSteps.map(error),
      distance: distance, nominalDistance: truth.nominalDistance,
      distanceError: truth.nominalDistance.map { ($0 > 0) ? (distance - $0) / $0 * 100 : 0 })
  }

  static func groups(_ recordings: [Recording], by key: KeyPath<Recording, String>) -> [Group] {
    var names: [String] = []
    for recording in recordings where !names.contains(recording[keyPath: key]) {
      names.append(recording[keyPath: key])
    }
    return names.sorted().compactMap { name in
      let members = recordings.filter { $0[keyPath: key] == name }
      guard
        let ours = Statistics(
          errors: members.map(\.error), counted: members.map(\.steps), truths: members.map(\.truth))
      else { return nil }
      let withBaseline = members.filter { $0.baselineSteps != nil }
      let baseline =
        withBaseline.count == members.count
        ? Statistics(
          errors: withBaseline.compactMap(\.baselineError),
          counted: withBaseline.compactMap(\.baselineSteps),
          truths: withBaseline.map(\.truth)) : nil
      let distanceErrors = members.compactMap(\.distanceError)
      return Group(
        name: name, ours: ours, baseline: baseline,
        distanceMAPE: distanceErrors.isEmpty
          ? nil : distanceErrors.map(abs).reduce(0, +) / Double(distanceErrors.count),
        distanceMeanSignedError: distanceErrors.isEmpty
          ? nil : distanceErrors.reduce(0, +) / Double(distanceErrors.count))
    }
  }
}
