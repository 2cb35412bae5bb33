// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Online hard- and soft-iron magnetometer calibration aided by the gyroscope/accelerometer
/// attitude, with a calibration accuracy derived from the fit.
///
/// Iron fixed to the device rotates with it, so it adds a constant offset (hard iron) and a linear
/// distortion (soft iron) in the *sensor* frame, while the earth's field is constant in the earth
/// frame. With the 6D attitude `R` known from the inertial sensors, the raw field obeys
/// `m = A·Rᵀ·h + b` (h the field in the 6D earth frame, b the offset, A the soft-iron matrix):
///
/// 1. Hard iron (A = I) is a *linear* least-squares problem in (h, b) — the attitude-aided bias
///    estimation of Troni & Whitcomb (2013) — solved from exponentially forgotten sums
///    (ΣR, ΣR·m, Σm, Σ|m|², count) whose normal equations reduce to one 3×3 system.
/// 2. The full model is bilinear; starting from step 1 it is solved by alternating least squares
///    (h for fixed A, b; then A, b for fixed h — each a small linear system). Forgotten sums of
///    `rᵢ·mᵀ` and `rᵢ·rⱼᵀ` (rᵢ the rows of R) make both steps exact for any h, A, b, so no sample
///    is stored. A is scaled to unit determinant (its scale cannot be told from |h|); soft iron is
///    used only when it explains the data clearly better than hard iron alone.
/// 3. A new hard-iron-only offset replaces the one in use only when it differs by more than
///    ``Parameters/minimumOffsetChange``: small changes are within the fit's attitude-induced
///    error.
///
/// The solution is adopted only when the orientations seen span all axes (the *excitation*, the
/// harmonic mean of the eigenvalues of the offset's normalised information matrix, in [0, 1]) and
/// the fit residual is small compared with the field; spatially varying disturbances (a magnet on
/// the table) fit badly and are not learnt. A device-fixed magnet attached later is learnt within
/// about one forgetting time of turning the device through several orientations.
///
/// When the orientations span rotation about the vertical only (a device flat on a desk turned
/// about itself), the full fit cannot see the offset along the rotation axis, but the offset
/// across it is observable: a horizontal-only fit (see `MagnetometerCalibrator+Horizontal.swift`
/// and ``isHorizontalCalibrationInUse``) corrects it for the heading while reporting no more than
/// `low` accuracy, until a full fit good enough for the heading replaces it.
///
/// The accuracy is `uncalibrated` until a fit is first adopted, then `low`, `medium` or `high` by
/// excitation and residual thresholds; it falls back to `low` when well-excited data no longer
/// fit (the iron changed). Everything is fixed-size: no allocation per sample.
///
/// The heading should rely on the calibration only once it is *trusted* (``isTrustedForHeading``:
/// taken from, or confirmed by, a fit of medium accuracy or better). A better fit replaces a
/// rougher offset in use; a fit that finds no offset worth applying (within
/// ``Parameters/minimumOffsetChange`` of none, as on a factory-calibrated sensor) only raises the
/// trust and leaves the raw field untouched. ``trustedCalibrationChangeCount`` tells the heading
/// filter when the field it uses jumped.
public struct MagnetometerCalibrator: Sendable {
  /// Tuning, each with its unit.
  public struct Parameters: Sendable, Equatable {
    /// Time constant of the exponential forgetting of old samples, s. Default: 20 s.
    public var forgettingTime = 20.0
    /// A sample is accumulated once at least this much time has passed since the previous one
    /// (samples this close are strongly correlated; a time, so that the fit sees the same data
    /// at any rate), s. Default: 0.1 s (on BROAD decimated to 95 and 20 Hz it scored better
    /// than 0.025 s and equal at 286 and 48 Hz).
    public var accumulationInterval = 0.1
    /// The fit is solved every this many accumulated samples. Default: 8.
    public var solveInterval = 8
    /// Smallest excitation (orientation spread, 0…1) for a usable (low accuracy) fit. Default:
    /// 0.25.
    public var lowExcitation = 0.25
    /// Excitation for medium accuracy. Default: 0.5.
    public var mediumExcitation = 0.5
    /// Excitation for high accuracy. Default: 0.7.
    public var highExcitation = 0.7
    /// Largest RMS residual relative to the field norm for a usable fit. Default: 0.06.
    public var lowResidual = 0.06
    /// Relative residual for medium accuracy. Default: 0.04.
    public var mediumResidual = 0.04
    /// Relative residual for high accuracy. Default: 0.025.
    public var highResidual = 0.025
    /// Plausible earth field norms, µT. Default: 15…100 µT.
    public var fieldNormRange: ClosedRange<Double> = 15...100
    /// Soft iron is estimated only above this excitation. Default: 0.6.
    public var softIronExcitation = 0.6
    /// Largest accepted deviation of the soft-iron matrix from the identity (any entry).
    /// Default: 0.3.
    public var softIronLimit = 0.3

