// SPDX-License-Identifier: Apache-2.0

extension StepDetector {
  /// Tuning of the step detector: one set for every placement, cadence and device.
  ///
  /// Accelerations are in m/s² (the detector converts its input from g once); times in s;
  /// frequencies in Hz. The defaults were chosen on the shared Oxford optimisation and IPOL
  /// recordings (see `tools/steps/` and `docs/Steps.md`) and checked on Oxford validation.
  public struct Parameters: Sendable, Equatable {
    /// Rate of the uniform grid the magnitude is resampled onto (linear interpolation), Hz. The
    /// filters and the periodicity estimate run at this rate whatever the sensor's rate is.
    public var gridRate: Double = 50
    /// Lower edge of the band-pass on |a| (second-order Butterworth high-pass), Hz: removes
    /// gravity and slow posture changes.
    public var bandLow: Double = 0.6
    /// Upper edge of the band-pass on |a| (second-order Butterworth low-pass, −3 dB), Hz: passes
    /// running cadences (4 steps/s at −4.5 dB) and removes impact ringing and hand tremor.
    public var bandHigh: Double = 3.5
    /// Time constant of the running mean square of the filtered signal, s.
    public var energyTimeConstant: Double = 2.0
    /// Time constant of the running autocorrelation that gives the step period, s.
    public var periodicityTimeConstant: Double = 4.0
    /// Shortest lag searched for the stride period, s.
    public var shortestStrideLag: Double = 0.4
    /// Longest lag searched for the stride period, s (2.5 s: 0.8 steps/s; slower walking falls back
    /// to the shortest-interval rule alone).
    public var longestStrideLag: Double = 2.5
    /// A lag counts as the period when its autocorrelation is at least this fraction of the best
    /// one (the shortest such lag wins, so multiples of the period are not taken).
    public var periodPeakFraction: Double = 0.9
    /// Least normalised autocorrelation for any period to be estimated at all.
    public var minimumPeriodicity: Double = 0.2
    /// When the normalised autocorrelation at half the found lag exceeds this, the lag was a stride
    /// (two steps, left and right unlike) and the step period is half of it; when it is below (the
    /// signal is in anti-phase at half the lag) the lag is one step.
    public var strideHalfLagThreshold: Double = -0.1
    /// Step periods shorter than this, s, are running cadences (over 2.4 steps/s; walking, on
    /// stairs too, stays under about 2.3). A lag is halved into such a period only on running's
    /// evidence: the two halves of the stride alike (``fastStrideHalfLagFraction``) or the
    /// signal as strong as running (``minimumRunningRMS``). Otherwise the lag is one step whose
    /// impact shows two peaks (stairs with the phone in a pocket, a sensor on the lower back):
    /// halved, every real step interval looked like two periods and ended the bout.
    public var fastestWalkingStepPeriod: Double = 0.42
    /// Least autocorrelation at half the lag, as a fraction of the autocorrelation at the lag,
    /// for a halving into a period under ``fastestWalkingStepPeriod``: running's two steps
    /// repeat each other nearly as well as the stride repeats itself, a second peak inside one
    /// step much less. On MotionSense's pocket trials, of the decisions that would halve into
    /// such a period, 8 % of jogging's fall under 0.35 (its 10th percentile is 0.36; those have
    /// running's strength) against 82 % of climbing stairs' (median 0.14).
    public var fastStrideHalfLagFraction: Double = 0.35
    /// Least RMS of the band-passed |a|, m/s², that admits such a halving without the
    /// correlation: running with unlike steps (a phone in one back pocket). Every MotionSense
    /// jogging trial has 4.0 m/s² or more in its 1st percentile; walking trials' medians are
    /// 3.2–5.0, stairs' 1.3–5.2.
    public var minimumRunningRMS: Double = 4.0
    /// Least normalised autocorrelation at the period for a new walking bout to be confirmed.
    public var minimumBoutPeriodicity: Double = 0.5
    /// Least peak height, m/s², and least height relative to the running RMS, outside the rhythm.
    public var minimumPeakHeight: Double = 0.5
    /// Least peak height as a fraction of the running RMS of the band-passed |a|; the larger of
    /// this and ``minimumPeakHeight`` is the threshold, so the bar rises with the gait's own
    /// strength.
    public var relativePeakHeight: Double = 0.6
    /// Least peak height, m/s², and relative to the RMS, for a peak where the rhythm expects the
    /// next step (weak steps in turns and at the end of a walk).
    public var minimumRhythmPeakHeight: Double = 0.2
    /// Least height, as a fraction of the same RMS, of a peak inside ``rhythmWindow`` during a
    /// bout; the larger of this and ``minimumRhythmPeakHeight`` applies, a lower bar than outside
    /// the rhythm.
    public var relativeRhythmPeakHeight: Double = 0.15
    /// The window in which a peak is "in rhythm", as fractions of the step period.
    public var rhythmWindow: ClosedRange<Double> = 0.7...1.4
    /// Shortest interval between two steps, s, and as a fraction of the step period (the larger
    /// applies): of the peaks closer than that, the highest is the step.
    public var minimumStepInterval: Double = 0.2
    /// Shortest interval between two steps as a fraction of the current step period; the larger of
    /// this times the period and ``minimumStepInterval`` applies.
    public var relativeMinimumStepInterval: Double = 0.55
    /// Intervals between consecutive steps of a bout, as fractions of the step period; an interval
    /// outside ends the bout.
    public var regularInterval: ClosedRange<Double> = 0.5...1.7
    /// Shortest step period accepted as walking or running, s (4 steps/s): faster periodic motion
    /// (shaking) is not counted.
    public var shortestStepPeriod: Double = 0.25
    /// Steps with regular intervals needed to confirm a bout (then all of them count).
    public var stepsToConfirmBout: Int = 3
    /// A bout whose periodicity is under ``minimumBoutPeriodicity`` but at least
    /// ``minimumIrregularBoutPeriodicity`` is confirmed by this many regular steps instead, if
    /// the step band's RMS is at least ``minimumIrregularBoutRMS``. Stairs with landings and
    /// turns, phone in a pocket, correlate less from stride to stride; one more regular step and
    /// the impacts of real stepping make up for it. Such a bout's first step is returned about
    /// one step period later than a regular bout's (2.4 s after it at 1.5 steps/s); without this
    /// path it was not counted at all.
    public var stepsToConfirmIrregularBout: Int = 4
    /// Least normalised autocorrelation at the period for ``stepsToConfirmIrregularBout``.
    public var minimumIrregularBoutPeriodicity: Double = 0.3
    /// Least RMS of the band-passed |a| (the running one, ``energyTimeConstant``) for
    /// ``stepsToConfirmIrregularBout``, m/s². Stepping puts about 0.2 g or more there (walking
    /// with the phone in a pocket: 2.3 m/s² in its 1st percentile; stairs: 2.0 in their 10th);
    /// vehicles rarely do (QROWD's bus rides: 1.9 in their 99th percentile, car rides 0.6):
    /// without this bound the irregular path counted 13 steps a minute on a bus.
    public var minimumIrregularBoutRMS: Double = 2.0
    /// When a bout is confirmed, leading peaks lower than this fraction of the bout's median peak
    /// are dropped (the push-off before the first heel strike).
    public var leadingPeakFraction: Double = 0.2
    /// Subtracted from a peak's time to give the reported step time, s: the delay of the causal
    /// band-pass and of the impact peak behind the heel strike (measured on IPOL's heel strikes).
    public var reportedTimeOffset: Double = 0.08
    /// Cut-off of the high-pass on |a| whose energy measures motion faster than steps, Hz.
    public var highFrequencyCutoff: Double = 6.0
    /// Peaks count only while the energy above ``highFrequencyCutoff`` is below this multiple of
    /// the step band's energy: fast shaking (≥ 4 Hz) and taps are mostly high-frequency, walking
    /// and running are not (at most 1.8 on any shared recording, 99th percentile).
    public var maximumHighFrequencyRatio: Double = 3.0
    /// A gap in the input longer than this ends the bout and restarts the grid, s; a sample
    /// earlier than the previous one by more than this starts a new timeline (see the type's
    /// overview), a less early one is skipped. Clamped to 0...10 s (NaN: the default), which bounds
    /// the interpolation across a gap to 10 s × ``gridRate`` grid samples.
    public var longestInputGap: Double = 1.0
    /// A shorter gap in the input (samples lost on a radio link, a sensor FIFO that overflowed)
    /// at least this long can hide a step: the interpolation across it flattens the impact, s.
    /// Inside a bout, when the interval across such a gap is two or three step periods, the steps
    /// that the rhythm puts in it are counted (see ``longestBridgedInterval``). Gaps are never
    /// bridged outside a bout or when the data before and after it disagree with the rhythm.
    public var shortestBridgedGap: Double = 0.25
    /// The most step periods an interval across a short gap may span and still be bridged: 3 (two
    /// hidden steps); a longer interval ends the bout as an irregular one does.
    public var longestBridgedInterval: Int = 3
    /// How far from a whole number of step periods an interval across a gap may be, as a fraction
    /// of one period, for the steps inside it to be counted.
    public var bridgedIntervalTolerance: Double = 0.25
    /// A sample whose acceleration exceeds this, g, is a corrupt reading (phone accelerometers
    /// measure up to ±16 g, a few ±32 g) and is left out as if missing; fed to the filters, one
    /// 1e100 would drown minutes of steps. At most 1000 g: a larger, infinite, zero or negative
    /// setting means 1000 g (NaN: the default), so that no sample let in can overflow the filters'
    /// squares.
    public var implausibleAcceleration: Double = 64

