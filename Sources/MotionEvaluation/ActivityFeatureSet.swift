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
    var extractor = ActivityFeatureExtractor()
    var features: [[Double]] = []
    var times: [Double] = []
    for (time, a) in zip(recording.times, recording.acceleration)
    where extractor.process(time: time, acceleration: a) {
      features.append(extractor.features)
      times.append(time)
    }
    return (features, times)
  }

  /// Loads and extracts every entry, using up to `concurrency` threads.
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
            let recording = try ActivityRecording.load(entries[i].url)
            let (features, times) = extract(recording)
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
