// SPDX-License-Identifier: Apache-2.0
// swift-format-ignore-file: AlwaysUseLowerCamelCase

import Foundation
import MotionSensors

/// A Core Motion error code (100 … 113), delivered to handlers as
/// `NSError(domain: CMErrorDomain, code: Int(code.rawValue))`.
///
/// As in Apple's Swift overlay this is a struct, and the codes are global constants
/// (`CMErrorTrueNorthNotAvailable`, …) rather than cases.
public struct CMError: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt32

  public init(rawValue: UInt32) {
    self.rawValue = rawValue
  }

  public init(_ rawValue: UInt32) {
    self.rawValue = rawValue
  }
}

/// The error domain of Core Motion errors: the string `"CMErrorDomain"`.
public let CMErrorDomain: String = "CMErrorDomain"

/// No error (100).
public var CMErrorNULL: CMError { CMError(100) }
/// The device must move before motion data can be produced (101).
public var CMErrorDeviceRequiresMovement: CMError { CMError(101) }
/// True north is not available: no magnetometer or no magnetic declination (102).
public var CMErrorTrueNorthNotAvailable: CMError { CMError(102) }
/// An unknown error, including a failure of the sensor source (103).
public var CMErrorUnknown: CMError { CMError(103) }
/// Motion activity is not available (104).
public var CMErrorMotionActivityNotAvailable: CMError { CMError(104) }
/// The app is not authorized for motion activity (105).
public var CMErrorMotionActivityNotAuthorized: CMError { CMError(105) }
/// The app lacks the motion activity entitlement (106).
public var CMErrorMotionActivityNotEntitled: CMError { CMError(106) }
/// A parameter was invalid (107).
public var CMErrorInvalidParameter: CMError { CMError(107) }
/// The action was invalid (108).
public var CMErrorInvalidAction: CMError { CMError(108) }
/// The requested service is not available (109).
public var CMErrorNotAvailable: CMError { CMError(109) }
/// The app lacks a required entitlement (110).
public var CMErrorNotEntitled: CMError { CMError(110) }
/// The app is not authorized (111).
public var CMErrorNotAuthorized: CMError { CMError(111) }
/// No data was returned (112).
public var CMErrorNilData: CMError { CMError(112) }
/// The data had the wrong size (113).
public var CMErrorSize: CMError { CMError(113) }

extension NSError {
  /// A Core Motion error with an optional explanation for people.
  convenience init(_ code: CMError, description: String? = nil) {
    var userInfo: [String: Any] = [:]
    if let description { userInfo[NSLocalizedDescriptionKey] = description }
    self.init(domain: CMErrorDomain, code: Int(code.rawValue), userInfo: userInfo)
  }

  /// A source failure as handlers receive it: `CMErrorUnknown` with the source's message; an
  /// advisory (non-fatal) failure carries ``sourceFailureIsAdvisoryKey`` = `true`.
  convenience init(_ failure: SourceFailure) {
    var userInfo: [String: Any] = [NSLocalizedDescriptionKey: failure.message]
    if !failure.isFatal { userInfo[sourceFailureIsAdvisoryKey] = true }
    self.init(domain: CMErrorDomain, code: Int(CMErrorUnknown.rawValue), userInfo: userInfo)
  }

  /// Whether this error reports an advisory source failure: updates continue after it.
  public var isAdvisorySourceFailure: Bool { userInfo[sourceFailureIsAdvisoryKey] as? Bool == true }
}

/// The `userInfo` key marking an error delivered for an advisory `SourceFailure` (one bad
/// message, samples dropped for arriving late): updates continue after it. An addition to Apple's
/// API.
public let sourceFailureIsAdvisoryKey = "OpenCoreMotionSourceFailureIsAdvisory"

extension NSError {
}
