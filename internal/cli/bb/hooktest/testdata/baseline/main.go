// Command baseline is the yardstick of the hook latency benchmark: the
// least a hook can do, a Go process that opens the board's SQLite file
// (same driver, same settings) and reads one row.
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "modernc.org/sqlite"
)

func main() {
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var id string
	if err := db.QueryRow(`SELECT id FROM agents ORDER BY id LIMIT 1`).Scan(&id); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
