// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors

/// A stretch of a recording with one reported activity (the JSON of `motionctl activity`).
public struct ActivitySegment: Codable, Sendable, Equatable {
  /// Start and end, s on the recording's clock.
  public var start: Double
  public var end: Double
  public var stationary: Bool
  public var walking: Bool
  public var running: Bool
  public var cycling: Bool
  public var automotive: Bool
  public var unknown: Bool
  /// `low`, `medium` or `high`.
  public var confidence: String

  public init(_ estimate: ActivityEstimate, start: Double, end: Double) {
    self.start = start
    self.end = end
    stationary = estimate.stationary
    walking = estimate.walking
    running = estimate.running
    cycling = estimate.cycling
    automotive = estimate.automotive
    unknown = estimate.unknown
    confidence =
      switch estimate.confidence {
      case .low: "low"
      case .medium: "medium"
      case .high: "high"
      }
  }

  /// Runs a classifier over a recording: one segment per reported estimate, the first (unknown)
  /// from the first sample, the last up to the last sample.
  public static func segments(
    of recording: ActivityRecording, parameters: ActivityClassifier.Parameters = .default
  ) -> [ActivitySegment] {
    var segmenter = Segmenter(parameters: parameters)
    for (time, a) in zip(recording.times, recording.acceleration) { segmenter.add(time, a) }
    return segmenter.segments
  }

  /// The segments of a recording file, classified while it is read: memory holds the segments,
  /// not the samples (``ActivityRecording/read(_:body:)``).
  public static func segments(
    reading url: URL, parameters: ActivityClassifier.Parameters = .default
  ) throws -> (segments: [ActivitySegment], summary: ActivityRecording.Summary) {
    var segmenter = Segmenter(parameters: parameters)
    let summary = try ActivityRecording.read(url) { segmenter.add($0, $1) }
    return (segmenter.segments, summary)
  }

  /// The classifier over samples in order, keeping each change of its estimate.
  private struct Segmenter {
    var classifier: ActivityClassifier
    var estimates: [(ActivityEstimate, Double)] = []
    var last: Double?

    init(parameters: ActivityClassifier.Parameters) {
      classifier = ActivityClassifier(parameters: parameters)
    }

    mutating func add(_ time: Double, _ acceleration: SIMD3<Double>) {
      if estimates.isEmpty { estimates.append((classifier.current, time)) }
      if let estimate = classifier.process(time: time, acceleration: acceleration) {
        estimates.append((estimate, time))
      }
      last = time
    }

    var segments: [ActivitySegment] {
      guard let last else { return [] }
      return estimates.indices.map { i in
        ActivitySegment(
          estimates[i].0, start: estimates[i].1,
          end: i + 1 < estimates.count ? estimates[i + 1].1 : last)
      }
    }
  }

  /// The flags as text (`"automotive+stationary"`).
  public var activityDescription: String {
    let flags = [
      ("stationary", stationary), ("walking", walking), ("running", running), ("cycling", cycling),
      ("automotive", automotive), ("unknown", unknown),
    ].filter(\.1).map(\.0)
    return flags.isEmpty ? "none" : flags.joined(separator: "+")
  }
}
