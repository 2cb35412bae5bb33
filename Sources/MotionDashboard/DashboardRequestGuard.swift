// SPDX-License-Identifier: Apache-2.0

import Hummingbird

/// Refuses (`403`) requests that a page on another site makes through the visitor's browser:
/// a `Host` that is not a loopback name on a tokenless (loopback) dashboard, and an `Origin` that
/// is not this server's (see ``DashboardOriginPolicy``). Runs before the token check, on every
/// route including the WebSocket upgrade. A refused request's connection is closed
/// (``DashboardRequestContext/closeAfterAnswer()``).
struct DashboardRequestGuard: RouterMiddleware {
  typealias Context = DashboardRequestContext

  /// Whether the server has an access token (then `Host` is not checked: an exposed dashboard
  /// may be reached under any of the machine's names, and the token stops rebinding pages).
  let hasToken: Bool

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let host = Self.host(of: request)
    if !hasToken && !DashboardOriginPolicy.isLoopbackAuthority(host) {
      return context.refusal(
        .forbidden, "this dashboard answers to loopback names only (Host: localhost)\n")
    }
    if let origin = request.headers[HeaderName("Origin")!],
      !DashboardOriginPolicy.allows(
        origin: origin, host: host, isFoxglove: DashboardServer.asksForFoxglove(request.headers),
        hasToken: hasToken)
    {
      return context.refusal(.forbidden, "requests from other sites are refused\n")
    }
    return try await next(request, context)
  }

  /// The request's `Host` (its authority), or empty.
  static func host(of request: Request) -> String {
    request.head.authority ?? request.headers[HeaderName("Host")!] ?? ""
  }
}
