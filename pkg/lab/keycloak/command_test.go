package keycloak

import (
	"slices"
	"strings"
	"testing"
)

func TestCommandGolden(t *testing.T) {
	path, args, _ := labConfig().Command()
	var b strings.Builder
	b.WriteString(path + "\n")
	for _, a := range args {
		b.WriteString("  " + a + "\n")
	}
	golden(t, "command.txt", []byte(b.String()))
}

func TestCommandListensOnlyOnLoopbackHTTPS(t *testing.T) {
	_, args, _ := labConfig().Command()
	for _, want := range []string{
		"--http-enabled=false", "--http-host=127.0.0.1", "--https-port=18443",
		"--cache=local", "--health-enabled=false", "--metrics-enabled=false",
		"--hostname=https://127.0.0.1:18443",
		"-DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %q", want)
		}
	}
	for _, a := range args {
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
			"KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
		{"java binary", "/opt/jdk/bin/java", []string{"PATH=/usr/bin", "HOME=/root", "KCX=kept",
			"JAVA=/opt/jdk/bin/java", "KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
		{"java home", javaHome, []string{"PATH=/usr/bin", "HOME=/root", "KCX=kept",
			"JAVA_HOME=" + javaHome, "KC_BOOTSTRAP_ADMIN_USERNAME=admin", "KC_BOOTSTRAP_ADMIN_PASSWORD=admin-pw"}},
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
