// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

/// What the daemon reports about itself when a client connects.
public struct DaemonServerInfo: Sendable, Equatable {
  /// The name of the daemon's sensor source (as `motionctl sensors` shows it).
  public var sourceName: String
  /// The sensors the daemon's source delivers. In ``DaemonClient/serverInfo`` it follows the
  /// daemon's notices: a phone source drops the gyroscope once it learns the phone has none.
  public var availableSensors: SensorSet
  /// The sample rates in Hz a subscription may ask for; requests outside are clamped to it.
  public var supportedSampleRates: ClosedRange<Double>
  /// Whether the user allowed motion history, so that pedometer, activity and
  /// recorded-accelerometer queries are answered (`CMErrorMotionActivityNotAuthorized` otherwise).
  public var historyAuthorized: Bool
  /// Whether the daemon serves its fused motion (``DaemonStreamRequest/fusedMotion``); not while
  /// its source lacks a gyroscope.
  public var servesFusedMotion: Bool
}

/// Pedometer totals over a date range (from the daemon's per-minute history).
public struct DaemonPedometerTotals: Sendable, Equatable {
  /// The start of the range the totals cover.
  public var startDate: Date
  /// The end of the range the totals cover.
  public var endDate: Date
  /// Steps counted in the range.
  public var steps: Double
  /// Distance walked or run in the range, m.
  public var distance: Double
  /// Floors climbed in the range (about 3 m of ascent each, as `CMPedometerData`).
  public var floorsAscended: Double
  /// Floors gone down in the range.
  public var floorsDescended: Double
  /// s spent stepping
  public var activeTime: Double
  /// The daemon's live counters when it answered (the totals include every step they count);
  /// `nil` from a daemon that does not send them.
  public var counters: DaemonPedometerReading?
}

/// One activity segment (the activity in force from `startDate` until the next segment).
public struct DaemonActivitySegment: Sendable, Equatable {
  /// When the activity began (wall clock).
  public var startDate: Date
  /// Source clock, s.
  public var timestamp: Double
  /// The device is not moving (`CMMotionActivity.stationary`); the flags below are set likewise,
  /// several at once when they apply together.
  public var stationary: Bool
  /// The user is walking.
  public var walking: Bool
  /// The user is running.
  public var running: Bool
  /// The user is cycling.
  public var cycling: Bool
  /// The device is in a vehicle.
  public var automotive: Bool
  /// The activity could not be told (`CMMotionActivity.unknown`).
  public var unknown: Bool
  /// 0 low, 1 medium, 2 high (`CMMotionActivityConfidence`).
  public var confidence: Int
}

/// One recorded accelerometer sample (`CMRecordedAccelerometerData`).
public struct DaemonRecordedSample: Sendable, Equatable {
  /// The sample's number, increasing with time (`CMRecordedAccelerometerData.identifier`).
  public var identifier: UInt64
  /// Source clock, s.
  public var timestamp: Double
  /// When the sample was taken (wall clock).
  public var startDate: Date
  /// Specific force, m/s² (+9.81 up at rest); Core Motion's g is its negation / 9.80665.
  public var specificForce: SIMD3<Double>
}

/// A live pedometer reading: cumulative counts since the daemon started counting.
public struct DaemonPedometerReading: Sendable, Equatable {
  /// Source clock of the reading, s.
  public var timestamp: Double
  /// Wall-clock date of the sample that produced the reading. The newest step may be older: a
  /// floor change sends a reading without a new step, and steps held back during a possible ride
  /// are counted, all at once, when they are given back.
  public var date: Date
  /// Steps counted since the daemon started counting.
  public var steps: UInt64
  /// Distance since the daemon started counting, m.
  public var distance: Double
  /// Floors climbed since the daemon started counting.
  public var floorsAscended: UInt64
  /// Floors gone down since the daemon started counting.
  public var floorsDescended: UInt64
  /// steps/s, 0 when unknown
  public var cadence: Double
  /// s spent stepping
  public var activeTime: Double
}

