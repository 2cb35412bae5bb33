// SPDX-License-Identifier: Apache-2.0

import MotionDaemonProtocol

/// A pedometer, activity or altitude change computed by the daemon's detectors, for the clients
/// that subscribed to it.
struct LiveUpdate: Sendable {
  enum Kind: Sendable { case pedometer, activity, altitude }
  var kind: Kind
  var wire: Opencoremotion_Daemon_V1_LiveUpdate

  func isWanted(by subscription: ClientSubscription) -> Bool {
    switch kind {
    case .pedometer: return subscription.pedometer
    case .activity: return subscription.activity
    case .altitude: return subscription.altitude
    }
  }
}
