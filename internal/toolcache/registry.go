package toolcache

// RegistryName is the CNCF distribution registry (cmd/registry): only
// tests need it, to push authbench's image to a real registry with basic
// auth and pull it from the kube lab by digest.
const RegistryName = "registry"

// RegistryVersion is the pinned distribution release.
const RegistryVersion = "v3.1.2"

// registryTool builds the registry alone; it is optional, so a plain
// `lab install` skips it and `lab install --optional` (or naming it)
// builds it.
func registryTool() Tool {
	const m = "github.com/distribution/distribution/v3"
	const target = m + "/cmd/registry"
	return Tool{
		Name: RegistryName, Version: RegistryVersion, Module: m, Target: target,
		Wrapper:     single(RegistryName, m, RegistryVersion, target),
		LDFlags:     []string{"-X " + m + "/version.version=" + RegistryVersion},
		VersionArgs: []string{"--version"}, VersionWant: m + " " + RegistryVersion,
		Optional:    true,
	}
}
