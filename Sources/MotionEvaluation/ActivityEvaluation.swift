// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// Leave-subjects-out evaluation of ``ActivityClassifier``: for each fold, an ``ActivityModel`` is
/// trained (``ActivityTrainer``) on every subject outside the fold, of every source, and the whole
/// classifier (features, model, forward filter, hysteresis) is replayed on the fold's files.
///
/// Folds: a source with more than four subjects is split into pairs in subject order (MotionSense:
/// 7 folds of 2), otherwise each subject is its own fold (QROWD). Scored windows: every feature
/// vector (1 s apart, from 5 s into each file); the prediction is the class reported after it
/// (`unknown` counts as wrong). Switching delays are measured on concatenations of each held-out
/// subject's files (see ``switchSequences``), with that fold's model, sample by sample.
public enum ActivityEvaluation {
  /// The README's softmax baselines (recall per class, mean recall), per source.
  public static let baselines: [String: (classes: [ActivityClass: Double], mean: Double)] = [
    "motionsense": ([.stationary: 0.997, .walking: 0.981, .running: 0.976], 0.985),
    "qrowd": ([.stationary: 0.920, .walking: 0.934, .cycling: 0.936, .automotive: 0.824], 0.904),
  ]

  /// The folds: lists of subjects held out together, with a description per source.
  public static func folds(
    _ sets: [ActivityFeatureSet]
  ) -> (folds: [[String]], descriptions: [String: String]) {
    var subjectsBySource: [String: Set<String>] = [:]
    for set in sets { subjectsBySource[set.entry.source, default: []].insert(set.entry.subject) }
    var folds: [[String]] = []
    var descriptions: [String: String] = [:]
    for source in subjectsBySource.keys.sorted() {
      let subjects = subjectsBySource[source]!.sorted()
      let size = subjects.count > 4 ? 2 : 1
      let sourceFolds = stride(from: 0, to: subjects.count, by: size).map {
        Array(subjects[$0..<min($0 + size, subjects.count)])
      }
      folds += sourceFolds
      descriptions[source] =
        "leave-\(size)-subject\(size > 1 ? "s" : "")-out, \(sourceFolds.count) folds"
    }
    return (folds, descriptions)
  }

  /// Runs the evaluation.
  ///
  /// - Parameters:
  ///   - sets: every file's features (``ActivityFeatureSet/load(_:concurrency:)``).
  ///   - parameters: classifier parameters (the model is replaced per fold).
  ///   - settings: training settings.
  ///   - switching: whether to measure switching delays (reads the held-out files again).
  ///   - concurrency: folds trained at once.
  public static func evaluate(
    _ sets: [ActivityFeatureSet], parameters: ActivityClassifier.Parameters = .default,
    settings: ActivityTrainer.Settings = .init(), switching: Bool = true, concurrency: Int = 2
  ) throws -> ActivityEvaluationResult {
    let (folds, descriptions) = folds(sets)
    // Each fold's model learns from the subjects outside it: with one subject there are none,
    // and an untrained model's 0 % would look like a result.
    let subjects = Set(sets.map(\.entry.subject))
    guard subjects.count >= 2 else {
      throw ActivityEvaluationError(
        "leave-subjects-out needs at least two subjects (the model of each fold is trained on "
          + "the others); these files have \(subjects.count)")
    }
    let k = ActivityClass.count
    let outcomes = FoldSlots(count: folds.count)
    DispatchQueue.concurrentPerform(iterations: max(1, concurrency)) { worker in
      var f = worker
      while f < folds.count {
        let held = Set(folds[f])
        let model = ActivityTrainer.train(
          ActivityTrainer.examples(sets.filter { !held.contains($0.entry.subject) }),
          settings: settings)
        var classifierParameters = parameters
        classifierParameters.model = model
        var confusion: [String: [[Int]]] = [:]
        for set in sets where held.contains(set.entry.subject) {
          var classifier = ActivityClassifier(parameters: classifierParameters)
          var matrix =
            confusion[set.entry.source]
            ?? .init(repeating: .init(repeating: 0, count: k + 1), count: k)
          for (features, time) in zip(set.features, set.times) {
            _ = classifier.process(features: features, time: time)
            matrix[set.entry.label.rawValue][classifier.reported?.rawValue ?? k] += 1
          }
          confusion[set.entry.source] = matrix
        }
        var switches: [ActivityEvaluationResult.Switch] = []
        var gatedSteps: [ActivityEvaluationResult.GatedSteps] = []
        var failure: (any Error)?
        if switching {
          do {
            for (source, subject, sequence) in try switchSequences(
              sets.filter { held.contains($0.entry.subject) })
            {
              switches += measureSwitches(
                sequence, parameters: classifierParameters, source: source, subject: subject)
              gatedSteps += countGatedSteps(
                sequence, parameters: classifierParameters, source: source)
            }
          } catch { failure = error }
        }
        outcomes.set(
          f,
          FoldOutcome(
            confusion: confusion, switches: switches, gatedSteps: gatedSteps,
            failure: failure.map { "\($0)" }))
        f += max(1, concurrency)
      }
    }
    var confusion: [String: [[Int]]] = [:]
    var switches: [ActivityEvaluationResult.Switch] = []
    var gatedSteps: [ActivityEvaluationResult.GatedSteps] = []
    for outcome in outcomes.values {
      guard let outcome else { continue }
      if let failure = outcome.failure { throw ActivityEvaluationError(failure) }
      for (source, matrix) in outcome.confusion {
        var total =
          confusion[source] ?? .init(repeating: .init(repeating: 0, count: k + 1), count: k)
        for r in 0..<k { for c in 0...k { total[r][c] += matrix[r][c] } }
        confusion[source] = total
      }
      switches += outcome.switches
      gatedSteps += outcome.gatedSteps
    }
    let sources = confusion.keys.sorted().map { source in
      score(source: source, matrix: confusion[source]!, folds: descriptions[source] ?? "")
    }
    let delays = switches.compactMap(\.delay)
    return ActivityEvaluationResult(
      sources: sources, switches: switches,
      meanSwitchDelay: delays.isEmpty ? nil : delays.reduce(0, +) / Double(delays.count),
      maximumSwitchDelay: delays.max(), missedSwitches: switches.count - delays.count,
      gatedSteps: ActivityEvaluationResult.GatedSteps.totals(gatedSteps))
  }

