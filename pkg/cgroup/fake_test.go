package cgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// fakeTree writes files under a temporary root; keys are paths relative to
// it. It returns an FS whose /proc is root/proc.
func fakeTree(t *testing.T, files map[string]string) FS {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return FS{Root: filepath.Join(root, "sys"), Proc: filepath.Join(root, "proc")}
}

// selfCgroup is the path of the fake /proc/<this pid>/cgroup, which FS.self
// reads when Proc is set.
func selfCgroup() string { return "proc/" + strconv.Itoa(os.Getpid()) + "/cgroup" }

// v1Files is a hybrid v1 machine like the one these tests were written on:
// cpu and cpuacct at the root, memory under a sandbox's group.
func v1Files() map[string]string {
	return map[string]string{
		"sys/cpu/cgroup.procs":                    "1\n",
		"sys/cpu/cpu.cfs_period_us":               "100000\n",
		"sys/cpu/cpu.cfs_quota_us":                "-1\n",
		"sys/cpuacct/cgroup.procs":                "1\n",
		"sys/memory/cgroup.procs":                 "1\n",
		"sys/memory/process_api/abc/cgroup.procs": "42\n",
		"sys/unified/cgroup.procs":                "",
		selfCgroup(): "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n3:cpuset:/\n" +
			"2:cpuacct:/\n1:cpu:/\n0::/\n",
	}
}

// v2Files is a unified machine with authbench in the root cgroup.
func v2Files() map[string]string {
	return map[string]string{
		"sys/cgroup.controllers":     "cpuset cpu io memory hugetlb pids rdma misc\n",
		"sys/cgroup.subtree_control": "",
		"sys/cgroup.procs":           "1\n",
		selfCgroup():                 "0::/\n",
	}
}

func readTrim(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
