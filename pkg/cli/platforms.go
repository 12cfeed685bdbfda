package cli

import (
	"github.com/authbench/authbench/pkg/lab"
	"github.com/authbench/authbench/pkg/lab/platform/kube"
	"github.com/authbench/authbench/pkg/lab/platform/processes"
)

// labPlatforms are the lab platforms this program runs. The CLI is where
// they are built; every lab it opens, and the libraries it hands them to,
// resolve a lab's platform among them.
func labPlatforms() []lab.Platform { return []lab.Platform{processes.Platform{}, kube.Platform{}} }

// openLab is the lab in dir on this program's platforms.
func openLab(dir string) *lab.Lab { return lab.Open(dir, labPlatforms()...) }
