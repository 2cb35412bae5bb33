// SPDX-License-Identifier: Apache-2.0

import Foundation

extension Date {
  /// `description`, except for a NaN date, on which Foundation's `Date.description` traps: the
  /// data classes' descriptions print their dates, and a NaN one can come from outside (a decoded
  /// archive, a daemon's answer) or from an app's own mock, and must not crash an app that logs it.
  var logDescription: String {
    timeIntervalSinceReferenceDate.isNaN ? "<NaN date>" : description
  }
}
