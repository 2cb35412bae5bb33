// SPDX-License-Identifier: Apache-2.0

/// Receives pedometer data (live updates and queries): the data, or an error.
public typealias CMPedometerHandler = (CMPedometerData?, (any Error)?) -> Void
/// Receives pedometer pause and resume events: an event, or an error.
public typealias CMPedometerEventHandler = (CMPedometerEvent?, (any Error)?) -> Void
/// Receives motion-activity updates. As in Apple's API it has no error parameter.
public typealias CMMotionActivityHandler = (CMMotionActivity?) -> Void
/// Receives the result of an activity query: the activities in time order, or an error.
public typealias CMMotionActivityQueryHandler = ([CMMotionActivity]?, (any Error)?) -> Void
/// Receives relative-altitude updates: a sample, or an error.
public typealias CMAltitudeHandler = (CMAltitudeData?, (any Error)?) -> Void
/// Receives absolute-altitude updates: a sample, or an error.
public typealias CMAbsoluteAltitudeHandler = (CMAbsoluteAltitudeData?, (any Error)?) -> Void
