// SPDX-License-Identifier: Apache-2.0

import Geomagnetism
import XCTest

/// WMM2025 against NOAA/NCEI's published test values.
///
/// Two official sources (both public domain), transcribed here as data:
/// - the "WMM2025 Test Values" table of the WMM2025 report / `WMM2025testvalues.pdf`: 12 rows, X Y
///   Z H F rounded to 0.1 nT, I and D to 0.01°;
/// - `WMM2025_TestValues.txt` from `WMM2025COF.zip`: 100 rows with intensities printed to 1e-6 nT
///   and angles to 0.01°. 48 of its rows are used (the ones whose text was available offline), each
///   with the columns that were available.
final class WorldMagneticModelTestValuesTests: XCTestCase {
  private let model = WorldMagneticModel.wmm2025

  /// One row of the report table: everything rounded to 0.1 nT / 0.01°.
  private struct ReportRow {
    var year, heightKilometers, latitude, longitude, x, y, z, h, f, inclination, declination: Double
  }

  private let reportRows: [ReportRow] = [
    .init(
      year: 2025.0, heightKilometers: 0, latitude: 80, longitude: 0, x: 6521.6, y: 145.9,
      z: 54791.5, h: 6523.2, f: 55178.5, inclination: 83.21, declination: 1.28),
    .init(
      year: 2025.0, heightKilometers: 0, latitude: 0, longitude: 120, x: 39677.8, y: -109.6,
      z: -10580.2, h: 39677.9, f: 41064.3, inclination: -14.93, declination: -0.16),
    .init(
      year: 2025.0, heightKilometers: 0, latitude: -80, longitude: 240, x: 6117.5, y: 15751.9,
      z: -52022.5, h: 16898.1, f: 54698.2, inclination: -72.00, declination: 68.78),
    .init(
      year: 2025.0, heightKilometers: 100, latitude: 80, longitude: 0, x: 6216.0, y: 92.4,
      z: 52598.8, h: 6216.7, f: 52964.9, inclination: 83.26, declination: 0.85),
    .init(
      year: 2025.0, heightKilometers: 100, latitude: 0, longitude: 120, x: 37688.6, y: -96.2,
      z: -10152.1, h: 37688.7, f: 39032.1, inclination: -15.08, declination: -0.15),
    .init(
      year: 2025.0, heightKilometers: 100, latitude: -80, longitude: 240, x: 5907.6, y: 14780.3,
      z: -49540.7, h: 15917.1, f: 52035.0, inclination: -72.19, declination: 68.21),
    .init(
      year: 2027.5, heightKilometers: 0, latitude: 80, longitude: 0, x: 6500.8, y: 294.5,
      z: 54869.4, h: 6507.5, f: 55253.9, inclination: 83.24, declination: 2.59),
    .init(
      year: 2027.5, heightKilometers: 0, latitude: 0, longitude: 120, x: 39701.6, y: -167.4,
      z: -10381.8, h: 39702.0, f: 41036.9, inclination: -14.65, declination: -0.24),
    .init(
      year: 2027.5, heightKilometers: 0, latitude: -80, longitude: 240, x: 6200.7, y: 15730.3,
      z: -51783.7, h: 16908.3, f: 54474.2, inclination: -71.92, declination: 68.49),
    .init(
      year: 2027.5, heightKilometers: 100, latitude: 80, longitude: 0, x: 6196.7, y: 233.8,
      z: 52670.5, h: 6201.1, f: 53034.3, inclination: 83.29, declination: 2.16),
    .init(
      year: 2027.5, heightKilometers: 100, latitude: 0, longitude: 120, x: 37711.5, y: -148.7,
      z: -9969.8, h: 37711.8, f: 39007.4, inclination: -14.81, declination: -0.23),
    .init(
      year: 2027.5, heightKilometers: 100, latitude: -80, longitude: 240, x: 5984.0, y: 14760.1,
      z: -49317.7, h: 15927.0, f: 51825.7, inclination: -72.10, declination: 67.93),
  ]

  /// One row of `WMM2025_TestValues.txt`; `nil` where the column was not available.
  private struct FileRow {
    var year, heightKilometers, latitude, longitude, declination, inclination: Double
    var h: Double? = nil, x: Double? = nil, y: Double? = nil, z: Double? = nil, f: Double? = nil
  }

