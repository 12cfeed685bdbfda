package keycloak

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Command says how to start Keycloak: run path with args and exactly env
// (a filtered copy of this process's environment plus Keycloak's settings).
// Call Prepare first.
//
// It runs `kc.sh start` without --optimized: on the first start (or after
// anyone rebuilt Home with other build options) Keycloak runs its build step
// into Home/lib/quarkus and re-executes itself under the same pid; later
// starts only compare the persisted build options and skip the build.
//
// kc.sh runs java as a child and forwards SIGTERM to it, so the supervisor
// must start it in its own process group and signal the group. The log goes
// to stdout in plain text; the supervisor keeps it.
func (c Config) Command() (path string, args []string, env []string) {
	c = c.WithDefaults()
	path = filepath.Join(c.Home, "bin", "kc.sh")
	args = append(c.javaProperties(), "start")
	args = append(args, c.options()...)
	return path, args, c.environ(os.Environ())
}

// javaProperties are JVM system properties, passed to kc.sh as -D arguments.
func (c Config) javaProperties() []string {
	return []string{
		// Narayana's default process id binds a ServerSocket on a random port
		// for the life of the process; a UUID needs no socket.
		"-DCoreEnvironmentBean.processImplementationClassName=com.arjuna.ats.internal.arjuna.utils.UuidProcessId",
		// The transaction object store defaults to Home/data, which is shared.
		"-Dquarkus.transaction-manager.object-store.directory=" + filepath.Join(c.DataDir, "transaction-logs"),
	}
}

// options are Keycloak's command-line options for `start`.
func (c Config) options() []string {
	return append(buildOptions(),
		"--db-url="+c.jdbcURL(),
		"--http-enabled=false",
		"--http-host=127.0.0.1",
		fmt.Sprintf("--https-port=%d", c.HTTPSPort),
		"--https-certificate-file="+c.CertFile,
		"--https-certificate-key-file="+c.KeyFile,
		// A fixed hostname makes iss and every discovered URL
		// PublicURL whatever Host header a client sends.
		"--hostname="+PublicURL(c),
		"--cache=local",
		"--log=console",
		"--log-console-color=false",
	)
}

// buildOptions are the build-time options, given identically to `build` and
// `start`: Keycloak rebuilds when a start names build options the last build
// did not, even at their default values. Health and metrics stay off (their
// default), so there is no management interface.
func buildOptions() []string { return []string{"--db=dev-file"} }

// BuildCommand runs Keycloak's build step into Home/lib/quarkus with the
// options Command uses, so that the lab's first start skips it (~1 min of
// CPU). `authbench lab install` may run it after unpacking; Command works
// without it. Only Home and Java are read from c.
func BuildCommand(c Config) (path string, args []string, env []string) {
	c = c.WithDefaults()
	return filepath.Join(c.Home, "bin", "kc.sh"), append([]string{"build"}, buildOptions()...), c.javaEnviron(os.Environ())
}

// jdbcURL puts the H2 database in DataDir, with the settings Keycloak adds to
// its own default dev-file URL (and without AUTO_SERVER, which would listen).
func (c Config) jdbcURL() string {
	return "jdbc:h2:file:" + filepath.Join(c.DataDir, "h2", "keycloakdb") +
		";NON_KEYWORDS=VALUE;DB_CLOSE_ON_EXIT=FALSE;DB_CLOSE_DELAY=0"
}

// environ is javaEnviron plus the bootstrap admin. The admin password goes
// in the environment, not in args that ps shows.
func (c Config) environ(base []string) []string {
	return append(c.javaEnviron(base),
		"KC_BOOTSTRAP_ADMIN_USERNAME="+c.AdminUser,
		"KC_BOOTSTRAP_ADMIN_PASSWORD="+c.AdminPassword,
	)
}

// javaEnviron returns base without the variables that would change
// Keycloak's configuration behind the command line's back (KC_*, JAVA_OPTS*,
// DEBUG, ...), plus the java to use.
func (c Config) javaEnviron(base []string) []string {
	env := make([]string, 0, len(base)+4)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "KC_") || strings.HasPrefix(name, "JAVA_OPTS") ||
			name == "JAVA" || name == "JAVA_HOME" || name == "JAVA_ADD_OPENS" || name == "DEBUG" {
			continue
		}
		env = append(env, kv)
	}
	if c.Java != "" {
		if fi, err := os.Stat(c.Java); err == nil && fi.IsDir() {
			env = append(env, "JAVA_HOME="+c.Java)
		} else {
			env = append(env, "JAVA="+c.Java)
		}
	}
	// Keycloak is off the lab's request path (JWTs are verified locally with
	// its JWKS), so start time matters more than peak speed: stopping the JIT
	// at C1 halves the CPU a start or a build takes (30 -> 16 CPU-seconds).
	return append(env, "JAVA_OPTS_APPEND=-XX:TieredStopAtLevel=1")
}
