// SPDX-License-Identifier: Apache-2.0

/// Receives accelerometer updates: a sample, or an error (one of them is `nil`).
public typealias CMAccelerometerHandler = (CMAccelerometerData?, (any Error)?) -> Void
/// Receives raw gyroscope updates: a sample, or an error.
public typealias CMGyroHandler = (CMGyroData?, (any Error)?) -> Void
/// Receives raw magnetometer updates: a sample, or an error.
public typealias CMMagnetometerHandler = (CMMagnetometerData?, (any Error)?) -> Void
/// Receives device-motion updates: a sample, or an error (after which you should stop updates).
public typealias CMDeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void
