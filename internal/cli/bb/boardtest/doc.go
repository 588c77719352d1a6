// Package boardtest holds the black-box tests of the Blackboard board
// commands (seed 003): it builds the real bb binary once and runs the
// testscript scripts of testdata/script/board (and, with the agent-mail and
// vybe binaries, the cross-surface ones of testdata/script/product) against it, plus process-level
// concurrency tests and the CLI speed benchmarks. It has no non-test code
// beyond this comment.
package boardtest
