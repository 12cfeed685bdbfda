package keycloak

import (
	"slices"
	"strings"
	"testing"

	"github.com/authbench/authbench/internal/testenv"
)

func TestCommandGolden(t *testing.T) {
	path, args, _ := labConfig().Command()
	var b strings.Builder
	b.WriteString(path + "\n")
	for _, a := range args {
		b.WriteString("  " + a + "\n")
	}
	testenv.Golden(t, "testdata/command.txt", []byte(b.String()))
}

func TestCommandListensOnlyOnLoopbackHTTPS(t *testing.T) {
	_, args, _ := labConfig().Command()
	for _, want := range []string{
		"--http-enabled=false", "--http-host=127.0.0.1", "--https-port=18443",
		"--cache=local",
		"--hostname=https://127.0.0.1:18443",
		"-DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %q", want)
		}
	}
	for _, a := range args {
		// Health and metrics (off by default) would open the management interface.
		if strings.HasPrefix(a, "--health") || strings.HasPrefix(a, "--metrics") || strings.HasPrefix(a, "--http-management") {
			t.Errorf("arg %q touches the management interface", a)
		}
		if strings.Contains(a, "admin-pw") || strings.Contains(a, "client-secret") {
			t.Errorf("arg %q holds a secret; secrets go in the environment", a)
		}
	}
}

func TestEnviron(t *testing.T) {
	javaHome := t.TempDir()
	base := []string{"PATH=/usr/bin", "HOME=/root", "KC_DB=postgres", "KC_HOSTNAME=x",
		"JAVA_OPTS=-Xmx8g", "JAVA_OPTS_APPEND=-Dx", "JAVA_HOME=/old", "JAVA=/old/java", "DEBUG=true", "KCX=kept"}
	for _, tc := range []struct {
		name string
		java string
		want []string
	}{
		{"java from PATH", "", []string{"PATH=/usr/bin", "HOME=/root", "KCX=kept",
			"JAVA_OPTS_APPEND=-XX:TieredStopAtLevel=1", "KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
		{"java binary", "/opt/jdk/bin/java", []string{"PATH=/usr/bin", "HOME=/root", "KCX=kept",
			"JAVA=/opt/jdk/bin/java", "JAVA_OPTS_APPEND=-XX:TieredStopAtLevel=1", "KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
		{"java home", javaHome, []string{"PATH=/usr/bin", "HOME=/root", "KCX=kept",
			"JAVA_HOME=" + javaHome, "JAVA_OPTS_APPEND=-XX:TieredStopAtLevel=1", "KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := labConfig()
			c.Java = tc.java
			if got := c.WithDefaults().environ(base); !slices.Equal(got, tc.want) {
				t.Errorf("environ =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestBuildCommandMatchesStart(t *testing.T) {
	path, args, env := BuildCommand(Config{Home: "/kc", Java: "/opt/jdk/bin/java"})
	if path != "/kc/bin/kc.sh" || len(args) == 0 || args[0] != "build" {
		t.Fatalf("BuildCommand = %s %q, want /kc/bin/kc.sh build ...", path, args)
	}
	_, startArgs, _ := labConfig().Command()
	// Keycloak rebuilds at start when the build options differ from the
	// last build's, so every build option must be given to start as well.
	for _, a := range args[1:] {
		if !slices.Contains(startArgs, a) {
			t.Errorf("build option %q is not given to start", a)
		}
	}
	if !slices.Contains(env, "JAVA=/opt/jdk/bin/java") {
		t.Errorf("BuildCommand env lacks JAVA=/opt/jdk/bin/java")
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "KC_BOOTSTRAP_ADMIN") {
			t.Errorf("BuildCommand env holds %s", strings.SplitN(kv, "=", 2)[0])
		}
	}
}
