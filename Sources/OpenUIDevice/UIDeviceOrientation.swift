// SPDX-License-Identifier: Apache-2.0

import MotionRecognition

/// UIKit's name for the device's physical orientation, so that ported code compiles unchanged.
///
/// The cases and raw values are UIKit's (`unknown` = 0 … `faceDown` = 6), as are `isPortrait`,
/// `isLandscape`, `isFlat` and `isValidInterfaceOrientation`; see `DeviceOrientation` (MotionRecognition).
public typealias UIDeviceOrientation = DeviceOrientation
