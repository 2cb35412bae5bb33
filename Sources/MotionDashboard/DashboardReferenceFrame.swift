// SPDX-License-Identifier: Apache-2.0

import OpenCoreMotion

/// The attitude reference frames by the names the page and the frame format use (Apple's).
package enum DashboardReferenceFrame: String, CaseIterable, Sendable {
  case xArbitraryZVertical
  case xArbitraryCorrectedZVertical
  case xMagneticNorthZVertical
  case xTrueNorthZVertical

  package init?(_ frame: CMAttitudeReferenceFrame) {
    guard let match = Self.allCases.first(where: { $0.frame == frame }) else { return nil }
    self = match
  }

  package var frame: CMAttitudeReferenceFrame {
    switch self {
    case .xArbitraryZVertical: return .xArbitraryZVertical
    case .xArbitraryCorrectedZVertical: return .xArbitraryCorrectedZVertical
    case .xMagneticNorthZVertical: return .xMagneticNorthZVertical
    case .xTrueNorthZVertical: return .xTrueNorthZVertical
    }
  }
}
