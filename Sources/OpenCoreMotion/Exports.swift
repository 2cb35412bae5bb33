// SPDX-License-Identifier: Apache-2.0

// Types from lower modules that appear in OpenCoreMotion's own API, so that `import CoreMotion`
// (or `import OpenCoreMotion`) is enough to use them.
@_exported import struct Geomagnetism.GeographicLocation
