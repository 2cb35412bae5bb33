// SPDX-License-Identifier: Apache-2.0

extension Scenario {
  /// The pedometer/activity/altimeter scenario called `name` (one of ``activityNames``), or `nil`.
  static func activityScenario(named name: String) -> Scenario? {
    // Phone held in front, screen tilted 40° towards the face (as in `walk`).
    let inHand = DeviceAttitude.eulerDegrees(roll: 0, pitch: 40, yaw: 0)
    // Upright in a trouser pocket, screen towards the thigh.
    let inPocket = DeviceAttitude.orientation(.portrait)
    let stroll = Gait(style: .walk, placement: .hand)
    switch name {
    case "walkPocket":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(Gait(placement: .frontPocket), duration: 30),
          .rest(duration: 2),
        ],
        initialAttitude: inPocket)
    case "walkBackPocket":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(Gait(placement: .backPocket), duration: 30), .rest(duration: 2),
        ],
        initialAttitude: .orientation(.portraitUpsideDown))
    case "walkBag":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(Gait(placement: .bag), duration: 30), .rest(duration: 2),
        ],
        initialAttitude: .eulerDegrees(roll: 25, pitch: 65, yaw: 0))
    case "run":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(Gait(style: .run, placement: .frontPocket), duration: 30),
          .rest(duration: 2),
        ],
        initialAttitude: inPocket)
    case "stairs":
      // Two floors up (6 m, about 35 steps of 0.17 m), along a corridor, two floors down.
      let up = Gait(style: .walk, placement: .hand, cadence: 1.6, speed: 0.5, climb: 6)
      let down = Gait(style: .walk, placement: .hand, cadence: 1.8, speed: 0.5, climb: -6)
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(stroll, duration: 10), .gait(up, duration: 24),
          .gait(stroll, duration: 10),
          .rest(duration: 5), .gait(down, duration: 22), .gait(stroll, duration: 8),
          .rest(duration: 5),
        ],
        initialAttitude: inHand, altitude: 200)
    case "lift":
      // Walk to the lift, ride three floors up standing, walk out: no floor is climbed on foot.
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(stroll, duration: 12), .rest(duration: 4),
          .ride(.lift, climb: 9, duration: 16),
          .rest(duration: 4), .gait(stroll, duration: 12), .rest(duration: 5),
        ],
        initialAttitude: inHand, altitude: 200)
    case "escalator":
      // Walk to the escalator, ride one and a half floors up standing, walk off.
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 2), .gait(stroll, duration: 12),
          .ride(.escalator, climb: 4.5, duration: 20),
          .gait(stroll, duration: 12), .rest(duration: 5),
        ],
        initialAttitude: inHand, altitude: 200)
    case "cycle":
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 3), .cycle(cadence: 1.2, speed: 5, duration: 60), .rest(duration: 3),
        ],
        initialAttitude: inPocket)
    case "commute":
      // A town drive with two stops at red lights; phone in a dashboard mount.
      let mount = DeviceAttitude.eulerDegrees(roll: 0, pitch: 70, yaw: 0)
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 3),
          .drive(
            speed: 13, duration: 40, vibration: 0.8, ramp: 6,
            turns: [DriveTurn(start: 15, angle: 90, duration: 8)]),
          .rest(duration: 15),
          .drive(
            speed: 15, duration: 45, vibration: 0.8, ramp: 6,
            turns: [DriveTurn(start: 20, angle: -90, duration: 8)]),
          .rest(duration: 15),
          .drive(speed: 11, duration: 30, vibration: 0.8, ramp: 5, turns: []),
          .rest(duration: 3),
        ],
        initialAttitude: mount)
    case "carPark":
      // Out of the car and up the car park's stairs: a 90 s town drive with the phone in a
      // trouser pocket, 2 s standing by the car, one floor up the stairs (3 m in 7 s), a walk on
      // the level. The pedometer confirms a walk after a ride before counting its steps, so it
      // hears the climb's steps only seconds after they happened; the floor still counts.
      let stairs = Gait(style: .walk, placement: .frontPocket, cadence: 1.8, speed: 0.5, climb: 3)
      return Scenario(
        name: name,
        segments: [
          .rest(duration: 3),
          .drive(speed: 13, duration: 90, vibration: 0.8, ramp: 6, turns: []),
          .rest(duration: 2), .gait(stairs, duration: 7),
          .gait(Gait(placement: .frontPocket), duration: 20), .rest(duration: 5),
        ],
        initialAttitude: inPocket, altitude: 200)
    case "desk":
      // Ten minutes on a desk face up, under a falling barometer (a storm coming: −0.15 kPa/h,
      // about 12 m of apparent height per hour) with two doors slammed (20–25 Pa for half a
      // second).
      return Scenario(
        name: name, segments: [.rest(duration: 600)],
        weather: PressureWeather(
          trend: -0.15,
          transients: [
            PressureWeather.Transient(start: 200, amplitude: 0.025, duration: 0.6),
            PressureWeather.Transient(start: 410, amplitude: -0.02, duration: 0.5),
          ]))
    default:
      return nil
    }
  }

  /// The floors walked (not ridden) in one pass through the segments, one floor being
  /// `floorHeight` metres (default 3, as Apple's documentation has it): each gait segment's
  /// climb, rounded to whole floors.
  public func groundTruthFloors(floorHeight: Double = 3) -> (ascended: Int, descended: Int) {
    var ascended = 0
    var descended = 0
    for case .gait(let gait, _) in segments where gait.climb.isFinite && gait.climb != 0 {
      let floors = (abs(gait.climb) / floorHeight).rounded()
      guard floors >= 1, floors < 1_000_000 else { continue }
      if gait.climb > 0 { ascended += Int(floors) } else { descended += Int(floors) }
    }
    return (ascended, descended)
  }
}