  static func score(
    source: String, matrix: [[Int]], folds: String
  ) -> ActivityEvaluationResult.SourceScore {
    let baseline = baselines[source]
    var classes: [ActivityEvaluationResult.ClassScore] = []
    var right = 0
    var all = 0
    for activity in ActivityClass.allCases {
      let row = matrix[activity.rawValue]
      let windows = row.reduce(0, +)
      right += row[activity.rawValue]
      all += windows
      guard windows > 0 else { continue }
      classes.append(
        .init(
          label: activity.description, windows: windows,
          recall: Double(row[activity.rawValue]) / Double(windows),
          baselineRecall: baseline?.classes[activity]))
    }
    let mean = classes.isEmpty ? 0 : classes.map(\.recall).reduce(0, +) / Double(classes.count)
    return .init(
      source: source, folds: folds, classes: classes, meanRecall: mean,
      baselineMeanRecall: baseline?.mean,
      windowAccuracy: all > 0 ? Double(right) / Double(all) : 0,
      predictedLabels: ActivityClass.allCases.map(\.description) + ["unknown"], confusion: matrix)
  }

  /// A concatenation: (label, times, accelerations) segments laid end to end.
  public typealias Sequence = [(
    label: ActivityClass, times: [Double], acceleration: [SIMD3<Double>]
  )]

  /// The label order of a concatenation per source (classes a subject lacks are skipped).
  static let orders: [String: [ActivityClass]] = [
    "motionsense": [.stationary, .walking, .running, .walking, .stationary, .running, .stationary],
    "qrowd": [.stationary, .walking, .cycling, .walking, .automotive, .walking, .stationary],
  ]

  /// Builds, per held-out subject, a concatenation of segments of its files in a fixed label order
  /// (MotionSense: 40 s pieces; QROWD: 120 s pieces from the middle of each file, which may join
  /// several trips). Pieces skip each file's first and last 5 s, where the phone is handled.
  /// Files are streamed (see ``middlePiece(of:length:from:)``): only the pieces are held.
  public static func switchSequences(
    _ sets: [ActivityFeatureSet]
  ) throws -> [(String, String, Sequence)] {
    var result: [(String, String, Sequence)] = []
    let groups = Dictionary(grouping: sets) { "\($0.entry.source)|\($0.entry.subject)" }
    for key in groups.keys.sorted() {
      let files = groups[key]!.sorted { $0.entry.name < $1.entry.name }
      let source = files[0].entry.source
      let subject = files[0].entry.subject
      let length = source == "qrowd" ? 120.0 : 40.0
      var used: [ActivityClass: Int] = [:]
      var sequence: Sequence = []
      var clock = 0.0
      for label in orders[source] ?? ActivityClass.allCases {
        let candidates = files.filter { $0.entry.label == label }
        guard !candidates.isEmpty else { continue }
        let pick = candidates[used[label, default: 0] % candidates.count]
        used[label, default: 0] += 1
        guard let piece = try middlePiece(of: pick.entry.url, length: length, from: clock)
        else { continue }
        clock = piece.nextClock
        sequence.append((label, piece.times, piece.acceleration))
      }
      result.append((source, subject, sequence))
    }
    return result
  }