  private let fileRows: [FileRow] = [
    .init(
      year: 2025.0, heightKilometers: 28, latitude: 89, longitude: -121, declination: -99.77,
      inclination: 88.47, h: 1504.298146, x: -255.388723, y: -1482.460628, z: 56194.288771,
      f: 56214.419888),
    .init(
      year: 2025.0, heightKilometers: 65, latitude: 43, longitude: 93, declination: 0.50,
      inclination: 64.10, h: 24300.764692, x: 24299.852822, y: 210.517066, z: 50037.923998,
      f: 55626.621348),
    .init(
      year: 2025.0, heightKilometers: 51, latitude: -33, longitude: 109, declination: -5.49,
      inclination: -67.50, h: 21838.046477, x: 21737.778822, y: -2090.274098, z: -52710.003920,
      f: 57054.752538),
    .init(
      year: 2025.0, heightKilometers: 48, latitude: 80, longitude: -96, declination: -29.91,
      inclination: 87.77, x: 1875.982280, y: -1079.269389, z: 55623.044051),
    .init(
      year: 2025.0, heightKilometers: 54, latitude: 82, longitude: 87, declination: .nan,
      inclination: .nan, x: 1324.336929, y: 1883.428620, z: 56740.772059),
    .init(
      year: 2025.0, heightKilometers: 18, latitude: 0, longitude: 21, declination: 1.29,
      inclination: -26.06, x: 29274.811882, y: 659.800118, z: -14316.722540, f: 32594.761714),
    .init(
      year: 2025.0, heightKilometers: 94, latitude: -29, longitude: -110, declination: 15.74,
      inclination: -38.25, h: 24181.990098, x: 23275.471080),
    .init(
      year: 2025.0, heightKilometers: 66, latitude: 14, longitude: 143, declination: -0.19,
      inclination: 12.82, h: 35003.635649, z: 7966.315182, f: 35898.700342),
    .init(
      year: 2025.5, heightKilometers: 6, latitude: -36, longitude: -137, declination: 20.28,
      inclination: -52.11, h: 25353.230658, x: 23781.930678, y: 8786.698927, z: -32577.518648,
      f: 41280.516301),
    .init(
      year: 2025.5, heightKilometers: 8, latitude: -66, longitude: 17, declination: -33.14,
      inclination: -59.55, h: 18154.870136, x: 15201.438652, y: -9925.501123, z: -30881.123197,
      f: 35822.382382),
    .init(
      year: 2025.5, heightKilometers: 8, latitude: -52, longitude: -75, declination: 14.91,
      inclination: -49.63, h: 20005.506364, x: 19331.857134),
    .init(
      year: 2025.5, heightKilometers: 69, latitude: 38, longitude: -144, declination: 12.93,
      inclination: 56.97, h: 23096.337032, z: 35525.990264, f: 42373.774537),
    .init(
      year: 2025.5, heightKilometers: 22, latitude: -37, longitude: 140, declination: 9.28,
      inclination: -68.62, h: 21688.847590, z: -55397.587760, f: 59492.006517),
    .init(
      year: 2025.5, heightKilometers: 44, latitude: 33, longitude: -118, declination: 11.10,
      inclination: 57.89, f: 44542.826874),
    .init(
      year: 2025.5, heightKilometers: 50, latitude: -70, longitude: -133, declination: 57.21,
      inclination: -71.94, f: 53731.803175),
    .init(
      year: 2026.0, heightKilometers: 74, latitude: -57, longitude: 3, declination: -22.51,
      inclination: -58.65, h: 14362.206593, x: 13268.119649, y: -5498.179626, z: -23576.062921,
      f: 27606.226129),
    .init(
      year: 2026.0, heightKilometers: 62, latitude: -14, longitude: 99, declination: -1.43,
      inclination: -44.70, h: 33448.275663, x: 33437.828630, y: -835.919473, z: -33100.922253,
      f: 47058.030120),
    .init(
      year: 2026.0, heightKilometers: 46, latitude: -24, longitude: -122, declination: 14.01,
      inclination: -34.17, h: 26638.500090, x: 25846.118652),
    .init(
      year: 2026.0, heightKilometers: 34, latitude: -19, longitude: 43, declination: -14.98,
      inclination: -52.33, h: 20212.448819, x: 19525.694050, z: -26182.862330, f: 33076.961273),
    .init(
      year: 2026.0, heightKilometers: 47, latitude: -72, longitude: -22, declination: -6.32,
      inclination: -61.16, h: 18392.516222, z: -33397.486160, f: 38127.112857),
    .init(
      year: 2026.0, heightKilometers: 82, latitude: -64, longitude: 87, declination: -81.74,
      inclination: -75.40, f: 55453.154865),
    .init(
      year: 2026.5, heightKilometers: 14, latitude: 0, longitude: 80, declination: -3.10,
      inclination: -17.15, h: 39489.089663, x: 39431.415992, y: -2133.456168, z: -12188.838466,
      f: 41327.424134),
    .init(
      year: 2026.5, heightKilometers: 12, latitude: 33, longitude: -145, declination: 11.96,
      inclination: 52.51, h: 24672.289649, x: 24136.839639),
    .init(
      year: 2026.5, heightKilometers: 44, latitude: -46, longitude: -42, declination: -11.36,
      inclination: -54.39, h: 14140.316272, z: -19744.304022, f: 24285.511845),
    .init(
      year: 2026.5, heightKilometers: 12, latitude: -79, longitude: 115, declination: -137.58,
      inclination: -77.37, h: 13023.480845, z: -58104.306533, f: 59545.961164),
    .init(
      year: 2027.0, heightKilometers: 37, latitude: -66, longitude: -5, declination: -17.22,
      inclination: -59.04, h: 17159.836500, x: 16390.771268, y: -5079.626554, z: -28608.243575,
      f: 33360.029814),
    .init(
      year: 2027.0, heightKilometers: 44, latitude: 22, longitude: 174, declination: 6.46,
      inclination: 31.89, h: 28867.487799, x: 28683.972510),
    .init(
      year: 2027.0, heightKilometers: 67, latitude: -47, longitude: -32, declination: -13.52,
      inclination: -57.98, h: 12805.786103, x: 12450.832543),
    .init(
      year: 2027.0, heightKilometers: 57, latitude: -43, longitude: 50, declination: -48.27,
      inclination: -63.13, h: 16833.417225, z: -33221.366617, f: 37242.759503),
    .init(
      year: 2027.0, heightKilometers: 61, latitude: 59, longitude: -77, declination: -16.48,
      inclination: 78.68, h: 10884.812802, z: 54397.713552, f: 55476.034370),
    .init(
      year: 2027.0, heightKilometers: 44, latitude: -43, longitude: -111, declination: 24.31,
      inclination: -52.57, f: 36957.295441),
    .init(
      year: 2027.5, heightKilometers: 73, latitude: -72, longitude: 95, declination: -102.64,
      inclination: -76.49, h: 13306.747292, x: -2912.418045, y: -12984.118939, z: -55399.217725,
      f: 56974.931751),
    .init(
      year: 2027.5, heightKilometers: 96, latitude: -46, longitude: -85, declination: 17.93,
      inclination: -47.37, h: 19914.457641, x: 18947.658009, z: -21631.434316, f: 29402.458634),
    .init(
      year: 2027.5, heightKilometers: 98, latitude: -5, longitude: 159, declination: 7.79,
      inclination: -23.22, h: 33857.496691, z: -14525.780052, f: 36841.937629),
    .init(
      year: 2028.0, heightKilometers: 86, latitude: -85, longitude: -79, declination: 41.09,
      inclination: -70.25, h: 16867.459172, x: 12713.115116, f: 49924.018042),
    .init(
      year: 2028.0, heightKilometers: 49, latitude: 20, longitude: 167, declination: 5.10,
      inclination: 26.82, h: 30251.262453, z: 15295.611788, f: 33898.298187),
    .init(
      year: 2028.0, heightKilometers: 30, latitude: -36, longitude: -64, declination: -4.65,
      inclination: -40.08, h: 17398.651081, z: -14639.967305, f: 22738.551012),
    .init(
      year: 2028.0, heightKilometers: 45, latitude: -46, longitude: -41, declination: -11.68,
      inclination: -54.96, h: 13897.562372, z: -19816.196211, f: 24203.798713),
    .init(
      year: 2028.5, heightKilometers: 28, latitude: 54, longitude: -120, declination: 15.43,
      inclination: 73.74, h: 15286.094495, x: 14735.145798),
    .init(
      year: 2028.5, heightKilometers: 59, latitude: 32, longitude: 163, declination: 0.15,
      inclination: 43.10, h: 28217.204381, x: 28217.104175),
    .init(
      year: 2028.5, heightKilometers: 39, latitude: -65, longitude: -88, declination: 29.45,
      inclination: -60.20, h: 20609.270068, z: -35982.872979, f: 41466.964689),
    .init(
      year: 2028.5, heightKilometers: 55, latitude: 86, longitude: 70, declination: 67.64,
      inclination: 87.57, h: 2370.361097, z: 55926.154052, f: 55976.363930),
    .init(
      year: 2029.0, heightKilometers: 95, latitude: -60, longitude: -59, declination: 8.58,
      inclination: -55.17, h: 18095.598879, z: -26011.845842, f: 31687.013474),
    .init(
      year: 2029.0, heightKilometers: 57, latitude: 34, longitude: -13, declination: -1.89,
      inclination: 45.74, h: 28257.277809, z: 28997.458189, f: 40488.595068),
    .init(
      year: 2029.0, heightKilometers: 41, latitude: 42, longitude: -19, declination: -4.13,
      inclination: 56.44, h: 24503.475397, z: 36929.897501, f: 44319.720622),
    .init(
      year: 2029.5, heightKilometers: 51, latitude: -76, longitude: 40, declination: -56.34,
      inclination: -66.22, h: 18517.441118, z: -42018.541264, f: 45917.898858),
    .init(
      year: 2029.5, heightKilometers: 18, latitude: 9, longitude: -172, declination: 9.24,
      inclination: 15.85, h: 30922.514410, z: 8779.472279, f: 32144.689001),
    .init(
      year: 2029.5, heightKilometers: 63, latitude: 88, longitude: 26, declination: 36.52,
      inclination: 87.37, f: 55344.931586),
  ]

