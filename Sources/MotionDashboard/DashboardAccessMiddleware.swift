// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdCore
import MotionServerSupport

/// Lets a request through only with the access token, when there is one: as `?token=` (then the
/// response sets a same-site, HTTP-only cookie so the page's own requests carry it) or as that
/// cookie. A request without it is answered 401 and its connection closed
/// (``DashboardRequestContext/closeAfterAnswer()``), so a host without the token cannot hold
/// connections with keep-alive requests.
struct DashboardAccessMiddleware: RouterMiddleware {
  typealias Context = DashboardRequestContext

  let token: String?
  /// Told which connections carried the token, so that they never give way to newer ones of
  /// their address (see `PeerConnectionLimit`).
  var peerLimit: PeerConnectionLimit? = nil

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let token else { return try await next(request, context) }
    let given = Self.givenToken(uri: request.uri, cookieHeaders: request.headers[values: .cookie])
    guard let given, Self.constantTimeEqual(given.value, token) else {
      return context.refusal(.unauthorized, "the dashboard needs its access token (?token=…)\n")
    }
    // DashboardEarlyProof has usually proven the connection already, on its event loop; this
    // covers a connection whose pipeline has none.
    peerLimit?.prove(ObjectIdentifier(context.channel))
    var response = try await next(request, context)
    if given.fromQuery {
      response.setCookie(
        Cookie(
          name: DashboardServer.tokenCookie, value: token, path: "/", httpOnly: true,
          sameSite: .strict))
    }
    return response
  }

  /// The token a request carries: its `?token=` if it has one, else its token cookie. This
  /// middleware and ``DashboardEarlyProof`` (which sees the request head before Hummingbird
  /// does) read it here, so that both accept the same requests.
  static func givenToken(uri: URI, cookieHeaders: [String]) -> (value: String, fromQuery: Bool)? {
    if let query = uri.queryParameters["token"] { return (String(query), true) }
    guard let cookie = Cookies(from: cookieHeaders)[DashboardServer.tokenCookie] else {
      return nil
    }
    return (cookie.value, false)
  }

  /// Compares without stopping at the first difference, so timing tells nothing about the token.
  static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for index in x.indices { difference |= x[index] ^ y[index] }
    return difference == 0
  }
}
