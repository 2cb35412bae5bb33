// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

/// What the daemon reports about itself when a client connects.
public struct DaemonServerInfo: Sendable, Equatable {
  public var sourceName: String
  public var availableSensors: SensorSet
  public var supportedSampleRates: ClosedRange<Double>
  public var historyAuthorized: Bool
  /// Whether the daemon serves its fused motion (``DaemonStreamRequest/fusedMotion``).
  public var servesFusedMotion: Bool
}

/// Pedometer totals over a date range (from the daemon's per-minute history).
public struct DaemonPedometerTotals: Sendable, Equatable {
  public var startDate: Date
  public var endDate: Date
  public var steps: Double
  /// m
  public var distance: Double
  public var floorsAscended: Double
  public var floorsDescended: Double
  /// s spent stepping
  public var activeTime: Double
  /// The daemon's live counters when it answered (the totals include every step they count);
  /// `nil` from a daemon that does not send them.
  public var counters: DaemonPedometerReading?
}

/// One activity segment (the activity in force from `startDate` until the next segment).
public struct DaemonActivitySegment: Sendable, Equatable {
  public var startDate: Date
  /// Source clock, s.
  public var timestamp: Double
  public var stationary: Bool
  public var walking: Bool
  public var running: Bool
  public var cycling: Bool
  public var automotive: Bool
  public var unknown: Bool
  /// 0 low, 1 medium, 2 high (`CMMotionActivityConfidence`).
  public var confidence: Int
}

/// One recorded accelerometer sample (`CMRecordedAccelerometerData`).
public struct DaemonRecordedSample: Sendable, Equatable {
  public var identifier: UInt64
  /// Source clock, s.
  public var timestamp: Double
  public var startDate: Date
  /// Specific force, m/s² (+9.81 up at rest); Core Motion's g is its negation / 9.80665.
  public var specificForce: SIMD3<Double>
}

/// A live pedometer reading: cumulative counts since the daemon started counting.
public struct DaemonPedometerReading: Sendable, Equatable {
  public var timestamp: Double
  public var date: Date
  public var steps: UInt64
  public var distance: Double
  public var floorsAscended: UInt64
  public var floorsDescended: UInt64
  /// steps/s, 0 when unknown
  public var cadence: Double
  /// s spent stepping
  public var activeTime: Double
}

/// A live altitude reading.
public struct DaemonAltitudeReading: Sendable, Equatable {
  public var timestamp: Double
  /// m since the daemon's first pressure sample
  public var relativeAltitude: Double
  /// kPa
  public var pressure: Double
}

/// A Core Motion reference frame (`CMAttitudeReferenceFrame`), as the daemon's protocol numbers it.
public enum DaemonReferenceFrame: Int, Sendable, CaseIterable {
  case xArbitraryZVertical = 1
  case xArbitraryCorrectedZVertical = 2
  case xMagneticNorthZVertical = 3
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
  case pedometer(DaemonPedometerReading)
  case activity(DaemonActivitySegment)
  case altitude(DaemonAltitudeReading)
  /// Stream messages the daemon dropped because this client read too slowly.
  case dropped(UInt64)
  /// The daemon's source failed (`kind` is a `SourceFailure.Kind` raw value) or finished.
  /// `isFatal` is `SourceFailure.isFatal` of the daemon's source: `false` for a failure the source
  /// goes on after (one malformed message, late samples dropped); always `true` from a daemon
  /// that predates `SourceEvent.advisory`.
  case sourceFailure(kind: String, message: String, isFatal: Bool)
  case sourceFinished
  /// The connection to the daemon was lost; the client reconnects and resubscribes by itself.
  case disconnected(String)
  /// The connection is back and the subscription is active again.
  case reconnected
}

/// What a stream subscription asks for.
public struct DaemonStreamRequest: Sendable, Equatable {
  public var sensors: SensorSet
  /// Hz
  public var rate: Double
  public var pedometer: Bool
  public var activity: Bool
  public var altitude: Bool
  /// The daemon's sensor fusion at `rate` (one estimator in the daemon for every client).
  public var fusedMotion: Bool
  /// Device motion in this reference frame at `rate`, computed by the daemon; `nil`: none.
  public var deviceMotionFrame: DaemonReferenceFrame?

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
  public struct Client: Sendable, Equatable {
    public var name: String
    public var processID: Int
    /// What each subscription asked for
    public var subscriptions: [DaemonStreamRequest]
    public var dropped: UInt64
    public var queued: Int
  }

  public var sourceName: String
  public var availableSensors: SensorSet
  public var sourceRate: Double
  /// The sensors the source is asked to deliver (the others are switched off where it can).
  public var sourceSensors: SensorSet
  public var sourceSubscribed: Bool
  public var clients: [Client]
  public var historyAuthorized: Bool
  public var historyState: String
  public var historyOldest: Date?
  public var historyNewest: Date?
  public var historyBytes: UInt64
  public var recordingUntil: Date?
  public var samplesReceived: UInt64
  public var storePath: String
}
