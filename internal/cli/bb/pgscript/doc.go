// Package pgscript holds the black-box tests of bb on PostgreSQL: the real
// binaries against a throwaway cluster (pgtest), driven by the scripts in
// testdata/script/postgres and by Go tests for multi-process scenarios.
package pgscript
