// Package parallel sets how many of a test package's parallel tests run at once, for the
// packages whose parallel tests mostly wait on the clock (a person answering 90 s late, a
// tray measured at idle) beside one test that works: go test's default, GOMAXPROCS, is 2
// on a two-core machine, and two waits would hold both places while the others queue.
package parallel

import (
	"flag"
	"strconv"
)

// AtLeast raises go test's -parallel to n, unless it was given on the command line or is
// already n or more. Call it from TestMain, after flag.Parse and before m.Run.
func AtLeast(n int) {
	f := flag.Lookup("test.parallel")
	if f == nil {
		return // not in a test binary
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v.Name == "test.parallel" })
	if now, err := strconv.Atoi(f.Value.String()); given || err != nil || now >= n {
		return
	}
	f.Value.Set(strconv.Itoa(n))
}