/// A live altitude reading.
public struct DaemonAltitudeReading: Sendable, Equatable {
  /// Source clock of the pressure sample, s.
  public var timestamp: Double
  /// m since the daemon's first pressure sample
  public var relativeAltitude: Double
  /// kPa
  public var pressure: Double
}

/// A Core Motion reference frame (`CMAttitudeReferenceFrame`), as the daemon's protocol numbers it.
public enum DaemonReferenceFrame: Int, Sendable, CaseIterable {
  /// `CMAttitudeReferenceFrame.xArbitraryZVertical`: z vertical, heading arbitrary (no
  /// magnetometer).
  case xArbitraryZVertical = 1
  /// `.xArbitraryCorrectedZVertical`: as above, the yaw drift corrected with the magnetometer.
  case xArbitraryCorrectedZVertical = 2
  /// `.xMagneticNorthZVertical`: x towards magnetic north.
  case xMagneticNorthZVertical = 3
  /// `.xTrueNorthZVertical`: x towards true north (needs the daemon's location).
  case xTrueNorthZVertical = 4
}

/// Device motion as the daemon computes it in a subscription's reference frame, in Core Motion's
/// units and signs (`CMDeviceMotion`).
public struct DaemonDeviceMotion: Sendable, Equatable {
  /// Source clock, s.
  public var timestamp: Double
  /// Reference frame from device (`CMAttitude.quaternion`).
  public var attitude: Quaternion
  /// rad/s, bias removed.
  public var rotationRate: SIMD3<Double>
  /// g, device frame, (0, 0, −1) face up at rest.
  public var gravity: SIMD3<Double>
  /// g, device frame.
  public var userAcceleration: SIMD3<Double>
  /// µT, calibrated (zero before magnetometer data).
  public var magneticField: SIMD3<Double>
  /// −1 uncalibrated, 0 low, 1 medium, 2 high.
  public var magneticFieldAccuracy: Int
  /// Degrees from north in [0, 360); −1 in the arbitrary frames.
  public var heading: Double
  /// Degrees (`CMDeviceMotion.headingAccuracy`); −1 when the heading is invalid or the daemon
  /// predates the field.
  public var headingAccuracy: Double = -1
}

/// What a stream subscription delivers.
public enum DaemonStreamEvent: Sendable {
  /// A raw sample, with the boot-clock time (ns) at which the daemon received it from its source.
  case sample(MotionSample, receivedBootNanoseconds: UInt64)
  /// One estimate of the daemon's sensor fusion, with the boot-clock time (ns) at which the daemon
  /// received the sample it came from.
  case fusedMotion(DeviceMotionEstimate, receivedBootNanoseconds: UInt64)
  /// Device motion in the subscription's reference frame, with the boot-clock time (ns) at which
  /// the daemon received the sample it came from.
  case deviceMotion(DaemonDeviceMotion, receivedBootNanoseconds: UInt64)
  /// A live pedometer reading (a subscription with `pedometer`).
  case pedometer(DaemonPedometerReading)
  /// A new activity segment (a subscription with `activity`).
  case activity(DaemonActivitySegment)
  /// A live altitude reading (a subscription with `altitude`).
  case altitude(DaemonAltitudeReading)
  /// Stream messages the daemon dropped because this client read too slowly.
  case dropped(UInt64)
  /// The daemon's source failed (`kind` is a `SourceFailure.Kind` raw value) or finished.
  /// `isFatal` is `SourceFailure.isFatal` of the daemon's source: `false` for a failure the source
  /// goes on after (one malformed message, late samples dropped); always `true` from a daemon
  /// that predates `SourceEvent.advisory`.
  case sourceFailure(kind: String, message: String, isFatal: Bool)
  /// The daemon's source came to its end (a recording played out); no more events follow.
  case sourceFinished
  /// The connection to the daemon was lost; the client reconnects and resubscribes by itself.
  case disconnected(String)
  /// The connection is back and the subscription is active again (or refused by the daemon, a
  /// fatal ``sourceFailure(kind:message:isFatal:)`` that follows at once).
  ///
  /// Told only to a stream that was told ``disconnected(_:)``, once for each, and always before
  /// any other event of the new connection: when the daemon answers the stream's new
  /// subscription, or just before the connection's first event for it, whichever comes first,
  /// on the connection's reader thread. So a handler sees `.disconnected`, then `.reconnected`,
  /// then the new connection's data.
  case reconnected
}

