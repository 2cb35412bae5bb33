// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Recognises a tap or knock: a short, sharp spike of user acceleration along one device axis,
/// such as the device's edge being knocked into a palm.
///
/// A spike is a lobe of user acceleration above half of ``Parameters/threshold`` whose peak exceeds
/// ``Parameters/threshold`` (1 g), which lasts at most ``Parameters/maximumDuration`` (0.06 s) and
/// whose width at half its own peak is at most ``Parameters/maximumHalfPeakWidth`` (0.035 s);
/// longer or rounder lobes are hand movements or the swings of a shake (a 5 Hz swing is ~65 ms wide
/// at half its peak, an impact a few tens of milliseconds at most). The peak's largest component
/// must carry at least ``Parameters/minimumDominance`` (70 %) of its length so the axis is clear,
/// and the spike must be isolated: no other lobe may have ended within ``Parameters/isolationTime``
/// (0.1 s) before it (the short last swing of a shake is not a knock). After a tap,
/// ``Parameters/refractoryPeriod`` (0.25 s) passes before the next, so the ringing of one impact is
/// not counted twice.
///
/// A timestamp more than a second earlier than the latest one starts a new timeline (a clock that
/// restarted lower, e.g. a replay restarted by the daemon): the detector forgets the spike in
/// progress and the times of the last tap and lobe, so the first knock on the new clock counts at
/// once instead of being refused until the new clock passes the old one.
///
/// The event reports the axis and the sign of the spike in Core Motion's acceleration. With that
/// sign, a knock on the device's left edge (the palm pushes it towards +x) reads *negative* on x;
/// ``Event/struckSide`` names the side that was hit.
public struct TapDetector: MotionEventDetector {
  /// A device axis.
  public enum Axis: Int, Sendable, Hashable, CaseIterable {
    case x = 0, y = 1, z = 2
  }

  /// A side of the device.
  public enum Side: Sendable, Hashable {
    /// The −x edge.
    case left
    /// The +x edge.
    case right
    /// The −y edge (the bottom in portrait).
    case bottom
    /// The +y edge (the top in portrait).
    case top
    /// The −z face.
    case back
    /// The +z face (the screen).
    case front
  }

  /// One tap.
  public struct Event: Sendable, Hashable {
    /// The time of the spike's peak, seconds on the input's clock.
    public var timestamp: Double
    /// The axis the spike ran along.
    public var axis: Axis
    /// The sign (+1 or −1) of the spike along ``axis`` in Core Motion's acceleration.
    public var sign: Int
    /// The spike's peak user acceleration, g (Core Motion's sign).
    public var peak: SIMD3<Double>

    /// The side that was struck: the impact pushes the device away from it, which Core Motion's
    /// sign reports as acceleration towards it.
    public var struckSide: Side {
      switch (axis, sign < 0) {
      case (.x, true): return .left
      case (.x, false): return .right
      case (.y, true): return .bottom
      case (.y, false): return .top
      case (.z, true): return .back
      case (.z, false): return .front
      }
    }
  }

  /// The detector's tuning, in g and seconds.
  public struct Parameters: Sendable, Hashable {
    /// Peak user acceleration a tap must reach, g. Default 1 g.
    public var threshold: Double
    /// Longest time the spike may stay above half the threshold, seconds. Default 0.06 s.
    public var maximumDuration: Double
    /// Longest time the spike may stay above half its own peak, seconds. Default 0.035 s.
    public var maximumHalfPeakWidth: Double
    /// Share of the peak's length its largest component must carry, 0…1. Default 0.7.
    public var minimumDominance: Double
    /// Dead time after a tap, seconds. Default 0.25 s.
    public var refractoryPeriod: Double
    /// Quiet time required before a spike, seconds. Default 0.1 s.
    public var isolationTime: Double
    /// The axes to report; taps along other axes are ignored. Default all three.
    public var axes: Set<Axis>

    /// Creates parameters; see the properties for units and defaults.
    public init(
      threshold: Double = 1, maximumDuration: Double = 0.06, maximumHalfPeakWidth: Double = 0.035,
      minimumDominance: Double = 0.7,
      refractoryPeriod: Double = 0.25, isolationTime: Double = 0.1,
      axes: Set<Axis> = Set(Axis.allCases)
    ) {
      self.isolationTime = isolationTime
      self.threshold = threshold
      self.maximumDuration = maximumDuration
      self.maximumHalfPeakWidth = maximumHalfPeakWidth
      self.minimumDominance = minimumDominance
      self.refractoryPeriod = refractoryPeriod
      self.axes = axes
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  private var separator = GravitySeparator()
  private var lobeStart: Double?
  private var lobePeak = SIMD3<Double>.zero
  private var lobePeakTime = 0.0
  /// The lobe's samples (time, magnitude), to measure its width at half the peak.
  private var lobeSamples: [(time: Double, magnitude: Double)] = []
  private var lastTap = -Double.infinity
  private var lastLobeEnd = -Double.infinity
  private var timeline = TimelineWatch()

  /// Creates a detector with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  public mutating func reset() {
    separator.reset()
    lobeStart = nil
    lastTap = -.infinity
    lastLobeEnd = -.infinity
    timeline.reset()
  }

  public mutating func update(_ input: MotionInput) -> Event? {
    let t = input.timestamp
    if timeline.startsNewTimeline(at: t) {
      // Times from the old timeline mean nothing on the new one (see the type's documentation).
      lobeStart = nil
      lastTap = -.infinity
      lastLobeEnd = -.infinity
    }
    let user = separator.separate(input).user
    let magnitude = user.length
    let half = 0.5 * parameters.threshold
    guard let start = lobeStart else {
      if magnitude > half {
        lobeStart = t
        lobePeak = user
        lobePeakTime = t
        lobeSamples = [(t, magnitude)]
      }
      return nil
    }
    if magnitude > half {
      lobeSamples.append((t, magnitude))
      if magnitude > lobePeak.length {
        lobePeak = user
        lobePeakTime = t
      }
      return nil
    }
    // The lobe has ended; `t` is the first sample below half the threshold.
    lobeStart = nil
    let duration = t - start
    let quietBefore = start - lastLobeEnd
    lastLobeEnd = t
    guard lobePeak.length >= parameters.threshold, duration <= parameters.maximumDuration + 1e-9,
      halfPeakWidth(endingAt: t) <= parameters.maximumHalfPeakWidth + 1e-9,
      quietBefore >= parameters.isolationTime,
      lobePeakTime - lastTap >= parameters.refractoryPeriod
    else { return nil }
    let index = lobePeak.dominantAxisIndex
    guard Swift.abs(lobePeak[index]) >= parameters.minimumDominance * lobePeak.length,
      let axis = Axis(rawValue: index), parameters.axes.contains(axis)
    else { return nil }
    lastTap = lobePeakTime
    return Event(
      timestamp: lobePeakTime, axis: axis, sign: lobePeak[index] < 0 ? -1 : 1, peak: lobePeak)
  }

  /// The time the finished lobe spent at or above half its peak, seconds: from the first to the
  /// last such sample, plus one sample interval (each sample stands for the interval it starts).
  private func halfPeakWidth(endingAt end: Double) -> Double {
    let halfPeak = 0.5 * lobePeak.length
    guard let first = lobeSamples.firstIndex(where: { $0.magnitude >= halfPeak }),
      let last = lobeSamples.lastIndex(where: { $0.magnitude >= halfPeak })
    else { return 0 }
    let next = last + 1 < lobeSamples.count ? lobeSamples[last + 1].time : end
    return next - lobeSamples[first].time
  }
}
