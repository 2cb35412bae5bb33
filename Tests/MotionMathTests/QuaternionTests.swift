// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

/// Algebraic identities of rotations. Round trips use 1e-12 rad: a handful of roundings on unit
/// values, far below any physical effect and far above double-precision noise (~1e-16).
final class QuaternionTests: XCTestCase {
  let algebraicTolerance = 1e-12

  func testHamiltonProductOfBasisElements() {
    let i = Quaternion(w: 0, x: 1, y: 0, z: 0)
    let j = Quaternion(w: 0, x: 0, y: 1, z: 0)
    let k = Quaternion(w: 0, x: 0, y: 0, z: 1)
    XCTAssertEqual(i * j, k)
    XCTAssertEqual(j * k, i)
    XCTAssertEqual(k * i, j)
    XCTAssertEqual(i * i, Quaternion(w: -1, x: 0, y: 0, z: 0))
  }

  func testRotationAboutZTurnsXIntoY() {
    let q = Quaternion(angle: .pi / 2, axis: SIMD3(0, 0, 1))
    let v = q.act(on: SIMD3(1, 0, 0))
    XCTAssertEqual(v.x, 0, accuracy: algebraicTolerance)
    XCTAssertEqual(v.y, 1, accuracy: algebraicTolerance)
    XCTAssertEqual(v.z, 0, accuracy: algebraicTolerance)
  }

  func testRandomRotationIdentities() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    for trial in 0..<500 {
      let q = rng.nextUnitQuaternion()
      let p = rng.nextUnitQuaternion()
      let v = SIMD3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
      let context = "seed \(seed), trial \(trial), q = \(q)"
      XCTAssertLessThan((q * q.conjugate).angle, algebraicTolerance, context)
      XCTAssertEqual(q.act(on: v).length, v.length, accuracy: algebraicTolerance * 10, context)
      XCTAssertLessThan(
        (q.act(on: q.conjugate.act(on: v)) - v).length, algebraicTolerance * 10, context)
      let composed = (q * p).act(on: v) - q.act(on: p.act(on: v))
      XCTAssertLessThan(composed.length, algebraicTolerance * 10, context)
      XCTAssertLessThan(
        Quaternion(rotationVector: q.rotationVector).angle(to: q), algebraicTolerance * 100, context
      )

      let m = RotationMatrix(q)
      XCTAssertEqual(m.determinant, 1, accuracy: algebraicTolerance, context)
      XCTAssertLessThan((m * v - q.act(on: v)).length, algebraicTolerance * 10, context)
      XCTAssertLessThan(Quaternion(m).angle(to: q), algebraicTolerance * 100, context)
      let product = m * m.transposed
      XCTAssertEqual(product.row1.x, 1, accuracy: algebraicTolerance, context)
      XCTAssertEqual(product.row1.y, 0, accuracy: algebraicTolerance, context)
    }
  }

  func testQuaternionFromTwoDirections() {
    var rng = SplitMix64(seed: testSeed())
    for _ in 0..<100 {
      let a = rng.nextUnitVector()
      let b = rng.nextUnitVector()
      let q = Quaternion(rotating: a, to: b)
      XCTAssertLessThan((q.act(on: a) - b).length, 1e-12)
    }
    let flip = Quaternion(rotating: SIMD3(0, 0, 1), to: SIMD3(0, 0, -1))
    XCTAssertLessThan((flip.act(on: SIMD3(0, 0, 1)) - SIMD3(0, 0, -1)).length, 1e-12)
  }

  func testExplicitLayouts() {
    let q = Quaternion(w: 1, x: 2, y: 3, z: 4)
    XCTAssertEqual(q.wxyz, SIMD4(1, 2, 3, 4))
    XCTAssertEqual(q.xyzw, SIMD4(2, 3, 4, 1))
    XCTAssertEqual(Quaternion(wxyz: q.wxyz), q)
    XCTAssertEqual(Quaternion(xyzw: q.xyzw), q)
  }

  func testDegenerateNormalisationIsIdentity() {
    XCTAssertEqual(Quaternion(w: 0, x: 0, y: 0, z: 0).normalized, .identity)
    XCTAssertEqual(Quaternion(w: .nan, x: 0, y: 0, z: 0).normalized, .identity)
  }
}
