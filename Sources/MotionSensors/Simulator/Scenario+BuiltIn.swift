// SPDX-License-Identifier: Apache-2.0

extension Scenario {
  /// The names of the built-in scenarios, in listing order.
  public static let builtInNames: [String] =
    ["flat"] + DeviceOrientationName.allCases.map(\.rawValue) + [
      "rotateX", "rotateY", "rotateZ", "figure8", "shake", "tap", "walk", "drive", "freefall",
      "tour",
    ] + activityNames

  /// The built-in scenarios for the pedometer, floors, activity and altimeter: each has ground
  /// truth in its events (steps, walk/run/cycle/drive/lift/escalator/stairs intervals) and in its
  /// segments' climbs (``groundTruthFloors(floorHeight:)``).
  public static let activityNames = [
    "walkPocket", "walkBackPocket", "walkBag", "run", "stairs", "lift", "escalator", "cycle",
    "commute", "carPark", "desk",
  ]

  /// The built-in scenario called `name` (see ``builtInNames``; case is ignored), with the phone
  /// noise preset.
  ///
  /// - Throws: ``ScenarioError/unknownName(_:validNames:)``, whose message lists the valid names.
  public static func named(_ requestedName: String) throws -> Scenario {
    guard let name = builtInNames.first(where: { $0.lowercased() == requestedName.lowercased() })
    else {
      throw ScenarioError.unknownName(requestedName, validNames: builtInNames)
    }
    if let orientation = DeviceOrientationName(rawValue: name) {
      return Scenario(
        name: name, segments: [.rest(duration: 10)], initialAttitude: .orientation(orientation))
    }
    switch name {
    case "flat":
      // Long enough to estimate biases at rest.
      return Scenario(name: name, segments: [.rest(duration: 30)])
    case "rotateX", "rotateY", "rotateZ":
      let axis: SIMD3<Double> =
        name == "rotateX" ? SIMD3(1, 0, 0) : name == "rotateY" ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1)
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 1), .rotate(axis: axis, rate: 30, duration: 30, ramp: 1),
          .rest(duration: 1),
        ])
    case "figure8":
      return Scenario(
        name: name,
        segments: [.rest(duration: 1), .figure8(period: 6, duration: 24), .rest(duration: 1)])
    case "shake":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 1),
          .shake(axis: SIMD3(1, 0, 0), amplitude: 0.035, frequency: 4.5, duration: 2),
          .rest(duration: 3),
        ])
    case "tap":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 1),
          // About 5 g: a firm knock of the phone's edge on a palm gives 3–6 g.
          .tap(axis: SIMD3(1, 0, 0), peakAcceleration: 50, pulseDuration: 0.03, duration: 2),
        ])
    case "walk":
      // Phone held in front, screen tilted 40° towards the face.
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 1), .walk(cadence: 1.8, speed: 1.3, duration: 20), .rest(duration: 1),
        ],
        initialAttitude: .eulerDegrees(roll: 0, pitch: 40, yaw: 0))
    case "drive":
      // Phone in a dashboard mount, nearly upright; 12 m/s (43 km/h) with town-like turns whose
      // peak lateral acceleration stays near 3.5 m/s².
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2),
          .drive(
            speed: 12, duration: 60, vibration: 0.8, ramp: 6,
            turns: [
              DriveTurn(start: 15, angle: 90, duration: 10),
              DriveTurn(start: 32, angle: -90, duration: 10),
              DriveTurn(start: 48, angle: 45, duration: 6),
            ]),
          .rest(duration: 2),
        ],
        initialAttitude: .eulerDegrees(roll: 0, pitch: 70, yaw: 0))
    case "freefall":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 1.5), .freeFall(dropDuration: 0.5, catchDuration: 0.3, duration: 2),
        ])
    case "tour":
      // Every device orientation with rests, then a shake; ends face up at the origin, so it loops
      // seamlessly when a longer duration is asked for.
      var segments: [ScenarioSegment] = [.rest(duration: 3)]
      for orientation in [
        DeviceOrientationName.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight,
        .faceDown,
        .faceUp,
      ] {
        segments.append(.moveTo(attitude: .orientation(orientation), duration: 1.5))
        segments.append(.rest(duration: 5))
      }
      segments.append(.shake(axis: SIMD3(1, 0, 0), amplitude: 0.035, frequency: 4.5, duration: 2))
      segments.append(.rest(duration: 5))
      return Scenario(name: name, segments: segments, repeats: true)
    default:
      if let scenario = activityScenario(named: name) { return scenario }
      preconditionFailure("builtInNames lists '\(name)' but no scenario is defined for it")
    }
  }
}