    /// A new hard-iron offset replaces the one in use only when they differ by more than this,
    /// µT: smaller differences are within what attitude errors do to the fit (1° of attitude
    /// error moves a 45 µT field by 0.8 µT), and with a steep field a few µT move the heading by
    /// several degrees. Default: 5 µT.
    public var minimumOffsetChange = 5.0
    /// Soft iron is applied only when the fitted matrix differs from the identity by more than
    /// this in some entry (smaller distortions are within the fit's uncertainty). Default: 0.15.
    public var minimumSoftIronDeviation = 0.15
    /// The heading uses the calibrated field only when the calibration in use was adopted from a
    /// fit of at least this accuracy (see ``MagnetometerCalibrator/isTrustedForHeading``).
    /// Default: medium.
    public var headingAccuracy = MagneticCalibrationAccuracy.medium

    /// Whether a horizontal-only hard-iron fit is made while the orientations seen span rotation
    /// about the vertical only (see ``MagnetometerCalibrator/isHorizontalCalibrationInUse``).
    /// Default: true.
    public var usesHorizontalCalibration = true
    /// Smallest excitation (0…1, harmonic mean of the two largest eigenvalues of the offset's
    /// normalised information matrix) for a horizontal-only fit; 0.4 is a sweep of about 130°
    /// about one axis. Default: 0.4.
    public var horizontalExcitation = 0.4
    /// The unobservable direction (the rotation axis) must lie within this angle of the vertical
    /// for a horizontal-only fit, rad: only then does the offset left along it not bias the
    /// heading. Default: 20° (0.349 rad).
    public var horizontalAxisTolerance = 20.0 * .pi / 180
    /// Smallest horizontal earth field for a horizontal-only fit, µT (near the magnetic poles the
    /// horizontal field is too weak to calibrate from a circle). Default: 5 µT.
    public var minimumHorizontalField = 5.0

    public init() {}
    /// The default tuning.
    public static let `default` = Parameters()
  }

  public let parameters: Parameters

