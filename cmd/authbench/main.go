// Command authbench load-tests authenticated HTTP endpoints and explains
// where their latency goes. All logic lives in pkg/cli and the libraries.
package main

import (
	"os"

	"github.com/authbench/authbench/pkg/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
