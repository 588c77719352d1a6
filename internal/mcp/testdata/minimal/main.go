// Command minimal is the floor that bb mcp is measured against: an MCP
// server on the same SDK, over stdio, with one tool that inserts one row
// into a SQLite database in WAL mode (the same driver and settings as a
// board). BenchmarkStdioVsMinimal builds and drives it.
//
//	minimal <database file>
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"
)

type insertArgs struct {
	Text string `json:"text"`
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: minimal <database file>")
	}
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, created TEXT NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	ins, err := db.Prepare(`INSERT INTO notes (text, created) VALUES (?, ?)`)
	if err != nil {
		log.Fatal(err)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "minimal", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "insert", Description: "Insert one row."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in insertArgs) (*sdk.CallToolResult, any, error) {
			r, err := ins.ExecContext(ctx, in.Text, time.Now().UTC().Format(time.RFC3339Nano))
			if err != nil {
				return nil, nil, err
			}
			id, _ := r.LastInsertId()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(id)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
