// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix

/// What a socket error from SwiftNIO means, in the system's words with its errno
/// (`"Connection refused (errno 111)"`), prefixed `cannot connect: ` when no connection was made;
/// `nil` for any other error.
///
/// SwiftNIO describes a refused connection as "connection reset (error set): Connection refused)
/// (errno: 111)", which reads as if the phone had dropped a connection, with a stray parenthesis;
/// the WebSocket client wraps it further in a list of the addresses tried.
package func phoneStreamSocketErrorDescription(_ error: any Error) -> String? {
  func describe(_ error: IOError) -> String {
    "\(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
  }
  if let error = error as? IOError { return describe(error) }
  if let error = error as? NIOConnectionError,
    let cause = error.connectionErrors.lazy.compactMap({ $0.error as? IOError }).first
  {
    return "cannot connect: \(describe(cause))"
  }
  return nil
}
