// SPDX-License-Identifier: Apache-2.0

/// Bounds on what one dashboard connection, or many, may hold: a peer must not be able to freeze
/// or starve the server by opening connections and leaving them idle, half-sent or unread.
public struct DashboardConnectionLimits: Sendable, Equatable {
  /// Seconds a new connection has to complete its first request (head and upgrade); default 10.
  public var requestHeadTimeout: Double
  /// Seconds an HTTP keep-alive connection may stay idle between requests; default 30.
  public var idleTimeout: Double
  /// Seconds a connection may stay unwritable (its peer not reading) before it is closed;
  /// default 60.
  public var stalledWriteTimeout: Double
  /// Connections served at once; more wait in the listen queue; default 128.
  public var maximumConnections: Int
  /// The most connections one peer address holds at once; its further connections are closed
  /// when accepted, so that one host cannot hold every slot; default 16 (a browser opens up to six
  /// HTTP connections to a server plus one WebSocket per tab, so a few tabs fit). Every
  /// connection from this machine counts as one peer, whichever of its addresses (127.0.0.2, …)
  /// it comes from.
  public var maximumConnectionsPerPeer: Int

  /// Creates limits; every parameter has the default stated on its property.
  public init(
    requestHeadTimeout: Double = 10, idleTimeout: Double = 30, stalledWriteTimeout: Double = 60,
    maximumConnections: Int = 128, maximumConnectionsPerPeer: Int = 16
  ) {
    self.requestHeadTimeout = requestHeadTimeout
    self.idleTimeout = idleTimeout
    self.stalledWriteTimeout = stalledWriteTimeout
    self.maximumConnections = maximumConnections
    self.maximumConnectionsPerPeer = maximumConnectionsPerPeer
  }
}
