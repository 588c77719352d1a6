package boot

import (
	"context"

	"github.com/blackboard-hub/bb/internal/hub"
	"github.com/blackboard-hub/bb/internal/store/postgres"
)

// ServeApplicationName is what a bb serve tells PostgreSQL it is
// (pg_stat_activity.application_name): bb restore counts them.
const ServeApplicationName = "bb serve"

// servingLockSuffix names, beside a SQLite board, the file every bb serve
// of the board holds a shared lock on while it runs.
const servingLockSuffix = ".serving"

// HoldServing marks a bb serve on the board for as long as it runs (until
// release): a SQLite board's serving file is locked shared (the lock ends
// with the process, however it ends); a PostgreSQL server is named by its
// connections' application_name (Config.ApplicationName).
func HoldServing(c Config) (release func(), err error) {
	if c.DatabaseURL != "" || c.SQLitePath == "" {
		return func() {}, nil
	}
	return lockServing(c.SQLitePath + servingLockSuffix)
}

// ServersRunning counts the bb serve processes on the board: on SQLite 1
// when any holds the serving lock; on PostgreSQL the connections of
// other processes named ServeApplicationName.
func ServersRunning(ctx context.Context, c Config) (int, error) {
	if c.DatabaseURL != "" {
		n, err := postgres.CountApplication(ctx, c.DatabaseURL, ServeApplicationName)
		if err != nil {
			return 0, err
		}
		return n, nil
	}
	busy, err := servingLocked(c.SQLitePath + servingLockSuffix)
	if err != nil {
		return 0, &hub.Error{Code: hub.CodeIOReadFailed, Message: "cannot tell whether a bb serve runs on this board", Err: err}
	}
	if busy {
		return 1, nil
	}
	return 0, nil
}
