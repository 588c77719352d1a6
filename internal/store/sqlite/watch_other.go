//go:build !linux

package sqlite

import "context"

// watchCommits has no file notification to use here: it returns at once,
// and followers of the timeline poll.
func watchCommits(ctx context.Context, path string, wake func(), live func(bool), own func() any) error {
	return nil
}