    // The gyroscope's strides (``StepDetector/process(time:rotationRate:)``; unused without a
    // gyroscope). Chosen on MotionSense's pocket trials against the thigh's own strides and
    // checked on IPOL's lower-back gyroscope, where they add nothing (docs/Steps.md).

    /// The stride tracker that reads the gyroscope.
    public var gyroscopeStrides = GyroscopeStrideTracker.Parameters()
    /// Strides compared at once with the steps the accelerometer found in them (1...8).
    public var stridesPerCheck: Int = 4
    /// Least number of steps missing from such a stretch (twice its strides, less the steps
    /// found) for them to be added: one may fall just outside it without being missed.
    public var leastMissingSteps: Int = 2
    /// Least number of steps found in the stretch per stride: the accelerometer must see the
    /// walk too (a swinging phone on a table does not make one).
    public var leastFoundStepsPerStride: Double = 0.5
    /// How long each stride of the stretch may last, s: 0.6 s (running) to 2 s (a slow climb).
    /// Shorter strides count only in a run of like ones (``shortestQuickStride``).
    public var strideDuration: ClosedRange<Double> = 0.6...2.0
    /// The shortest stride, s, of a stretch whose strides are all alike (the longest at most
    /// ``quickStrideSpread`` times the shortest): 0.4 s, five steps a second, a sprinter's
    /// cadence. Going down a flight of stairs quickly, a thigh swings through a stride in
    /// 0.45–0.6 s, stride after stride (MotionSense's pocket trials), where |a| shows one impact
    /// per stride. A lone short cycle between longer ones is not such a stride but one stride's
    /// rotation that crossed the hysteresis twice (seen in jogging), and is refused as before.
    public var shortestQuickStride: Double = 0.4
    /// How much the strides of a stretch with one shorter than ``strideDuration`` may differ: the
    /// longest at most this multiple of the shortest. A stride split in two gives two cycles of
    /// about half its length beside whole ones (0.5 and 0.52 s between 0.72 and 0.78 s in a
    /// jogging trial); a quick descent keeps its pace through a flight.
    public var quickStrideSpread: Double = 4.0 / 3.0
    /// Least RMS of the stride signal, rad/s, at every stride of the stretch: a limb's swing. A
    /// thigh walking gives 1 rad/s or more; a trunk's sway (IPOL's lower back) about 0.3.
    public var leastStrideRotationRate: Double = 0.7
    /// Least RMS of the step band of |a| (as ``minimumIrregularBoutRMS``), m/s², at the end of
    /// the stretch: stepping's impacts. Pedalling with the phone in a pocket turns the thigh as
    /// walking does but puts less there (QROWD's bike rides: 1.3–1.5 m/s² in the median).
    public var leastStrideCheckRMS: Double = 2.0
    /// Least number of peaks, each at a regular interval from the one before, that the
    /// gyroscope's strides confirm as a bout when |a| is not periodic enough to (a limb swinging
    /// stride after stride, through their span; see ``StepDetector/process(time:rotationRate:)``):
    /// as many as a periodic bout needs (``stepsToConfirmBout``). Pocket stairs, where |a| can
    /// lock on the stride. On MotionSense's 84 stair recordings 3 counts 40 steps more than 4,
    /// and both fall short of the thigh's own count (docs/Steps.md).
    public var stepsToConfirmStrideBout: Int = 3
    /// How long after the stretch ends it is compared, s: the accelerometer confirms a bout's
    /// first steps up to about 2 s after them. Steps added this way come that much later.
    public var strideCheckDelay: Double = 2.5

    public init() {}
    public static let `default` = Parameters()
  }
}
