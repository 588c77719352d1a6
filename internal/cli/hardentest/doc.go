// Package hardentest holds black-box regression tests of the hardening work:
// terminal escapes, symlinked reservation scopes, cross-site requests,
// environment failures, UTF-8 and limits on every surface. Every test runs
// the real bb, vybe and agent-mail binaries (and bb serve) in temporary
// directories.
package hardentest
