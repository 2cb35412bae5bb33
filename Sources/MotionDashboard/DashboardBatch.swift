// SPDX-License-Identifier: Apache-2.0

/// Everything the feed collected since the last frame went out: the rows of each stream, the
/// events, and the latest state values. The broadcaster takes it, writes one JSON frame, and starts
/// a new one.
///
/// Rows are bounded (``maximumRows`` per stream): a source far faster than the frame rate cannot
/// grow a batch without limit; rows beyond it are counted in ``droppedRows``.
package struct DashboardBatch: Sendable {
  /// The most rows of one stream kept per batch (2 s at 1 kHz between two 33 ms frames is far
  /// below).
  package static let maximumRows = 256

  /// Device motion rows: `[t, qw, qx, qy, qz, gravity x y z, user x y z, rotation x y z, field x y
  /// z, accuracy, heading]` (see docs/Dashboard.md).
  package var motion: [[Double]] = []
  /// Accelerometer rows `[t, x, y, z]` in g.
  package var accelerometer: [[Double]] = []
  /// Gyroscope rows `[t, x, y, z]` in rad/s.
  package var gyroscope: [[Double]] = []
  /// Magnetometer rows `[t, x, y, z]` in µT.
  package var magnetometer: [[Double]] = []
  /// Barometer rows `[t, pressure kPa, relative altitude m]`.
  package var pressure: [[Double]] = []
  /// Events in arrival order.
  package var events: [DashboardEvent] = []
  /// Rows that did not fit.
  package var droppedRows = 0

  package init() {}

  /// Each stream's rows under the name the frames give it, in frame order (the JSON arrays,
  /// the binary blocks and the latest row time all follow this one list).
  package var namedRows: [(name: String, rows: [[Double]])] {
    [
      ("motion", motion), ("accelerometer", accelerometer), ("gyroscope", gyroscope),
      ("magnetometer", magnetometer), ("pressure", pressure),
    ]
  }

  package var isEmpty: Bool {
    motion.isEmpty && accelerometer.isEmpty && gyroscope.isEmpty && magnetometer.isEmpty
      && pressure.isEmpty && events.isEmpty
  }

  /// The streams of rows (a switch rather than a key path: this runs for every sample, and a
  /// key-path write goes through the runtime).
  package enum Stream: Sendable {
    case motion, accelerometer, gyroscope, magnetometer, pressure
  }

  package mutating func append(_ row: [Double], to stream: Stream) {
    switch stream {
    case .motion: Self.append(row, to: &motion, dropped: &droppedRows)
    case .accelerometer: Self.append(row, to: &accelerometer, dropped: &droppedRows)
    case .gyroscope: Self.append(row, to: &gyroscope, dropped: &droppedRows)
    case .magnetometer: Self.append(row, to: &magnetometer, dropped: &droppedRows)
    case .pressure: Self.append(row, to: &pressure, dropped: &droppedRows)
    }
  }

  private static func append(_ row: [Double], to rows: inout [[Double]], dropped: inout Int) {
    if rows.count < maximumRows { rows.append(row) } else { dropped += 1 }
  }

  package mutating func append(_ event: DashboardEvent) {
    if events.count < Self.maximumRows { events.append(event) } else { droppedRows += 1 }
  }
}

/// One recognised event for the timeline.
package struct DashboardEvent: Sendable, Equatable {
  /// Seconds on the source's clock.
  package var time: Double
  /// `orientation`, `shake`, `tap`, `movement`, `step`, `activity`, `floor`, `source`.
  package var kind: String
  /// A short human-readable detail (`began`, `left side`, `up`, `portrait`, …).
  package var detail: String

  package init(time: Double, kind: String, detail: String) {
    self.time = time
    self.kind = kind
    self.detail = detail
  }
}
