// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Horizontal-only hard-iron calibration for rotation about a single (vertical) axis.
///
/// A device lying flat and turned about the vertical sees the earth field rotate in the plane
/// across its rotation axis `a` (a fixed direction in the sensor frame), while the field along `a`
/// stays constant: the offset along `a` cannot be told from the earth field's vertical component
/// (`m·a = h_z + b·a` for every sample), but the offset across `a` moves the centre of the circle
/// the field draws and is fully observable — the classic "turn it in a circle" compass
/// calibration. In the normal equations `M·b = g` of the hard-iron fit this shows as an
/// information matrix `M` with two large eigenvalues and one near zero along `a`.
///
/// The fit solves `M·b = g` only in the span of the two well-excited eigenvectors and keeps the
/// offset along `a` at the value in use. When `a` points along the vertical (checked from the
/// attitudes seen), the offset left along it is vertical in the earth frame, so it changes only
/// the calibrated field's norm and dip, not its horizontal direction: the heading is unbiased.
/// The fit's earth field (with the vertical component shifted by that leftover offset) is exactly
/// what the calibrated field reads, so it serves as the disturbance reference.
extension MagnetometerCalibrator {
  /// Fits the offset across the rotation axis when the orientations span rotation about the
  /// vertical only, and adopts it for the heading when it moves the offset in use (or the raw
  /// field) by more than ``Parameters/minimumOffsetChange``. The accuracy becomes at most `low`.
  mutating func solveHorizontal() {
    let n = weight
    guard n > 1 else { return }
    let sumRTransposed = sumR.transposed
    // Normalised information matrix of the offset, I − (ΣR/n)ᵀ(ΣR/n), in [0, 1] per direction.
    let information = Matrix3.diagonal(1) - (sumRTransposed * sumR).scaled(by: 1 / (n * n))
    let (values, vectors) = information.symmetricEigen()
    let (weak, first, second) = (vectors.0, vectors.1, vectors.2)
    guard values.1 > 1e-6, values.2 > 1e-6 else { return }
    let planarExcitation = 2 / (1 / values.1 + 1 / values.2)
    guard planarExcitation >= parameters.horizontalExcitation else { return }
    // The attitudes turn about `weak` when its image in the earth frame is the same for all
    // samples; then the mean image has unit length. It must point along the vertical.
    let axisInEarth = sumR * weak / n
    guard Swift.abs(axisInEarth.z) >= Double.cos(parameters.horizontalAxisTolerance) else { return }

    // Normal equations (unnormalised): n·information·b = g, g = Σm − ΣRᵀΣRm/n. Keep the offset
    // along the weak axis, solve for the rest in the eigenbasis.
    let g = sumM - (sumRTransposed * sumRm) / n
    let kept = (hardIronOffset * weak).sum() * weak
    let rightHandSide = g - (information * kept) * n
    let offset =
      kept
      + ((first * rightHandSide).sum() / (n * values.1)) * first
      + ((second * rightHandSide).sum() / (n * values.2)) * second
    let h = (sumRm - sumR * offset) / n
    // Residual at the best h for this offset: Σ|m − b|² − n|h|² (|Rᵀh| = |h|).
    let rss = Swift.max(
      0, sumMM - 2 * (offset * sumM).sum() + n * offset.lengthSquared - n * h.lengthSquared)
    let hNorm = h.length
    guard hNorm > 0, offset.isFinite else { return }
    let residual = (rss / (3 * n)).squareRoot() / hNorm
    let horizontalField = (h.x * h.x + h.y * h.y).squareRoot()
    guard residual <= parameters.mediumResidual, parameters.fieldNormRange.contains(hNorm),
      horizontalField >= parameters.minimumHorizontalField
    else { return }

    // The heading sees the raw field until a horizontal calibration is in use, so compare
    // with what it sees: an iron-free sensor keeps its raw field.
    let inUse = isHorizontalCalibrationInUse ? hardIronOffset : .zero
    guard (offset - inUse).length > parameters.minimumOffsetChange else {
      if accuracy == .uncalibrated && isHorizontalCalibrationInUse { accuracy = .low }
      return
    }
    hardIronOffset = offset
    softIronMatrix = .diagonal(1)
    softIronInverse = .diagonal(1)
    adoptedEarthField = h
    isHorizontalCalibrationInUse = true
    if accuracy == .uncalibrated { accuracy = .low }
    trustedCalibrationChangeCount &+= 1
  }
}

