# Prints FILE:LINE: TEXT for every import of LinuxIIO that is not inside a branch that builds on
# Linux only. Package.swift declares LinuxIIO for Linux only, so such an import builds here and
# fails on every other platform, which CI never builds.
#
# A branch counts as Linux-only when its condition names os(Linux) or canImport(LinuxIIO) and has
# neither `||` nor `!` (`os(Linux) && swift(>=6)` is Linux-only; `os(Linux) || os(Android)` is
# not). #if, #elseif and #else are followed; a trailing // comment is ignored. Any import form
# counts: attributes (@testable, @preconcurrency, ...), an access level, an import kind
# (`import struct LinuxIIO.X`) and a submodule.
# Checked by .ci/unguarded-linux-imports.test (run by .ci/run before the check itself).

function linuxOnly(condition) {
  sub(/\/\/.*/, "", condition)
  if (condition ~ /\|\||!/) return 0
  return condition ~ /os\([[:space:]]*Linux[[:space:]]*\)|canImport\([[:space:]]*LinuxIIO[[:space:]]*\)/
}

FNR == 1 { depth = 0 }
/^[[:space:]]*#if[[:space:]]/ { depth++; branch[depth] = linuxOnly($0); next }
/^[[:space:]]*#elseif[[:space:]]/ { branch[depth] = linuxOnly($0); next }
/^[[:space:]]*#else([[:space:]]|\/\/|$)/ { branch[depth] = 0; next }
/^[[:space:]]*#endif/ { if (depth > 0) depth--; next }
/^[[:space:]]*(@[[:alnum:]_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((struct|class|enum|protocol|typealias|func|let|var)[[:space:]]+)?LinuxIIO([.[:space:]]|$)/ {
  guarded = 0
  for (i = 1; i <= depth; i++) if (branch[i]) guarded = 1
  if (!guarded) print FILENAME ":" FNR ": " $0
}