  /// The hard-iron offset in use, µT (sensor frame).
  public internal(set) var hardIronOffset = SIMD3<Double>.zero
  /// The inverse of the soft-iron matrix in use (identity when unknown).
  var softIronInverse = Matrix3.diagonal(1)
  /// The soft-iron matrix in use (identity when unknown).
  var softIronMatrix = Matrix3.diagonal(1)
  /// The rows of the soft-iron matrix in use (unit determinant; identity when unknown).
  public var softIronRows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
    (softIronMatrix.row1, softIronMatrix.row2, softIronMatrix.row3)
  }
  /// The accuracy of the calibration in use.
  public internal(set) var accuracy = MagneticCalibrationAccuracy.uncalibrated
  /// The quality of the fit the calibration in use was taken from (`uncalibrated` while none
  /// has been adopted). Unlike ``accuracy``, it changes only when the calibration does.
  public internal(set) var adoptedAccuracy = MagneticCalibrationAccuracy.uncalibrated
  /// Whether the calibration in use comes from a fit of at least
  /// ``Parameters/headingAccuracy``, so that the heading may rely on the calibrated field.
  ///
  /// A fit of low quality (few orientations, or a poor residual, as when a magnet is moved
  /// around the device) is reported but not trusted for the heading: on a factory-calibrated
  /// sensor its few-µT error costs more heading accuracy than it gains.
  public var isTrustedForHeading: Bool { adoptedAccuracy >= parameters.headingAccuracy }
  /// Whether the offset in use comes from a horizontal-only fit: the orientations seen spanned
  /// rotation about the vertical only, so only the offset across the rotation axis was fitted
  /// (the component along it kept its previous value). The heading may use it (the offset left
  /// along the vertical axis changes only the field's norm and dip), but it is no full
  /// calibration: the accuracy stays `low` and ``hasFullCalibrationFit`` false.
  public internal(set) var isHorizontalCalibrationInUse = false
  /// Whether the heading may use ``calibrate(_:)``: the calibration in use is trusted, or it is a
  /// horizontal-only calibration.
  public var isUsableForHeading: Bool { isTrustedForHeading || isHorizontalCalibrationInUse }
  /// Whether a full (all-axes) fit has ever been good enough to report, i.e. whether the device
  /// was turned through enough orientations; false while only horizontal-only fits exist.
  public internal(set) var hasFullCalibrationFit = false
  /// Counts the changes of the *trusted* calibration (the calibration in use while
  /// ``isTrustedForHeading``, no correction otherwise), so that a heading filter fed with
  /// ``calibrate(_:)`` when trusted and the raw field otherwise can tell when its field jumped
  /// (and re-reference its disturbance detection on the new field).
  public internal(set) var trustedCalibrationChangeCount = 0
  /// The earth field of the fit behind the calibration in use, µT, in the 6D earth frame of
  /// the attitude passed to ``update(field:earthFromSensor:samplePeriod:)`` (z up, so its
  /// norm and dip are meaningful; its heading is not); zero while none has been adopted.
  public internal(set) var adoptedEarthField = SIMD3<Double>.zero
  /// Excitation (0…1) and relative residual of the latest fit.
  public private(set) var excitation = 0.0
  /// The latest fit's RMS residual per axis as a fraction of the fitted field's norm (0.03:
  /// readings stray from the fitted sphere or ellipsoid by about 3 % of the field, RMS); infinite
  /// before the first fit.
  public private(set) var relativeResidual = Double.infinity
  /// Norm of the earth field from the latest fit, µT.
  public private(set) var fieldNorm = 0.0

  // Hard-iron sums.
  private(set) var weight = 0.0
  private(set) var sumR = Matrix3.diagonal(0)
  private(set) var sumRm = SIMD3<Double>.zero
  private(set) var sumM = SIMD3<Double>.zero
  private(set) var sumMM = 0.0
  // Soft-iron sums (with rᵢ the i-th row of R as a column): Tᵢ = Σ rᵢ mᵀ and Pᵢⱼ = Σ rᵢ rⱼᵀ.
  // They make every quantity of the model m = A·Rᵀh + b computable for any h, A and b later,
  // so the alternating fit below is exact (no stale estimates inside the sums).
  private var t1 = Matrix3.diagonal(0), t2 = Matrix3.diagonal(0), t3 = Matrix3.diagonal(0)
  private var p11 = Matrix3.diagonal(0), p22 = Matrix3.diagonal(0), p33 = Matrix3.diagonal(0)
  private var p12 = Matrix3.diagonal(0), p13 = Matrix3.diagonal(0), p23 = Matrix3.diagonal(0)
  private var pendingTime = 0.0
  private var accumulated = 0
  private var forgetting = 1.0
  private var lastPeriod = 0.0

  /// Creates a calibrator with no knowledge of the device's iron.
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// The field with the calibration removed: `A⁻¹·(m − b)`, µT.
  @inline(__always)
  public func calibrate(_ raw: SIMD3<Double>) -> SIMD3<Double> {
    softIronInverse * (raw - hardIronOffset)
  }

  /// Accumulates one raw field sample `field` (µT) seen at attitude `earthFromSensor` (6D).
  public mutating func update(
    field: SIMD3<Double>, earthFromSensor: Quaternion, samplePeriod: Double
  ) {
    // Sample periods below 1 ns (hostile timestamps) still count, so accumulation cannot stall.
    pendingTime += Swift.max(samplePeriod, 1e-9)
    guard pendingTime >= parameters.accumulationInterval else { return }
    let period = pendingTime
    pendingTime = 0
    if period != lastPeriod {
      lastPeriod = period
      forgetting =
        parameters.forgettingTime > 0 ? Double.exp(-period / parameters.forgettingTime) : 0
    }
    let f = forgetting
    let q = earthFromSensor
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    // Rows of R = earthFromSensor.
    let r1 = SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y))
    let r2 = SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x))
    let r3 = SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    weight = f * weight + 1
    sumR = Matrix3(row1: f * sumR.row1 + r1, row2: f * sumR.row2 + r2, row3: f * sumR.row3 + r3)
    sumRm = f * sumRm + SIMD3((r1 * field).sum(), (r2 * field).sum(), (r3 * field).sum())
    sumM = f * sumM + field
    sumMM = f * sumMM + field.lengthSquared
    t1 = Self.accumulate(t1, f, r1, field)
    t2 = Self.accumulate(t2, f, r2, field)
    t3 = Self.accumulate(t3, f, r3, field)
    p11 = Self.accumulate(p11, f, r1, r1)
    p22 = Self.accumulate(p22, f, r2, r2)
    p33 = Self.accumulate(p33, f, r3, r3)
    p12 = Self.accumulate(p12, f, r1, r2)
    p13 = Self.accumulate(p13, f, r1, r3)
    p23 = Self.accumulate(p23, f, r2, r3)
    accumulated += 1
    if accumulated >= parameters.solveInterval {
      accumulated = 0
      solve()
    }
  }

  /// Solves the full fit, then, while it cannot be trusted, the horizontal-only fit.
  private mutating func solve() {
    solveFull()
    if parameters.usesHorizontalCalibration && !isTrustedForHeading
      && excitation < parameters.mediumExcitation
    {
      solveHorizontal()
    }
  }

  /// Solves the hard-iron fit (and, when well excited, the soft-iron fit) and adopts it if good.
  private mutating func solveFull() {
    let n = weight
    guard n > 1 else { return }
    // b = M⁻¹ (Σm − ΣRᵀ ΣRm / n) with M = n I − ΣRᵀ ΣR / n;  h = (ΣRm − ΣR b) / n.
    let srt = sumR.transposed
    let m = Matrix3.diagonal(n) - (srt * sumR).scaled(by: 1 / n)
    // Excitation: harmonic mean of the eigenvalues of M/n, i.e. 3 / trace((M/n)⁻¹).
    guard let mInverse = m.inverse else {
      excitation = 0
      return
    }
    let traceInverse = mInverse.trace * n
    excitation = traceInverse > 0 ? Swift.min(1, 3 / traceInverse) : 0
    let b = mInverse * (sumM - (srt * sumRm) / n)
    let h = (sumRm - sumR * b) / n
    // Residual sum of squares at the optimum: Σ|m|² − θᵀg.
    let rss = Swift.max(0, sumMM - (h * sumRm).sum() - (b * sumM).sum())
    let hNorm = h.length
    fieldNorm = hNorm
    relativeResidual = hNorm > 0 ? (rss / (3 * n)).squareRoot() / hNorm : .infinity

    var offset = b
    var soft: (matrix: Matrix3, inverse: Matrix3, offset: SIMD3<Double>, residual: Double)? = nil
    if excitation >= parameters.softIronExcitation, parameters.fieldNormRange.contains(hNorm) {
      soft = solveSoftIron(initialField: h)
      // Prefer soft iron only when it explains the data clearly better.
      if let fit = soft, fit.residual < 0.8 * relativeResidual {
        relativeResidual = fit.residual
        offset = fit.offset
      } else {
        soft = nil
      }
    }
    guard excitation >= parameters.lowExcitation, relativeResidual <= parameters.lowResidual,
      parameters.fieldNormRange.contains(hNorm)
    else {
      // The calibration in use may still be right; only report a lower accuracy when the current
      // data no longer fits it at all.
      if accuracy > .low && excitation >= parameters.mediumExcitation { accuracy = .low }
      return
    }
    let fitAccuracy: MagneticCalibrationAccuracy
    if excitation >= parameters.highExcitation && relativeResidual <= parameters.highResidual {
      fitAccuracy = .high
    } else if excitation >= parameters.mediumExcitation
      && relativeResidual <= parameters.mediumResidual
    {
      fitAccuracy = .medium
    } else {
      fitAccuracy = .low
    }
    hasFullCalibrationFit = true
    // A horizontal-only calibration in use is replaced only by a full fit good enough for the
    // heading: a rougher full fit would take the heading back to the raw field.
    if isHorizontalCalibrationInUse && fitAccuracy < parameters.headingAccuracy {
      accuracy = fitAccuracy
      return
    }
    let wasTrusted = isTrustedForHeading
    var changed = false
    switch decision(fitAccuracy: fitAccuracy, offset: offset, softIron: soft?.matrix) {
    case .adopt(let isJump):
      changed = isJump
      if let fit = soft {
        hardIronOffset = fit.offset
        softIronMatrix = fit.matrix
        softIronInverse = fit.inverse
      } else {
        hardIronOffset = offset
        softIronInverse = .diagonal(1)
        softIronMatrix = .diagonal(1)
      }
      adoptedAccuracy = fitAccuracy
      adoptedEarthField = h
      isHorizontalCalibrationInUse = false
    case .confirm:
      adoptedAccuracy = fitAccuracy
      adoptedEarthField = h
      isHorizontalCalibrationInUse = false
    case .keep:
      break
    }
    // The trusted calibration changed when the trust did (unless the calibration in use is the
    // identity either way) or when a trusted calibration was replaced.
    let isIdentity = hardIronOffset == .zero && softIronMatrix == .diagonal(1)
    if (wasTrusted != isTrustedForHeading && !isIdentity)
      || (changed && (wasTrusted || isTrustedForHeading))
    {
      trustedCalibrationChangeCount &+= 1
    }
    accuracy = fitAccuracy
  }

  /// What a new full fit does to the calibration in use.
  enum FitDecision: Equatable {
    /// The fit replaces the calibration in use; `isJump` when the field changes clearly (an
    /// offset beyond the minimum change, a better fit refining an offset, or a soft-iron entry
    /// moving by more than a third of the smallest soft iron applied).
    case adopt(isJump: Bool)
    /// The calibration in use stays, but the fit confirms it at a higher accuracy (raises the
    /// trust).
    case confirm
    /// Nothing changes.
    case keep
  }

  /// Which fit replaces the calibration in use:
  /// - a fit with soft iron, or with a clearly different offset, does, unless it would replace
  ///   a trusted calibration with an untrusted fit (a magnet moved near the device fits poorly
  ///   and must not undo a good calibration; a magnet fixed to it is learnt once its fit is good
  ///   enough);
  /// - a better fit replaces an earlier, rougher offset even when it moved by less than the
  ///   minimum change, but when no correction is in use and the fit agrees with none (within
  ///   the minimum change) it only raises the trust: a factory-calibrated sensor keeps its raw
  ///   field instead of taking on the fit's few-µT uncertainty.
  func decision(
    fitAccuracy: MagneticCalibrationAccuracy, offset: SIMD3<Double>, softIron: Matrix3?
  ) -> FitDecision {
    let offsetChanged = (offset - hardIronOffset).length > parameters.minimumOffsetChange
    let keepsTrust = fitAccuracy >= parameters.headingAccuracy || !isTrustedForHeading
    let refines = fitAccuracy > adoptedAccuracy && hardIronOffset != .zero
    if refines
      || (keepsTrust && (softIron != nil || offsetChanged || softIronMatrix != .diagonal(1)))
    {
      // Soft-iron fits are refreshed at every solve; only a clear change counts as a jump.
      var isJump = refines || offsetChanged
      if let matrix = softIron {
        let deviation = matrix - softIronMatrix
        isJump =
          isJump
          || Swift.max(
            deviation.row1.magnitudeMax, deviation.row2.magnitudeMax, deviation.row3.magnitudeMax)
            > parameters.minimumSoftIronDeviation / 3
      } else {
        isJump = isJump || softIronMatrix != .diagonal(1)
      }
      return .adopt(isJump: isJump)
    }
    return fitAccuracy > adoptedAccuracy ? .confirm : .keep
  }

  /// `f·m + u vᵀ`.
  @inline(__always)
  private static func accumulate(
    _ m: Matrix3, _ f: Double, _ u: SIMD3<Double>, _ v: SIMD3<Double>
  ) -> Matrix3 {
    Matrix3(row1: f * m.row1 + u.x * v, row2: f * m.row2 + u.y * v, row3: f * m.row3 + u.z * v)
  }

  /// Fits the full model `m = A·Rᵀh + b` by alternating least squares from the hard-iron
  /// solution (`h` for fixed A, b; then A, b for fixed h), using the exact sums. A is scaled to
  /// unit determinant (its scale is not separable from |h|). Returns A, A⁻¹, b and the relative
  /// RMS residual; `nil` when ill-conditioned, implausible or within
  /// ``Parameters/minimumSoftIronDeviation`` of the identity.
  private func solveSoftIron(
    initialField: SIMD3<Double>
  )
    -> (matrix: Matrix3, inverse: Matrix3, offset: SIMD3<Double>, residual: Double)?
  {
    let n = weight
    var h = initialField
    var a = Matrix3.diagonal(1)
    var offset = SIMD3<Double>.zero
    var sumVV = Matrix3.diagonal(0), sumV = SIMD3<Double>.zero, sumMV = Matrix3.diagonal(0)
    for iteration in 0..<8 {
      if iteration > 0 {
        // h = (Σ R·C·m − ΣR·C·b) / n with C = A⁻¹ (from C(m − b) = Rᵀh and R·Rᵀ = I).
        guard let c = a.inverse else { return nil }
        func contract(_ t: Matrix3) -> Double {
          (c.row1 * t.row1).sum() + (c.row2 * t.row2).sum() + (c.row3 * t.row3).sum()
        }
        h = (SIMD3(contract(t1), contract(t2), contract(t3)) - sumR * (c * offset)) / n
      }
      // Sums of v = Rᵀh: Σvvᵀ = Σᵢⱼ hᵢhⱼ Pᵢⱼ, Σv = ΣRᵀh, Σ m vᵀ = Σᵢ hᵢ Tᵢᵀ.
      let cross =
        (p12 + p12.transposed).scaled(by: h.x * h.y)
        + (p13 + p13.transposed).scaled(by: h.x * h.z)
        + (p23 + p23.transposed).scaled(by: h.y * h.z)
      sumVV =
        p11.scaled(by: h.x * h.x) + p22.scaled(by: h.y * h.y) + p33.scaled(by: h.z * h.z) + cross
      sumV = sumR.transposed * h
      sumMV = (t1.scaled(by: h.x) + t2.scaled(by: h.y) + t3.scaled(by: h.z)).transposed
      // A, b for fixed h; eliminate b: A·C = Σ m vᵀ − Σm Σvᵀ/n with C = Σ v vᵀ − Σv Σvᵀ/n.
      let centred =
        sumVV
        - Matrix3(row1: sumV.x * sumV, row2: sumV.y * sumV, row3: sumV.z * sumV).scaled(by: 1 / n)
      guard let cInverse = centred.inverse else { return nil }
      let mv =
        sumMV
        - Matrix3(row1: sumM.x * sumV, row2: sumM.y * sumV, row3: sumM.z * sumV).scaled(by: 1 / n)
      a = mv * cInverse
      offset = (sumM - a * sumV) / n
    }
    // Residual: Σ|m|² − 2·Σ mᵀA v − 2 b·Σm + tr(A Σvvᵀ Aᵀ) + 2 bᵀA Σv + n|b|².
    let aT = a.transposed
    let crossTerm =
      (aT.row1 * sumMV.column1).sum() + (aT.row2 * sumMV.column2).sum()
      + (aT.row3 * sumMV.column3).sum()
    let avv = a * sumVV
    let quadratic =
      (avv.row1 * a.row1).sum() + (avv.row2 * a.row2).sum() + (avv.row3 * a.row3).sum()
    let rss =
      sumMM - 2 * crossTerm - 2 * (offset * sumM).sum() + quadratic
      + 2 * (offset * (a * sumV)).sum() + n * offset.lengthSquared
    let det = (a.row1 * a.row2.cross3(a.row3)).sum()
    let hNorm = h.length * Double.pow(Swift.max(det, 1e-12), 1.0 / 3)
    guard det > 0, hNorm > 0 else { return nil }
    let scaled = a.scaled(by: 1 / Double.pow(det, 1.0 / 3))
    let deviation = scaled - .diagonal(1)
    let largest = Swift.max(
      deviation.row1.magnitudeMax, deviation.row2.magnitudeMax, deviation.row3.magnitudeMax)
    guard largest <= parameters.softIronLimit, largest >= parameters.minimumSoftIronDeviation,
      let inverse = scaled.inverse
    else { return nil }
    let residual = (Swift.max(0, rss) / (3 * n)).squareRoot() / hNorm
    return (scaled, inverse, offset, residual)
  }
}

extension SIMD3 where Scalar == Double {
  /// The largest absolute component.
  fileprivate var magnitudeMax: Double { Swift.max(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }
}
