//go:build !unix

package boot

// Without flock a SQLite board records no running server: bb restore
// cannot tell, and says nothing.
func lockServing(string) (func(), error) { return func() {}, nil }

func servingLocked(string) (bool, error) { return false, nil }
