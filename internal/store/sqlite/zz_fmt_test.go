package sqlite_test

import "fmt"

func fmtv(v any) string { return fmt.Sprint(v) }
