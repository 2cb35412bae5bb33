// SPDX-License-Identifier: Apache-2.0

/// The part of UIKit's view-controller lifecycle that the example programs use.
///
/// Each example keeps its iOS app's structure: motion updates start in `viewDidLoad()` and stop in
/// `viewDidDisappear()`. ``ExampleRunner/show(_:usage:requiring:ifUnavailable:)`` makes those calls
/// in the order UIKit would.
public protocol ExampleViewController: AnyObject {
  /// Called once before the screen appears: start motion updates here.
  func viewDidLoad()
  /// Called once when the screen goes away: stop motion updates here.
  func viewDidDisappear()
}