/// What a stream subscription asks for.
public struct DaemonStreamRequest: Sendable, Equatable {
  /// The raw sensors to stream (only those the daemon's source has are sent).
  public var sensors: SensorSet
  /// Hz
  public var rate: Double
  /// Whether to stream live pedometer readings.
  public var pedometer: Bool
  /// Whether to stream activity segments as they begin.
  public var activity: Bool
  /// Whether to stream live altitude readings.
  public var altitude: Bool
  /// The daemon's sensor fusion at `rate` (one estimator in the daemon for every client).
  public var fusedMotion: Bool
  /// Device motion in this reference frame at `rate`, computed by the daemon; `nil`: none.
  public var deviceMotionFrame: DaemonReferenceFrame?

  /// A request for `sensors` at `rate` Hz and the daemon-computed streams set to `true`.
  public init(
    sensors: SensorSet = [], rate: Double = 0, pedometer: Bool = false, activity: Bool = false,
    altitude: Bool = false, fusedMotion: Bool = false,
    deviceMotionFrame: DaemonReferenceFrame? = nil
  ) {
    self.sensors = sensors
    self.rate = rate
    self.pedometer = pedometer
    self.activity = activity
    self.altitude = altitude
    self.fusedMotion = fusedMotion
    self.deviceMotionFrame = deviceMotionFrame
  }
}

/// The daemon's state (`motionctl status`).
public struct DaemonStatus: Sendable, Equatable {
  /// One connected client.
  public struct Client: Sendable, Equatable {
    /// The name the client gave when it connected (program name and pid by default).
    public var name: String
    /// The client's process ID, from its socket's peer credentials.
    public var processID: Int
    /// What each subscription asked for
    public var subscriptions: [DaemonStreamRequest]
    /// Stream messages dropped so far because the client read too slowly.
    public var dropped: UInt64
    /// Messages waiting in the daemon to be sent to the client now.
    public var queued: Int
  }

  /// The name of the daemon's sensor source.
  public var sourceName: String
  /// The sensors the source delivers.
  public var availableSensors: SensorSet
  /// The rate currently requested from the source in Hz; 0 when nothing is subscribed.
  public var sourceRate: Double
  /// The sensors the source is asked to deliver (the others are switched off where it can).
  public var sourceSensors: SensorSet
  /// Whether the daemon is reading its source now.
  public var sourceSubscribed: Bool
  /// The connected clients.
  public var clients: [Client]
  /// Whether the user allowed motion history.
  public var historyAuthorized: Bool
  /// The history recorder's state in words: `recording`, `paused: …`, `denied` or `unavailable: …`.
  public var historyState: String
  /// The oldest moment in the history store; `nil` when it is empty.
  public var historyOldest: Date?
  /// The newest moment in the history store; `nil` when it is empty.
  public var historyNewest: Date?
  /// The history store's size on disk, bytes.
  public var historyBytes: UInt64
  /// When the accelerometer recording asked for with `CMSensorRecorder` ends; `nil` when none is
  /// running.
  public var recordingUntil: Date?
  /// Samples the daemon has received from its source since it started.
  public var samplesReceived: UInt64
  /// The path of the history store (an SQLite database).
  public var storePath: String
}
