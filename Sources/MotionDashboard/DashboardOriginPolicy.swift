// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Which requests a browser may make to the dashboard, from the `Host` and `Origin` headers.
///
/// A page on another site must not read the sensors through a visitor's browser. The browser
/// names the page's origin in `Origin` (always on a WebSocket upgrade), which must then be this
/// server's own. Two tricks get around a plain comparison, and both are closed here:
///
/// - DNS rebinding: `evil.example` is made to resolve to 127.0.0.1, so the page's origin and the
///   `Host` it sends agree. A tokenless dashboard listens on loopback only, so it accepts only
///   loopback names in `Host` (`localhost`, `127.x.x.x`, `[::1]`).
/// - `Origin: null`: sent by sandboxed iframes and `data:` pages on any site. It is never this
///   server's origin; with Foxglove's protocol it is let in (with `file://`, the origins
///   Foxglove's desktop app may send) only when the server has an access token, which such a page
///   does not have.
enum DashboardOriginPolicy {
  /// The origin of Foxglove's web app, let in for Foxglove's protocol.
  static let foxgloveWebOrigin = "https://app.foxglove.dev"
  /// The origins Foxglove's desktop app may send; let in for Foxglove's protocol with a token.
  static let foxgloveDesktopOrigins: Set<String> = ["file://", "null"]

  /// Whether `authority` (a `Host` header) names a loopback host (any port).
  static func isLoopbackAuthority(_ authority: String) -> Bool {
    let value = authority.lowercased()
    let host: Substring
    if value.hasPrefix("[") {
      guard let close = value.firstIndex(of: "]") else { return false }
      host = value[value.index(after: value.startIndex)..<close]
      let rest = value[value.index(after: close)...]
      guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber))
      else { return false }
      return host == "::1"
    }
    let parts = value.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count <= 2 else { return false }
    if parts.count == 2, parts[1].isEmpty || !parts[1].allSatisfy(\.isNumber) { return false }
    host = parts[0]
    if host == "localhost" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127"
      && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
  }

  /// Whether a request with `Origin: origin` to `host` (its `Host` header) is allowed.
  static func allows(origin: String, host: String, isFoxglove: Bool, hasToken: Bool) -> Bool {
    let origin = origin.lowercased()
    if isFoxglove {
      if origin == foxgloveWebOrigin { return true }
      if hasToken && foxgloveDesktopOrigins.contains(origin) { return true }
    }
    guard let url = URL(string: origin), let scheme = url.scheme,
      scheme == "http" || scheme == "https",
      let originHost = url.host, !host.isEmpty
    else { return false }
    return authority(originHost, url.port) == host.lowercased()
  }

  /// `host[:port]` as a `Host` header writes it (IPv6 in brackets), lower-cased.
  static func authority(_ host: String, _ port: Int?) -> String {
    let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    return (port.map { "\(shown):\($0)" } ?? shown).lowercased()
  }
}
