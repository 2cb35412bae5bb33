// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// The feature vectors of one labelled file (computed once, reused by every fold).
public struct ActivityFeatureSet: Sendable {
  public var entry: ActivityDataset.Entry
  /// One ``ActivityFeatureExtractor`` vector per window.
  public var features: [[Double]]
  /// The end time of each window, s.
  public var times: [Double]

  /// Runs the extractor over a recording.
  public static func extract(
    _ recording: ActivityRecording
  ) -> (features: [[Double]], times: [Double]) {
    var extraction = Extraction()
    for (time, a) in zip(recording.times, recording.acceleration) {
      extraction.add(time: time, acceleration: a)
    }
    return (extraction.features, extraction.times)
  }

  /// Runs the extractor over the file at `url` while reading it
  /// (``ActivityRecording/read(_:body:)``): the same vectors as ``extract(_:)`` of the loaded
  /// recording, without holding its samples.
  ///
  /// - Throws: what ``ActivityRecording/read(_:body:)`` throws.
  package static func extract(
    contentsOf url: URL
  ) throws -> (features: [[Double]], times: [Double]) {
    var extraction = Extraction()
    try ActivityRecording.read(url) { extraction.add(time: $0, acceleration: $1) }
    return (extraction.features, extraction.times)
  }

  /// The extractor and what it has yielded so far, shared by the loaded and the streamed paths so
  /// that they cannot drift apart.
  private struct Extraction {
    var extractor = ActivityFeatureExtractor()
    var features: [[Double]] = []
    var times: [Double] = []

    mutating func add(time: Double, acceleration: SIMD3<Double>) {
      guard extractor.process(time: time, acceleration: acceleration) else { return }
      features.append(extractor.features)
      times.append(time)
    }
  }

  /// Reads and extracts every entry, using up to `concurrency` threads. Each file is streamed
  /// through the extractor, so a worker holds one file's feature vectors (one a second), not its
  /// samples.
  public static func load(
    _ dataset: ActivityDataset, concurrency: Int = 2
  ) throws -> [ActivityFeatureSet] {
    let entries = dataset.entries
    let results = ResultSlots(count: entries.count)
    DispatchQueue.concurrentPerform(iterations: max(1, concurrency)) { worker in
      var i = worker
      while i < entries.count {
        results.set(
          i,
          Result { () throws -> ActivityFeatureSet in
            let (features, times) = try extract(contentsOf: entries[i].url)
            return ActivityFeatureSet(entry: entries[i], features: features, times: times)
          })
        i += max(1, concurrency)
      }
    }
    return try results.values.map { try $0!.get() }
  }
}

/// Result slots written by `concurrentPerform` workers.
// @unchecked Sendable: every access to `values` holds `lock`.
private final class ResultSlots: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Result<ActivityFeatureSet, any Error>?]
  init(count: Int) { storage = .init(repeating: nil, count: count) }
  func set(_ index: Int, _ value: Result<ActivityFeatureSet, any Error>) {
    lock.lock()
    storage[index] = value
    lock.unlock()
  }
  var values: [Result<ActivityFeatureSet, any Error>?] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }
}
