// SPDX-License-Identifier: Apache-2.0

/// Merges several timestamp-ordered streams (one per sensor file or sensor group) into one, in
/// timestamp order.
///
/// Samples from different parts with exactly the same timestamp become one sample carrying every
/// sensor that ticked (and their ground truth combined), so an export whose sensors share a clock
/// tick replays as synchronised samples, and one whose sensors tick independently replays with one
/// sensor per sample. Ties keep the order of `parts`.
struct MergedRecordingStream: RecordingRowStream {
  let descriptor: StreamDescriptor
  private var parts: [any RecordingRowStream]
  private var heads: [MotionSample?]
  private var isStarted = false
  private var isFinished = false

  init(parts: [any RecordingRowStream], descriptor: StreamDescriptor) {
    self.parts = parts
    self.heads = Array(repeating: nil, count: parts.count)
    self.descriptor = descriptor
  }

  /// Merges `parts` into a stream named `name` that has every part's sensors and no nominal rate
  /// (parts may tick at different rates); `hasGroundTruth` defaults to `false`, `sampleTiming`
  /// to sensor outputs.
  init(
    parts: [any RecordingRowStream], name: String, hasGroundTruth: Bool = false,
    metadata: [String: String], sampleTiming: SampleTiming = .sensorOutputs
  ) {
    let sensors = parts.reduce(SensorSet()) { $0.union($1.descriptor.sensors) }
    var descriptor = StreamDescriptor(
      name: name, sensors: sensors, nominalSampleRate: nil, hasGroundTruth: hasGroundTruth,
      metadata: metadata)
    descriptor.sampleTiming = sampleTiming
    self.init(parts: parts, descriptor: descriptor)
  }

  var skippedRowCount: Int { parts.reduce(0) { $0 + $1.skippedRowCount } }

  mutating func next() throws -> MotionSample? {
    guard !isFinished else { return nil }
    do {
      if !isStarted {
        isStarted = true
        for i in parts.indices { heads[i] = try parts[i].next() }
      }
      var earliest: Int?
      for i in heads.indices {
        guard let head = heads[i] else { continue }
        if earliest == nil || head.timestamp < heads[earliest!]!.timestamp { earliest = i }
      }
      guard let first = earliest else {
        isFinished = true
        return nil
      }
      var sample = heads[first]!
      heads[first] = try parts[first].next()
      for i in heads.indices where i != first {
        // A part may hold several samples at this instant only if its own rows repeat it; take one.
        if let head = heads[i], head.timestamp == sample.timestamp {
          sample.absorb(head)
          heads[i] = try parts[i].next()
        }
      }
      return sample
    } catch {
      isFinished = true
      throw error
    }
  }
}
