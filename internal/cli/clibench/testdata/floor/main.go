// Command floor is the yardstick of the CLI benchmark: the least a
// one-shot command can do, a Go process that opens the board's SQLite file
// with the same driver and the same settings as bb, inserts one row and
// exits (leaving the connection to the operating system, as bb does).
//
//	floor <database file>
package main

import (
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_pragma=foreign_keys(1)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := db.Exec(`INSERT INTO bench_floor(at) VALUES (?)`, time.Now().UnixNano()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