  /// The middle `length` seconds of the file at `url` without its first and last 5 s, moved to
  /// start at `clock`, and the clock for the piece after it (its last time plus the last sample
  /// interval, 0.02 s when the piece is the file's first sample); `nil` when the file spans 20 s or
  /// less or the piece holds no sample.
  ///
  /// Where the piece lies depends on the file's last time, so the file is read twice, as a stream,
  /// instead of being loaded: once for its time span, once for the samples of the piece, which
  /// are all that is kept.
  private static func middlePiece(
    of url: URL, length: Double, from clock: Double
  ) throws -> (times: [Double], acceleration: [SIMD3<Double>], nextClock: Double)? {
    var first: Double?
    var last: Double?
    try ActivityRecording.read(url) { time, _ in
      if first == nil { first = time }
      last = time
    }
    guard let first, let last, last - first > 20 else { return nil }
    let usable = (last - first) - 10
    let start = first + 5 + max(0, (usable - length) / 2)
    let end = start + min(length, usable)
    var times: [Double] = []
    var acceleration: [SIMD3<Double>] = []
    var period = 0.02
    var isFirstSample = true
    var previous = 0.0
    try ActivityRecording.read(url) { time, a in
      defer {
        isFirstSample = false
        previous = time
      }
      guard time >= start && time < end else { return }
      if !isFirstSample { period = time - previous }
      times.append(clock + time - start)
      acceleration.append(a)
    }
    guard let lastTime = times.last else { return nil }
    return (times, acceleration, lastTime + period)
  }

  /// Runs a classifier through a concatenation; one ``ActivityEvaluationResult/Switch`` per change
  /// of label.
  public static func measureSwitches(
    _ sequence: Sequence, parameters: ActivityClassifier.Parameters, source: String, subject: String
  ) -> [ActivityEvaluationResult.Switch] {
    var classifier = ActivityClassifier(parameters: parameters)
    var switches: [ActivityEvaluationResult.Switch] = []
    var previous: ActivityClass?
    for segment in sequence {
      var delay: Double?
      let change = segment.times.first ?? 0
      for (time, a) in zip(segment.times, segment.acceleration) {
        _ = classifier.process(time: time, acceleration: a)
        if delay == nil, classifier.reported == segment.label { delay = time - change }
      }
      if let previous, previous != segment.label {
        switches.append(
          .init(
            source: source, subject: subject, from: previous.description,
            to: segment.label.description, delay: delay))
      }
      previous = segment.label
    }
    return switches
  }

  /// Runs the pedometer's step path (a ``PedometerTracker`` whose classifier has `parameters`) through a concatenation, and counts per label the steps the
  /// detector found and the steps the gate let through, by each step's time. The concatenations
  /// put walking after a ride, so this measures both what the gate is for (a ride's steps left
  /// out) and what it costs (a walk's first steps held while the classifier still reports the
  /// ride).
  public static func countGatedSteps(
    _ sequence: Sequence, parameters: ActivityClassifier.Parameters, source: String,
    gateParameters: RidingStepGate.Parameters = .default
  ) -> [ActivityEvaluationResult.GatedSteps] {
    var tracker = PedometerTracker(activityParameters: parameters, ridingGate: gateParameters)
    var detected: [Double] = []
    var counted: [Double] = []
    for segment in sequence {
      for (time, a) in zip(segment.times, segment.acceleration) {
        if let step = tracker.process(time: time, acceleration: a).detectedStep {
          detected.append(step)
        }
        while let step = tracker.nextStep() { counted.append(step) }
      }
    }
    while let step = tracker.flushQueuedStep() {
      detected.append(step)
      while let step = tracker.nextStep() { counted.append(step) }
    }
    tracker.finish()
    while let step = tracker.nextStep() { counted.append(step) }
    func count(_ steps: [Double], from start: Double, to end: Double) -> Int {
      steps.reduce(0) { $0 + ($1 >= start && $1 < end ? 1 : 0) }
    }
    var tallies: [ActivityEvaluationResult.GatedSteps] = []
    for (index, segment) in sequence.enumerated() {
      guard let start = segment.times.first else { continue }
      let end = sequence[(index + 1)...].first { !$0.times.isEmpty }?.times.first ?? .infinity
      tallies.append(
        .init(
          source: source, label: segment.label.description,
          detected: count(detected, from: start, to: end),
          counted: count(counted, from: start, to: end)))
    }
    return tallies
  }

  /// Trains the shipped model on every given file.
  public static func trainFinal(
    _ sets: [ActivityFeatureSet], settings: ActivityTrainer.Settings = .init()
  ) -> ActivityModel {
    ActivityTrainer.train(ActivityTrainer.examples(sets), settings: settings)
  }
}

/// What one fold contributes.
private struct FoldOutcome: Sendable {
  var confusion: [String: [[Int]]]
  var switches: [ActivityEvaluationResult.Switch]
  var gatedSteps: [ActivityEvaluationResult.GatedSteps]
  var failure: String?
}

/// Per-fold results written by `concurrentPerform` workers.
// @unchecked Sendable: every access to `storage` holds `lock`.
private final class FoldSlots: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [FoldOutcome?]
  init(count: Int) { storage = .init(repeating: nil, count: count) }
  func set(_ index: Int, _ value: FoldOutcome) {
    lock.lock()
    storage[index] = value
    lock.unlock()
  }
  var values: [FoldOutcome?] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }
}
