package image

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWriteLayoutReadsBack(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		wantFiles []string
		wantErr   string
	}{
		{"binary with parents", Spec{Ref: "authbench.local/x:v1", Entrypoint: []string{"/usr/local/bin/x"},
			Files: []File{{Path: "/usr/local/bin/x", Data: []byte("#!"), Mode: 0o755}}},
			[]string{"usr", "usr/local", "usr/local/bin", "usr/local/bin/x"}, ""},
		{"dirs and links", Spec{Ref: "reg.example:5000/ns/y:1.2_3",
			Files: []File{{Path: "/var/lib/nginx", Dir: true}, {Path: "/lib64", Link: "lib"}}},
			[]string{"var", "var/lib", "var/lib/nginx", "lib64"}, ""},
		{"no tag", Spec{Ref: "authbench.local/x"}, nil, "has no tag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			desc, err := WriteLayout(&buf, tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l, err := ReadLayout(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if l.Ref() != tc.spec.Ref || desc.Digest != l.Index.Manifests[0].Digest {
				t.Errorf("ref %q digest %s, want %q %s", l.Ref(), l.Index.Manifests[0].Digest, tc.spec.Ref, desc.Digest)
			}
			if l.Manifest.Layers[0].MediaType != MediaTypeLayer || l.Config.OS != "linux" {
				t.Errorf("layer %s os %s", l.Manifest.Layers[0].MediaType, l.Config.OS)
			}
			if strings.Join(l.Config.Config.Entrypoint, " ") != strings.Join(tc.spec.Entrypoint, " ") {
				t.Errorf("entrypoint %v, want %v", l.Config.Config.Entrypoint, tc.spec.Entrypoint)
			}
			for _, f := range tc.wantFiles {
				if _, ok := l.Files[f]; !ok {
					t.Errorf("layer lacks %s; has %v", f, keys(l.Files))
				}
			}
			var again bytes.Buffer
			if _, err := WriteLayout(&again, tc.spec); err != nil || !bytes.Equal(again.Bytes(), buf.Bytes()) {
				t.Errorf("a second write differs (err %v): the layout must be deterministic", err)
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	return k
}

func TestReadLayoutRejectsTampering(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteLayout(&buf, Spec{Ref: "a.b/c:d", Files: []File{{Path: "/f", Data: []byte("hello")}}}); err != nil {
		t.Fatal(err)
	}
	b := bytes.Replace(buf.Bytes(), []byte("hello"), []byte("HELLO"), 1)
	if _, err := ReadLayout(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("err = %v, want a digest mismatch", err)
	}
	if _, err := ReadLayout(strings.NewReader("not a tar")); err == nil {
		t.Fatal("garbage read as a layout")
	}
}

func TestParseLdd(t *testing.T) {
	tests := []struct {
		name, out string
		want      []string
		wantErr   bool
	}{
		{"dynamic", "\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x7f)\n\t/lib64/ld-linux-x86-64.so.2 (0x7f)\n",
			[]string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}, false},
		{"missing", "\tlibfoo.so => not found\n", nil, true},
		{"empty", "", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseLdd([]byte(tc.out))
			if (err != nil) != tc.wantErr || strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("parseLdd = %v, %v; want %v (err %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestProgramCarriesItsLibraries(t *testing.T) {
	files, err := Program(context.Background(), "/bin/true", "/bin/true")
	if err != nil {
		t.Skipf("no /bin/true with ldd: %v", err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	all := strings.Join(paths, " ")
	for _, want := range []string{"/bin/true", "libc.so.6", "ld-linux", "/etc/passwd"} {
		if !strings.Contains(all, want) {
			t.Errorf("files %v lack %s", paths, want)
		}
	}
}

func TestSanitizeTag(t *testing.T) {
	for in, want := range map[string]string{"1.22.1-9+deb12u11": "1.22.1-9_deb12u11", "v1.0.0": "v1.0.0", "1.6.20~ds1": "1.6.20_ds1"} {
		if got := SanitizeTag(in); got != want {
			t.Errorf("SanitizeTag(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzReadLayout(f *testing.F) {
	var buf bytes.Buffer
	WriteLayout(&buf, Spec{Ref: "a.b/c:d", Files: []File{{Path: "/f", Data: []byte("x")}}})
	f.Add(buf.Bytes())
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadLayout(bytes.NewReader(b))
		if err == nil && l.Ref() == "" && len(l.Index.Manifests) != 1 {
			t.Fatal("accepted a layout without exactly one manifest")
		}
	})
}
