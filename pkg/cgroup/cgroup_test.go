package cgroup

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    Version
		wantErr bool
	}{
		{"hybrid v1", v1Files(), V1, false},
		{"unified v2", v2Files(), V2, false},
		{"co-mounted cpu,cpuacct", map[string]string{"sys/cpu,cpuacct/cgroup.procs": ""}, V1, false},
		{"nothing mounted", map[string]string{"sys/README": ""}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fakeTree(t, tt.files).Detect()
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Detect() = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseProcCgroup(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr bool
	}{
		{
			name: "hybrid sandbox",
			in:   "9:name=systemd:/\n4:memory:/process_api/f9a9\n2:cpuacct:/\n1:cpu:/\n0::/\n",
			want: map[string]string{"name=systemd": "/", "memory": "/process_api/f9a9", "cpuacct": "/", "cpu": "/", "": "/"},
		},
		{
			name: "kubelet v1 co-mounted",
			in:   "11:cpu,cpuacct:/kubepods/burstable/pod1/c1\n7:memory:/kubepods/burstable/pod1/c1\n",
			want: map[string]string{"cpu": "/kubepods/burstable/pod1/c1", "cpuacct": "/kubepods/burstable/pod1/c1", "memory": "/kubepods/burstable/pod1/c1"},
		},
		{
			name: "v2",
			in:   "0::/user.slice/user-1000.slice/session-2.scope\n",
			want: map[string]string{"": "/user.slice/user-1000.slice/session-2.scope"},
		},
		{name: "malformed", in: "garbage\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcCgroup(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && !maps.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		open  string
		want  Stats
	}{
		{
			name: "v1 throttled 50m",
			files: merge(v1Files(), map[string]string{
				"sys/cpu/lab/proxy/cgroup.procs":             "",
				"sys/cpu/lab/proxy/cpu.cfs_quota_us":         "5000\n",
				"sys/cpu/lab/proxy/cpu.cfs_period_us":        "100000\n",
				"sys/cpu/lab/proxy/cpu.stat":                 "nr_periods 23\nnr_throttled 21\nthrottled_time 1749533979\nnr_bursts 0\nburst_time 0\n",
				"sys/cpuacct/lab/proxy/cpuacct.usage":        "106056558\n",
				"sys/memory/lab/proxy/memory.usage_in_bytes": "52428800\n",
				"sys/memory/lab/proxy/memory.limit_in_bytes": "9223372036854771712\n",
				"sys/memory/lab/proxy/memory.stat": "cache 12582912\nrss 39845888\ninactive_file 1048576\n" +
					"total_cache 12582912\ntotal_rss 39845888\ntotal_inactive_file 10485760\n",
			}),
			open: "/lab/proxy",
			want: Stats{CPUUsage: 106056558, Periods: 23, ThrottledPeriods: 21, ThrottledTime: 1749533979,
				MemoryUsage: 52428800, MemoryWorkingSet: 41943040, CPULimit: 0.05},
		},
		{
			name: "v2 with limits",
			files: merge(v2Files(), map[string]string{
				"sys/kubepods/pod1/c1/cpu.stat": "usage_usec 8061247\nuser_usec 5813209\nsystem_usec 2248038\n" +
					"core_sched.force_idle_usec 0\nnr_periods 4230\nnr_throttled 3384\nthrottled_usec 211873000\nnr_bursts 0\nburst_usec 0\n",
				"sys/kubepods/pod1/c1/cpu.max":        "5000 100000\n",
				"sys/kubepods/pod1/c1/memory.current": "91226112\n",
				"sys/kubepods/pod1/c1/memory.max":     "67108864\n",
				"sys/kubepods/pod1/c1/memory.stat":    "anon 40960000\nfile 50266112\nkernel 1000\nactive_file 20000000\ninactive_file 30266112\n",
			}),
			open: "/kubepods/pod1/c1",
			want: Stats{CPUUsage: 8061247 * time.Microsecond, Periods: 4230, ThrottledPeriods: 3384,
				ThrottledTime: 211873 * time.Millisecond, MemoryUsage: 91226112, MemoryWorkingSet: 60960000,
				CPULimit: 0.05, MemoryLimit: 67108864},
		},
		{
			name: "v2 unlimited",
			files: merge(v2Files(), map[string]string{
				"sys/a/cpu.stat":       "usage_usec 10\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n",
				"sys/a/cpu.max":        "max 100000\n",
				"sys/a/memory.current": "100\n",
				"sys/a/memory.max":     "max\n",
			}),
			open: "a",
			want: Stats{CPUUsage: 10 * time.Microsecond, MemoryUsage: 100, MemoryWorkingSet: 100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := fakeTree(t, tt.files).Open(tt.open)
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("Stats() =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestStatsFailsWhenNothingReadable(t *testing.T) {
	f := fakeTree(t, merge(v2Files(), map[string]string{"sys/empty/cgroup.procs": ""}))
	g, err := f.Open("/empty")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Stats(); err == nil {
		t.Fatal("Stats() of a group with no counters: want an error")
	}
}

func merge(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func TestCreateV1NestsUnderOwnGroups(t *testing.T) {
	f := fakeTree(t, v1Files())
	g, err := f.Create("authbench/lab-1a2b/oauth2-proxy")
	if err != nil {
		t.Fatal(err)
	}
	wantDirs := map[string]string{
		"cpu":     filepath.Join(f.Root, "cpu/authbench/lab-1a2b/oauth2-proxy"),
		"cpuacct": filepath.Join(f.Root, "cpuacct/authbench/lab-1a2b/oauth2-proxy"),
		"memory":  filepath.Join(f.Root, "memory/process_api/abc/authbench/lab-1a2b/oauth2-proxy"),
	}
	for c, want := range wantDirs {
		if d, ok := g.Dir(c); !ok || d != want || !exists(d) {
			t.Errorf("Dir(%s) = %q, %v; want existing %q", c, d, ok, want)
		}
	}
	wantPath := "cpu,cpuacct:/authbench/lab-1a2b/oauth2-proxy;memory:/process_api/abc/authbench/lab-1a2b/oauth2-proxy"
	if g.Path() != wantPath {
		t.Errorf("Path() = %q, want %q", g.Path(), wantPath)
	}
	for _, p := range []string{g.Path(), "/authbench/lab-1a2b/oauth2-proxy", "authbench/lab-1a2b/oauth2-proxy"} {
		o, err := f.Open(p)
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		if !maps.Equal(o.dirs, g.dirs) {
			t.Errorf("Open(%q) dirs = %v, want %v", p, o.dirs, g.dirs)
		}
	}
	if _, err := f.Create("authbench/lab-1a2b/oauth2-proxy"); err != nil {
		t.Errorf("second Create: %v (want idempotent)", err)
	}
}

func TestCreateRejectsBadNames(t *testing.T) {
	f := fakeTree(t, v1Files())
	for _, rel := range []string{"", "/", "../etc", "a/../../b"} {
		if _, err := f.Create(rel); err == nil {
			t.Errorf("Create(%q): want an error", rel)
		}
	}
}

func TestCreateV2EnablesControllers(t *testing.T) {
	f := fakeTree(t, v2Files())
	g, err := f.Create("authbench/lab/x")
	if err != nil {
		t.Fatal(err)
	}
	if g.Path() != "/authbench/lab/x" || g.Version() != V2 {
		t.Fatalf("Path() = %q, Version() = %v", g.Path(), g.Version())
	}
	if got := readTrim(t, filepath.Join(f.Root, "cgroup.subtree_control")); got != "+cpu +memory" {
		t.Errorf("root cgroup.subtree_control = %q, want %q", got, "+cpu +memory")
	}
}

func TestForPID(t *testing.T) {
	files := merge(v1Files(), map[string]string{
		"sys/cpu/lab/p/cgroup.procs":                    "77\n",
		"sys/memory/process_api/abc/lab/p/cgroup.procs": "77\n",
		"proc/77/cgroup":                                "4:memory:/process_api/abc/lab/p\n2:cpuacct:/\n1:cpu:/lab/p\n0::/\n",
		"proc/78/cgroup":                                "1:cpu:/gone\n",
	})
	f := fakeTree(t, files)
	g, err := f.ForPID(77)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cpu:/lab/p;cpuacct:/;memory:/process_api/abc/lab/p"; g.Path() != want {
		t.Errorf("Path() = %q, want %q", g.Path(), want)
	}
	pids, err := g.PIDs()
	if err != nil || !slices.Contains(pids, 77) {
		t.Errorf("PIDs() = %v, %v; want 77 among them", pids, err)
	}
	if _, err := f.ForPID(78); err == nil {
		t.Error("ForPID of a process whose group is not visible: want an error")
	}
	if _, err := f.ForPID(79); err == nil {
		t.Error("ForPID of a missing process: want an error")
	}
}

func TestSetCPULimit(t *testing.T) {
	tests := []struct {
		millicores            int64
		wantQuota, wantPeriod string
		wantV2                string
	}{
		{50, "5000", "100000", "5000 100000"},
		{1500, "150000", "100000", "150000 100000"},
		{5, "1000", "200000", "1000 200000"},
		{1, "1000", "1000000", "1000 1000000"},
		{0, "-1", "100000", "max 100000"},
	}
	for _, tt := range tests {
		t.Run(fmtM(tt.millicores), func(t *testing.T) {
			f := fakeTree(t, v1Files())
			g, err := f.Create("x")
			if err != nil {
				t.Fatal(err)
			}
			if err := g.SetCPULimit(tt.millicores); err != nil {
				t.Fatal(err)
			}
			d, _ := g.Dir("cpu")
			if q, p := readTrim(t, filepath.Join(d, "cpu.cfs_quota_us")), readTrim(t, filepath.Join(d, "cpu.cfs_period_us")); q != tt.wantQuota || p != tt.wantPeriod {
				t.Errorf("v1 quota/period = %s/%s, want %s/%s", q, p, tt.wantQuota, tt.wantPeriod)
			}
			f2 := fakeTree(t, v2Files())
			g2, err := f2.Create("x")
			if err != nil {
				t.Fatal(err)
			}
			if err := g2.SetCPULimit(tt.millicores); err != nil {
				t.Fatal(err)
			}
			d2, _ := g2.Dir("cpu")
			if got := readTrim(t, filepath.Join(d2, "cpu.max")); got != tt.wantV2 {
				t.Errorf("v2 cpu.max = %q, want %q", got, tt.wantV2)
			}
		})
	}
}

func fmtM(m int64) string { return strconv.FormatInt(m, 10) + "m" }

func TestSetMemoryLimit(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		file  string
		bytes int64
		want  string
	}{
		{"v1 64Mi", v1Files(), "memory.limit_in_bytes", 64 << 20, "67108864"},
		{"v1 none", v1Files(), "memory.limit_in_bytes", 0, "-1"},
		{"v2 64Mi", v2Files(), "memory.max", 64 << 20, "67108864"},
		{"v2 none", v2Files(), "memory.max", 0, "max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := fakeTree(t, tt.files).Create("x")
			if err != nil {
				t.Fatal(err)
			}
			if err := g.SetMemoryLimit(tt.bytes); err != nil {
				t.Fatal(err)
			}
			d, _ := g.Dir("memory")
			if got := readTrim(t, filepath.Join(d, tt.file)); got != tt.want {
				t.Errorf("%s = %q, want %q", tt.file, got, tt.want)
			}
			if err := g.SetMemoryLimit(-1); err == nil {
				t.Error("negative limit: want an error")
			}
		})
	}
}

func TestKillRefusesRootAndOwnGroup(t *testing.T) {
	f := fakeTree(t, merge(v1Files(), map[string]string{"proc/77/cgroup": "4:memory:/process_api/abc\n1:cpu:/\n"}))
	g, err := f.ForPID(77)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Kill(); err == nil {
		t.Error("Kill of a group at the root: want a refusal")
	}
	own, err := f.Open("memory:/process_api/abc")
	if err != nil {
		t.Fatal(err)
	}
	if err := own.Kill(); err == nil {
		t.Error("Kill of the caller's own group: want a refusal")
	}
}

func TestRemoveFake(t *testing.T) {
	f := fakeTree(t, v2Files())
	g, err := f.Create("authbench/lab/x")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetCPULimit(100); err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	d, _ := g.Dir("cpu")
	if exists(d) {
		t.Errorf("%s still exists after Remove", d)
	}
	if err := g.Remove(); err != nil {
		t.Errorf("second Remove: %v (want nil)", err)
	}
}