extension MagnetometerCalibrator {
  /// Takes over the calibration `other` uses (offset, soft iron, accuracy, trust and the fit's
  /// earth field), keeping this calibrator's own accumulated sums.
  public mutating func adoptCalibration(of other: MagnetometerCalibrator) {
    hardIronOffset = other.hardIronOffset
    softIronMatrix = other.softIronMatrix
    softIronInverse = other.softIronInverse
    accuracy = other.accuracy
    adoptedAccuracy = other.adoptedAccuracy
    adoptedEarthField = other.adoptedEarthField
    isHorizontalCalibrationInUse = other.isHorizontalCalibrationInUse
    hasFullCalibrationFit = other.hasFullCalibrationFit
  }
}

extension Matrix3 {
  /// Eigenvalues (ascending) and unit eigenvectors of a symmetric matrix, by cyclic Jacobi
  /// rotations (converges to machine precision in a few sweeps for 3×3).
  func symmetricEigen() -> (
    values: (Double, Double, Double), vectors: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
  ) {
    // Row-major 3×3 in fixed-size vectors (index 3·row + column): no heap allocation.
    var a = SIMD16<Double>(repeating: 0)
    var v = SIMD16<Double>(repeating: 0)
    for k in 0..<3 {
      a[k] = row1[k]
      a[3 + k] = row2[k]
      a[6 + k] = row3[k]
      v[4 * k] = 1
    }
    for _ in 0..<12 {
      let offDiagonal = a[1] * a[1] + a[2] * a[2] + a[5] * a[5]
      if offDiagonal < 1e-30 { break }
      for pair in 0..<3 {
        let p = pair == 2 ? 1 : 0
        let q = pair == 0 ? 1 : 2
        let apq = a[3 * p + q]
        guard apq != 0 else { continue }
        // Rotation angle zeroing a[p][q]: cot 2θ = (a_qq − a_pp) / 2a_pq.
        let theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq)
        let t = (theta >= 0 ? 1 : -1) / (Swift.abs(theta) + (theta * theta + 1).squareRoot())
        let c = 1 / (t * t + 1).squareRoot()
        let s = t * c
        for k in 0..<3 {
          let akp = a[3 * k + p], akq = a[3 * k + q]
          a[3 * k + p] = c * akp - s * akq
          a[3 * k + q] = s * akp + c * akq
        }
        for k in 0..<3 {
          let apk = a[3 * p + k], aqk = a[3 * q + k]
          a[3 * p + k] = c * apk - s * aqk
          a[3 * q + k] = s * apk + c * aqk
        }
        for k in 0..<3 {
          let vkp = v[3 * k + p], vkq = v[3 * k + q]
          v[3 * k + p] = c * vkp - s * vkq
          v[3 * k + q] = s * vkp + c * vkq
        }
      }
    }
    func column(_ i: Int) -> SIMD3<Double> { SIMD3(v[i], v[3 + i], v[6 + i]) }
    // Sort the three eigenpairs by value.
    var order = SIMD3<Int>(0, 1, 2)
    if a[4 * order[0]] > a[4 * order[1]] { order = SIMD3(order[1], order[0], order[2]) }
    if a[4 * order[1]] > a[4 * order[2]] { order = SIMD3(order[0], order[2], order[1]) }
    if a[4 * order[0]] > a[4 * order[1]] { order = SIMD3(order[1], order[0], order[2]) }
    return (
      (a[4 * order[0]], a[4 * order[1]], a[4 * order[2]]),
      (column(order[0]), column(order[1]), column(order[2]))
    )
  }
}
