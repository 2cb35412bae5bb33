// SPDX-License-Identifier: Apache-2.0

// `import CoreMotion` on Linux: the whole Apple-compatible surface of OpenCoreMotion, plus the
// UIDevice orientation stand-in that Core Motion sample code usually imports from UIKit.
// This module is only built on Linux, so it never shadows Apple's framework.
// Foundation too, as Apple's module re-exports it: iOS files often import only CoreMotion and
// use `Date`, `OperationQueue` and `NSNumber`.
@_exported import Foundation
@_exported import OpenCoreMotion
@_exported import OpenUIDevice
