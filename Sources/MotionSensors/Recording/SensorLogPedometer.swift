// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What Apple's own `CMPedometer` counted, as a SensorLog log records it beside the sensors:
/// `pedometerNumberofSteps(N)`, `pedometerDistance(m)`, `pedometerFloorAscended(N)` and
/// `pedometerFloorDescended(N)`, cumulative since SensorLog started pedometer updates with the
/// log, repeated on every row until they change. The last row's values are the log's totals, to
/// set beside ours (`motionctl steps`).
public enum SensorLogPedometer {
  /// Apple's totals over a log.
  public struct Totals: Sendable, Equatable {
    /// Steps Apple's pedometer counted over the log.
    public var steps: Int
    /// Distance Apple's pedometer measured over the log, m; `nil` when the log has none.
    public var distance: Double?
    /// Floors climbed over the log; `nil` when the log has no such column or value.
    public var floorsAscended: Int?
    /// Floors gone down over the log; `nil` when the log has no such column or value.
    public var floorsDescended: Int?

    /// Totals of `steps`, and of distance (m) and floors when logged.
    public init(steps: Int, distance: Double?, floorsAscended: Int?, floorsDescended: Int?) {
      self.steps = steps
      self.distance = distance
      self.floorsAscended = floorsAscended
      self.floorsDescended = floorsDescended
    }
  }

  /// The largest count taken as a count: more steps than a person takes in years is not one.
  static let largestCount = 1_000_000_000.0

  /// Apple's totals in the SensorLog log at `url` (a CSV, or a zip holding one): the values of
  /// the last row whose step count is a number. `nil` when the file is not a SensorLog log, has
  /// no pedometer columns, or no row with a count (pedometer switched off, or no step yet
  /// reported). A cell that is not a plausible count or distance (negative, fractional beyond
  /// rounding, not finite, beyond ``largestCount``) is left out of the answer, never trapped on.
  ///
  /// - Throws: a ``RecordingError`` when the file cannot be read.
  public static func totals(in url: URL) throws -> Totals? {
    do {
      guard try RecordingFormat.detect(url) == .sensorLog else { return nil }
    } catch let error as RecordingError where error.kind == .unknownFormat {
      return nil  // a layout no reader detects (the shared steps table): not SensorLog's
    }
    var table = try SensorLogCSV.openTable(url)
    guard let stepsColumn = table.index("pedometerNumberofSteps") else { return nil }
    let distanceColumn = table.index("pedometerDistance")
    let ascendedColumn = table.index("pedometerFloorAscended")
    let descendedColumn = table.index("pedometerFloorDescended")
    let decimalComma = table.decimalComma

    var fields: [CSVField] = []
    var latest: Totals?
    while try table.cursor.nextRow(into: &fields) {
      let bytes = table.cursor.bytes
      func number(_ column: Int?) -> Double? {
        guard let column, column < fields.count,
          let value = try? bytes.double(fields[column], decimalComma: decimalComma),
          value.isFinite, value >= 0, value <= largestCount
        else { return nil }
        return value
      }
      func count(_ column: Int?) -> Int? {
        guard let value = number(column), abs(value - value.rounded()) < 1e-6 else { return nil }
        return Int(value.rounded())  // bounded above: exact
      }
      guard let steps = count(stepsColumn) else { continue }
      latest = Totals(
        steps: steps, distance: number(distanceColumn), floorsAscended: count(ascendedColumn),
        floorsDescended: count(descendedColumn))
    }
    return latest
  }
}
