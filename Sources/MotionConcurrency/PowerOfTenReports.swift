// SPDX-License-Identifier: Apache-2.0

/// When a running total of refused, dropped or skipped things is worth a notice: the first time,
/// then each time the total reaches the next power of ten (optionally every one up to a first
/// few), so that a peer who keeps doing it is visible without a notice per occurrence.
package struct PowerOfTenReports: Sendable {
  /// The total counted with ``count(_:)``.
  package private(set) var total = 0
  /// The smallest total that is due the next notice.
  private var next = 1
  private let eachUpTo: Int

  /// Every total up to `eachUpTo` is reported, then the powers of ten beyond it.
  package init(reportingEachUpTo eachUpTo: Int = 1) {
    self.eachUpTo = eachUpTo
  }

  /// Whether the running total `total` (counted elsewhere) is due a notice; the schedule then
  /// moves past it.
  package mutating func isDue(total: Int) -> Bool {
    guard total >= next else { return false }
    if total < eachUpTo {
      next = total + 1
    } else {
      var power = 1
      while power <= total && power < Int.max {
        power = power > Int.max / 10 ? Int.max : power * 10
      }
      next = power
    }
    return true
  }

  /// Counts `increment` more; returns the new total when it is due a notice.
  package mutating func count(_ increment: Int = 1) -> Int? {
    total = total.addingReportingOverflow(increment).overflow ? Int.max : total + increment
    return isDue(total: total) ? total : nil
  }
}
