package kube

import (
	"os"
	"path/filepath"
	"testing"
)

func TestImportedImage(t *testing.T) {
	dir := t.TempDir()
	if ref, err := ImportedImage(dir, "authbench"); ref != "" || err != nil {
		t.Errorf("no record: %q, %v; want \"\", nil", ref, err)
	}
	want := "authbench.local/authbench:sha-0123456789abcdef"
	if err := writeImages(dir, map[string]string{"authbench": want, "pause": "authbench.local/pause:3.10"}); err != nil {
		t.Fatal(err)
	}
	if ref, err := ImportedImage(dir, "authbench"); ref != want || err != nil {
		t.Errorf("recorded: %q, %v; want %q", ref, err, want)
	}
	os.WriteFile(filepath.Join(dir, ImagesFile), []byte("{"), 0o644)
	if _, err := ImportedImage(dir, "authbench"); err == nil {
		t.Error("a broken record gave no error")
	}
}