  // Rounding to 0.1 nT and 0.01° leaves up to 0.05 nT and 0.005°; the extra 0.001 absorbs the
  // floating-point representation of the printed decimals.
  private let reportIntensityTolerance = 0.051
  private let angleTolerance = 0.0051
  // Values printed to 1e-6 nT from NOAA's reference software. Measured agreement: Y and Z within
  // about 2e-6 nT, X and H within 7.2e-4 nT (a ~1e-8 relative difference in NOAA's X, far below any
  // physical meaning). 0.005 nT leaves margin yet still catches a wrong coefficient digit, which
  // moves the surface field by 0.1 nT or more.
  private let fileIntensityTolerance = 0.005

  private func angleDifference(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 }
    if d < -180 { d += 360 }
    return abs(d)
  }

  func testReportTableRows() {
    var worst = [String: Double]()
    for row in reportRows {
      let field = model.field(
        latitude: row.latitude, longitude: row.longitude,
        altitudeMeters: row.heightKilometers * 1000,
        decimalYear: row.year)
      let label = "\(row.year) \(row.heightKilometers) km (\(row.latitude), \(row.longitude))"
      let checks: [(String, Double, Double, Double)] = [
        ("X", field.north, row.x, reportIntensityTolerance),
        ("Y", field.east, row.y, reportIntensityTolerance),
        ("Z", field.down, row.z, reportIntensityTolerance),
        ("H", field.horizontalIntensity, row.h, reportIntensityTolerance),
        ("F", field.totalIntensity, row.f, reportIntensityTolerance),
        ("I", field.inclination, row.inclination, angleTolerance),
        ("D", field.declination, row.declination, angleTolerance),
      ]
      for (name, actual, expected, tolerance) in checks {
        let error = name == "D" ? angleDifference(actual, expected) : abs(actual - expected)
        worst[name] = max(worst[name] ?? 0, error)
        XCTAssertLessThanOrEqual(error, tolerance, "\(name) at \(label): \(actual) vs \(expected)")
      }
      XCTAssertTrue(field.isWithinValidityPeriod, label)
    }
    print("WMM2025 report table, max |error|:", worst.sorted { $0.key < $1.key })
  }

  func testTestValuesFileRows() {
    var worst = [String: Double]()
    for row in fileRows {
      let field = model.field(
        latitude: row.latitude, longitude: row.longitude,
        altitudeMeters: row.heightKilometers * 1000,
        decimalYear: row.year)
      let label = "\(row.year) \(row.heightKilometers) km (\(row.latitude), \(row.longitude))"
      var checks: [(String, Double, Double?, Double)] = [
        ("X", field.north, row.x, fileIntensityTolerance),
        ("Y", field.east, row.y, fileIntensityTolerance),
        ("Z", field.down, row.z, fileIntensityTolerance),
        ("H", field.horizontalIntensity, row.h, fileIntensityTolerance),
        ("F", field.totalIntensity, row.f, fileIntensityTolerance),
      ]
      if !row.declination.isNaN {
        checks.append(("I", field.inclination, row.inclination, angleTolerance))
        checks.append(("D", field.declination, row.declination, angleTolerance))
      }
      for case (let name, let actual, let expected?, let tolerance) in checks {
        let error = name == "D" ? angleDifference(actual, expected) : abs(actual - expected)
        worst[name] = max(worst[name] ?? 0, error)
        XCTAssertLessThanOrEqual(error, tolerance, "\(name) at \(label): \(actual) vs \(expected)")
      }
    }
    print(
      "WMM2025_TestValues.txt (\(fileRows.count) rows), max |error|:",
      worst.sorted { $0.key < $1.key })
  }

  /// The file also lists annual changes; the one available offline is Ḋ = 2.491706°/yr at
  /// 89° N, −121°, 28 km, 2025.0 (near the pole, where D changes fastest).
  func testDeclinationAnnualChange() {
    let field = model.field(
      latitude: 89, longitude: -121, altitudeMeters: 28_000, decimalYear: 2025.0)
    print("WMM2025 Ddot at (89, -121):", field.declinationAnnualChange)
    // Printed to 1e-6 °/yr (rounding ≤ 5e-7); measured agreement about 3e-7 °/yr.
    XCTAssertEqual(field.declinationAnnualChange, 2.491706, accuracy: 1e-6)
  }
}
