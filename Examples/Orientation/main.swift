// SPDX-License-Identifier: Apache-2.0
//
// Orientation: a label that follows the device's physical orientation.
//
// The iOS app registers for UIDevice orientation notifications and updates a label. The same
// code runs here against `COREMOTION_SOURCE` (e.g. `COREMOTION_SOURCE=simulator:tour`), printing
// the label each time it changes.

import CoreMotion
import ExampleSupport
import Foundation

/// The label's text for an orientation.
func labelText(for orientation: UIDeviceOrientation) -> String {
  switch orientation {
  case .portrait: return "Portrait"
  case .portraitUpsideDown: return "Portrait Upside Down"
  case .landscapeLeft: return "Landscape Left"
  case .landscapeRight: return "Landscape Right"
  case .faceUp: return "Face Up"
  case .faceDown: return "Face Down"
  case .unknown: return "Unknown"
  }
}

// Main-actor isolated, as UIKit's view controllers are; the runner calls it on the main thread.
@MainActor
final class OrientationViewController: @preconcurrency ExampleViewController {
  private var observer: (any NSObjectProtocol)?
  private var label = ""

  func viewDidLoad() {
    UIDevice.current.beginGeneratingDeviceOrientationNotifications()
    observer = NotificationCenter.default.addObserver(
      forName: UIDevice.orientationDidChangeNotification, object: nil, queue: .main
    ) { [weak self] _ in
      // Observers on `.main` run on the main thread, as on iOS.
      MainActor.assumeIsolated { self?.orientationDidChange() }
    }
    orientationDidChange()
  }

  func viewDidDisappear() {
    if let observer { NotificationCenter.default.removeObserver(observer) }
    UIDevice.current.endGeneratingDeviceOrientationNotifications()
  }

  private func orientationDidChange() {
    let text = labelText(for: UIDevice.current.orientation)
    guard text != label else { return }
    label = text
    print("Orientation: \(text)")
  }
}

// UIDevice reads the accelerometer; the controller itself has no motion manager to ask.
ExampleRunner.show(
  OrientationViewController(),
  usage: "Orientation: prints the device's physical orientation as it changes.",
  requiring: { _ in CMMotionManager().isAccelerometerAvailable },
  ifUnavailable: "this source has no accelerometer; set COREMOTION_SOURCE (e.g. simulator:tour)")
