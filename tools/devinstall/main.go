// Command devinstall runs install.Install from the command line while the
// authbench CLI's `lab install` is not wired; temporary.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/authbench/authbench/pkg/lab/install"
)

func main() {
	only := flag.String("only", "", "comma-separated steps")
	optional := flag.Bool("optional", false, "include optional steps")
	skipApt := flag.Bool("skip-apt", false, "never run apt-get")
	flag.Parse()
	o := install.Options{Out: os.Stdout, Optional: *optional, SkipApt: *skipApt}
	if *only != "" {
		o.Only = strings.Split(*only, ",")
	}
	if _, err := install.Install(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
