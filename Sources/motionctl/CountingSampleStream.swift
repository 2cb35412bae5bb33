// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// A recording stream that counts what it delivered, so that a command can tell an empty recording
/// (a header with no rows) and skipped rows after the stream has been consumed elsewhere.
struct CountingSampleStream: SampleStream {
  /// The counts, shared with the command that made the stream.
  final class Tally: Sendable {
    private let counts = Locked<(samples: Int, skipped: Int)>((0, 0))
    /// Samples delivered so far.
    var sampleCount: Int { counts.withLock { $0.samples } }
    /// Rows the reader skipped so far (``RecordingReader/InvalidRowPolicy/skip``).
    var skippedRowCount: Int { counts.withLock { $0.skipped } }
    fileprivate func update(samples: Int, skipped: Int) {
      counts.withLock { $0 = (samples, skipped) }
    }
  }

  private var base: RecordingStream
  private var delivered = 0
  /// The counts.
  let tally = Tally()

  init(_ base: RecordingStream) { self.base = base }

  var descriptor: StreamDescriptor { base.descriptor }

  mutating func next() throws -> MotionSample? {
    defer { tally.update(samples: delivered, skipped: base.skippedRowCount) }
    guard let sample = try base.next() else { return nil }
    delivered += 1
    return sample
  }
}
