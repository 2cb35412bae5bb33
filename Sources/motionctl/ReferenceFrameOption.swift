// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import OpenCoreMotion

/// `--frame`: a Core Motion reference frame by Apple's name or a short alias.
enum ReferenceFrameOption: String, ExpressibleByArgument, CaseIterable {
  case arbitrary
  case arbitraryCorrected = "arbitrary-corrected"
  case magneticNorth = "magnetic-north"
  case trueNorth = "true-north"

  init?(argument: String) {
    switch argument {
    case "arbitrary", "xArbitraryZVertical": self = .arbitrary
    case "arbitrary-corrected", "xArbitraryCorrectedZVertical": self = .arbitraryCorrected
    case "magnetic-north", "xMagneticNorthZVertical": self = .magneticNorth
    case "true-north", "xTrueNorthZVertical": self = .trueNorth
    default: return nil
    }
  }

  static var allValueStrings: [String] {
    allCases.map(\.rawValue) + [
      "xArbitraryZVertical", "xArbitraryCorrectedZVertical",
      "xMagneticNorthZVertical", "xTrueNorthZVertical",
    ]
  }

  var frame: CMAttitudeReferenceFrame {
    switch self {
    case .arbitrary: return .xArbitraryZVertical
    case .arbitraryCorrected: return .xArbitraryCorrectedZVertical
    case .magneticNorth: return .xMagneticNorthZVertical
    case .trueNorth: return .xTrueNorthZVertical
    }
  }
}
